package cq

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzQueue runs a random sequence of operations against the calendar
// queue and the reference heap, checking every result and the invariants
// after each step. Each operation takes 3 bytes: an opcode and a 16-bit
// argument that selects the key's shape: equal keys, tiny and huge gaps,
// keys before the last one popped, negative and very large keys.
func FuzzQueue(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0, 3, 4, 1, 0, 0, 2, 0, 0, 3, 0, 1})
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x01\x00\x00"))
	f.Add(make([]byte, 3*2000))
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 3*20000 {
			return
		}
		for _, p := range []Policy{PolicyPRAM, PolicyBrown} {
			m := newModel(t, p)
			now := 0.0
			for i := 0; i+3 <= len(ops); i += 3 {
				arg := binary.LittleEndian.Uint16(ops[i+1:])
				op := ops[i] % 8
				if m.q.Len() >= maxFuzzLen && op <= 3 {
					op = 4 // keep the queue small enough to verify after every step
				}
				switch op {
				case 0, 1, 2:
					m.push(fuzzKey(now, arg))
				case 3:
					m.push(fuzzKey(now, arg))
					m.push(fuzzKey(now, arg))
				case 4, 5:
					if k, _, ok := m.q.Peek(); ok {
						now = k
					}
					m.pop()
				case 6:
					if m.seq > 0 {
						m.remove(uint64(arg)%m.seq + 1)
					}
				case 7: // a burst, to force resizes
					for j := range min(int(arg%512), maxFuzzLen-m.q.Len()) {
						m.push(fuzzKey(now, arg+uint16(j)))
					}
				}
			}
			for m.q.Len() > 0 {
				m.pop()
			}
		}
	})
}

// maxFuzzLen bounds the queue in FuzzQueue: verify is O(n) after every step.
const maxFuzzLen = 4000

func fuzzKey(now float64, arg uint16) float64 {
	v := float64(arg>>4) / 16
	switch arg & 15 {
	case 0:
		return now // equal keys
	case 1:
		return now + v*1e-12 // tiny gaps
	case 2:
		return now + v*1e12 // huge gaps
	case 3:
		return now - v // before the last popped key
	case 4:
		return -v * 1e300
	case 5:
		return math.Ldexp(v, 1000)
	case 6:
		return math.Inf(1)
	case 7:
		return math.Inf(-1)
	default:
		return now + v
	}
}
