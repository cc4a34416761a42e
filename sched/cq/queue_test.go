package cq

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"testing"
)

// refHeap is the reference the calendar queue is checked against: the
// standard library's heap over (key, seq).
type refItem struct {
	key float64
	seq uint64
}
type refHeap []refItem

func (h refHeap) Len() int { return len(h) }
func (h refHeap) Less(i, j int) bool {
	return h[i].key < h[j].key || (h[i].key == h[j].key && h[i].seq < h[j].seq)
}
func (h refHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *refHeap) Push(x any)   { *h = append(*h, x.(refItem)) }
func (h *refHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// model drives a Queue and the reference side by side, checking every
// result and the invariants after every operation.
type model struct {
	t       testing.TB
	q       *Queue[float64, uint64]
	ref     refHeap
	handles map[uint64]Handle[float64]
	removed map[uint64]bool
	seq     uint64
}

func newModel(t testing.TB, p Policy) *model {
	return &model{t: t, q: NewQueue[float64, uint64](Options{Policy: p}),
		handles: map[uint64]Handle[float64]{}, removed: map[uint64]bool{}}
}

func (m *model) check(op string) {
	m.t.Helper()
	if err := m.q.verify(); err != nil {
		m.t.Fatalf("after %s: %v", op, err)
	}
	if got, want := m.q.Len(), m.ref.Len(); got != want {
		m.t.Fatalf("after %s: Len() = %d, want %d", op, got, want)
	}
}

func (m *model) push(k float64) {
	m.t.Helper()
	m.seq++
	m.handles[m.seq] = m.q.Push(k, m.seq)
	heap.Push(&m.ref, refItem{k, m.seq})
	m.check("push")
}

func (m *model) pop() {
	m.t.Helper()
	k, v, ok := m.q.Pop()
	for m.ref.Len() > 0 && m.removed[m.ref[0].seq] {
		heap.Pop(&m.ref)
	}
	if m.ref.Len() == 0 {
		if ok {
			m.t.Fatalf("Pop() = %v, %v, true on an empty queue", k, v)
		}
		return
	}
	want := heap.Pop(&m.ref).(refItem)
	if !ok || v != want.seq || k != want.key && !(math.IsNaN(k) && math.IsNaN(want.key)) {
		m.t.Fatalf("Pop() = (%v, #%d, %v), want (%v, #%d)", k, v, ok, want.key, want.seq)
	}
	delete(m.handles, v)
	m.check("pop")
}

func (m *model) remove(seq uint64) {
	m.t.Helper()
	h, live := m.handles[seq]
	if got := m.q.Remove(h); got != live {
		m.t.Fatalf("Remove(#%d) = %v, want %v", seq, got, live)
	}
	if live {
		delete(m.handles, seq)
		m.removed[seq] = true
		// keep the reference's Len honest
		for i := range m.ref {
			if m.ref[i].seq == seq {
				heap.Remove(&m.ref, i)
				break
			}
		}
	}
	m.check("remove")
}

func TestQueueAgainstHeap(t *testing.T) {
	incr := map[string]func(r *rand.Rand) float64{
		"exp":     func(r *rand.Rand) float64 { return r.ExpFloat64() },
		"uniform": func(r *rand.Rand) float64 { return 2 * r.Float64() },
		"equal":   func(r *rand.Rand) float64 { return 0 },
		"coarse":  func(r *rand.Rand) float64 { return float64(r.IntN(3)) },
		"camel": func(r *rand.Rand) float64 {
			if r.Float64() < 0.999 {
				return 0.5 + float64(r.IntN(2)) + 0.001*r.Float64()
			}
			return 2 * r.Float64()
		},
		"huge": func(r *rand.Rand) float64 { return math.Ldexp(r.Float64(), r.IntN(60)-30) },
	}
	for name, f := range incr {
		for _, p := range []Policy{PolicyPRAM, PolicyBrown} {
			t.Run(name+"/"+p.String(), func(t *testing.T) {
				r := rand.New(rand.NewPCG(1, 2))
				m := newModel(t, p)
				now := 0.0
				for i := 0; i < 3000; i++ { // up
					m.push(now + f(r))
				}
				for i := 0; i < 6000; i++ { // hold with removals and past keys
					switch x := r.IntN(20); {
					case x == 0:
						m.remove(uint64(r.IntN(int(m.seq))) + 1)
					case x == 1:
						m.push(now - f(r)) // before the last popped key
					default:
						if k, _, ok := m.q.Peek(); ok {
							now = k
						}
						m.pop()
						m.push(now + f(r))
					}
				}
				for m.q.Len() > 0 { // down
					m.pop()
				}
				m.pop()
			})
		}
	}
}
