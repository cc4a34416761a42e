package pdf

import (
	"unicode/utf16"
)

// cmap is a parsed ToUnicode CMap: how a font's character codes map to
// Unicode text.
type cmap struct {
	spaces []codeSpace
	chars  map[string]string // code bytes → text
	ranges []bfRange
}

type codeSpace struct{ lo, hi []byte }

type bfRange struct {
	lo, hi []byte
	base   []uint16 // UTF-16 of the first code; the last unit counts up
	list   []string // or one text per code
}

// parseCMap reads the codespace ranges, bfchar and bfrange entries of a
// ToUnicode CMap and ignores the rest of its PostScript.
func parseCMap(b []byte) *cmap {
	m := &cmap{chars: map[string]string{}}
	l := &lexer{b: b}
	var ops []token
	for {
		t, ok := l.object(0)
		if !ok {
			return m
		}
		if t.kind != tokOp {
			ops = append(ops, t)
			continue
		}
		switch string(t.b) {
		case "endcodespacerange":
			for i := 0; i+1 < len(ops); i += 2 {
				m.spaces = append(m.spaces, codeSpace{ops[i].b, ops[i+1].b})
			}
		case "endbfchar":
			for i := 0; i+1 < len(ops); i += 2 {
				m.chars[string(ops[i].b)] = utf16Text(ops[i+1].b)
			}
		case "endbfrange":
			for i := 0; i+2 < len(ops); i += 3 {
				m.addRange(ops[i].b, ops[i+1].b, ops[i+2])
			}
		}
		ops = ops[:0]
	}
}

func (m *cmap) addRange(lo, hi []byte, dst token) {
	if len(lo) != len(hi) || len(lo) == 0 || len(lo) > 4 {
		return
	}
	r := bfRange{lo: lo, hi: hi}
	switch dst.kind {
	case tokStr:
		r.base = utf16Units(dst.b)
	case tokArray:
		for _, t := range dst.arr {
			r.list = append(r.list, utf16Text(t.b))
		}
	default:
		return
	}
	m.ranges = append(m.ranges, r)
}

// next splits the code at the start of b and returns its text, if the
// CMap maps it, and its length in bytes.
func (m *cmap) next(b []byte, defaultLen int) (text string, mapped bool, n int) {
	n = m.codeLen(b, defaultLen)
	code := b[:n]
	if s, ok := m.chars[string(code)]; ok {
		return s, true, n
	}
	v := codeValue(code)
	for _, r := range m.ranges {
		if len(r.lo) != n || v < codeValue(r.lo) || v > codeValue(r.hi) {
			continue
		}
		off := int(v - codeValue(r.lo))
		if r.list != nil {
			if off < len(r.list) {
				return r.list[off], true, n
			}
			continue
		}
		if len(r.base) == 0 {
			continue
		}
		u := append([]uint16(nil), r.base...)
		u[len(u)-1] += uint16(off)
		return string(utf16.Decode(u)), true, n
	}
	return "", false, n
}

// codeLen is the length of the codespace range the start of b falls in.
func (m *cmap) codeLen(b []byte, defaultLen int) int {
	for _, s := range m.spaces {
		n := len(s.lo)
		if n == 0 || n != len(s.hi) || n > len(b) {
			continue
		}
		in := true
		for i := 0; i < n; i++ {
			in = in && b[i] >= s.lo[i] && b[i] <= s.hi[i]
		}
		if in {
			return n
		}
	}
	return min(defaultLen, len(b))
}

func codeValue(b []byte) uint32 {
	var v uint32
	for _, c := range b {
		v = v<<8 | uint32(c)
	}
	return v
}

func utf16Units(b []byte) []uint16 {
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
	}
	if len(b)%2 == 1 { // not UTF-16: take the byte as it is
		u = append(u, uint16(b[len(b)-1]))
	}
	return u
}

func utf16Text(b []byte) string { return string(utf16.Decode(utf16Units(b))) }
