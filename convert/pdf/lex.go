package pdf

import (
	"bytes"
	"strconv"
)

// A small reader of PDF content streams and CMaps: just enough syntax to
// find text-showing operators and their strings. Malformed input ends the
// stream early; it never fails.

type tokKind int

const (
	tokNum tokKind = iota
	tokStr
	tokName
	tokOp
	tokArray
	tokDict
)

type token struct {
	kind tokKind
	b    []byte  // string bytes, name or operator
	num  float64 // tokNum
	arr  []token // tokArray elements, tokDict keys and values
}

type lexer struct {
	b []byte
	i int
}

const maxNesting = 32

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isDelim(c byte) bool { return bytes.IndexByte([]byte("()<>[]{}/%"), c) >= 0 }

func (l *lexer) skipSpace() {
	for l.i < len(l.b) {
		switch c := l.b[l.i]; {
		case isSpace(c):
			l.i++
		case c == '%':
			for l.i < len(l.b) && l.b[l.i] != '\n' && l.b[l.i] != '\r' {
				l.i++
			}
		default:
			return
		}
	}
}

// object returns the next operand or operator; ok is false at the end.
func (l *lexer) object(depth int) (t token, ok bool) {
	l.skipSpace()
	if l.i >= len(l.b) || depth > maxNesting {
		return token{}, false
	}
	switch c := l.b[l.i]; {
	case c == '(':
		return token{kind: tokStr, b: l.literal()}, true
	case c == '<' && l.i+1 < len(l.b) && l.b[l.i+1] == '<':
		l.i += 2
		return l.until(">>", tokDict, depth)
	case c == '<':
		return token{kind: tokStr, b: l.hex()}, true
	case c == '[':
		l.i++
		return l.until("]", tokArray, depth)
	case c == '/':
		l.i++
		return token{kind: tokName, b: l.regular()}, true
	case c == ']' || c == '>' || c == ')' || c == '{' || c == '}':
		l.i++ // stray delimiter: skip it
		return token{kind: tokOp, b: nil}, true
	}
	word := l.regular()
	if n, err := strconv.ParseFloat(string(word), 64); err == nil {
		return token{kind: tokNum, num: n}, true
	}
	return token{kind: tokOp, b: word}, true
}

// until collects objects up to the closing delimiter end.
func (l *lexer) until(end string, kind tokKind, depth int) (token, bool) {
	t := token{kind: kind}
	for {
		l.skipSpace()
		if l.i >= len(l.b) {
			return t, true
		}
		if bytes.HasPrefix(l.b[l.i:], []byte(end)) {
			l.i += len(end)
			return t, true
		}
		o, ok := l.object(depth + 1)
		if !ok {
			return t, false
		}
		t.arr = append(t.arr, o)
	}
}

func (l *lexer) regular() []byte {
	start := l.i
	for l.i < len(l.b) && !isSpace(l.b[l.i]) && !isDelim(l.b[l.i]) {
		l.i++
	}
	if l.i == start && l.i < len(l.b) {
		l.i++ // a lone delimiter we do not handle
	}
	return l.b[start:l.i]
}

func (l *lexer) literal() []byte {
	var out []byte
	level := 0
	for l.i++; l.i < len(l.b); l.i++ {
		c := l.b[l.i]
		switch {
		case c == '(':
			level++
		case c == ')' && level == 0:
			l.i++
			return out
		case c == ')':
			level--
		case c == '\\' && l.i+1 < len(l.b):
			l.i++
			var keep bool
			if c, keep = l.escape(); !keep {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// escape decodes the escape at l.i (just after the backslash), leaving l.i
// on its last byte; keep is false for a line continuation.
func (l *lexer) escape() (c byte, keep bool) {
	c = l.b[l.i]
	switch c {
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case '\r':
		if l.i+1 < len(l.b) && l.b[l.i+1] == '\n' {
			l.i++
		}
		return 0, false
	case '\n':
		return 0, false
	}
	if !isOctal(c) {
		return c, true
	}
	v := 0
	for n := 0; n < 3 && l.i < len(l.b) && isOctal(l.b[l.i]); n++ {
		v = v*8 + int(l.b[l.i]-'0')
		l.i++
	}
	l.i--
	return byte(v), true
}

func (l *lexer) hex() []byte {
	var out []byte
	var hi byte
	half := false
	for l.i++; l.i < len(l.b) && l.b[l.i] != '>'; l.i++ {
		v, ok := hexVal(l.b[l.i])
		if !ok {
			continue
		}
		if half {
			out = append(out, hi<<4|v)
		} else {
			hi = v
		}
		half = !half
	}
	l.i++
	if half {
		out = append(out, hi<<4)
	}
	return out
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// skipInlineImage moves past the binary data of an inline image, which
// follows the ID operator and ends with whitespace, EI and a delimiter.
func (l *lexer) skipInlineImage() {
	for l.i < len(l.b) {
		k := bytes.Index(l.b[l.i:], []byte("EI"))
		if k < 0 {
			l.i = len(l.b)
			return
		}
		j := l.i + k
		l.i = j + 2
		if j > 0 && isSpace(l.b[j-1]) && (l.i >= len(l.b) || isSpace(l.b[l.i]) || isDelim(l.b[l.i])) {
			return
		}
	}
}
