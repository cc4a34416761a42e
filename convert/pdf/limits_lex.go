package pdf

import (
	"bufio"
	"io"
)

// tkind is the kind of a token of CheckLimits' tokenizer.
type tkind int

const (
	tOther     tkind = iota // a string, a stray delimiter
	tName                   // /Name, its #xx escapes decoded
	tWord                   // a number or a keyword: R, obj, stream...
	tArrOpen                // [
	tArrClose               // ]
	tDictOpen               // <<
	tDictClose              // >>
)

// maxToken is the most bytes of a name or word kept: the longest name
// PDF allows is 127 bytes; longer ones are cut, and match nothing
// CheckLimits looks for.
const maxToken = 127

// tokenizer reads PDF tokens from a stream of bytes, one byte at a time,
// keeping nothing but the current token: strings and comments are read
// through, as a parser reads them, so that their bytes are never taken
// for structure.
type tokenizer struct {
	r   *bufio.Reader
	pos int64 // bytes read since the last reset
	buf [maxToken]byte
}

// reset makes t read r, which starts at offset pos of the file.
func (t *tokenizer) reset(r io.Reader, pos int64) {
	t.r.Reset(r)
	t.pos = pos
}

func (t *tokenizer) byte() (byte, error) {
	c, err := t.r.ReadByte()
	if err == nil {
		t.pos++
	}
	return c, err
}

func (t *tokenizer) unread() {
	t.r.UnreadByte()
	t.pos--
}

// regularChar says which bytes are PDF's regular characters: neither
// white space nor a delimiter.
var regularChar = func() (t [256]bool) {
	for c := range t {
		t[c] = !isSpace(byte(c)) && !isDelim(byte(c))
	}
	return t
}()

func isRegular(c byte) bool { return regularChar[c] }

// next returns the next token; b holds a name's or a word's bytes until
// the next call. The error is io.EOF at the end.
func (t *tokenizer) next() (k tkind, b []byte, err error) {
	for {
		c, err := t.byte()
		if err != nil {
			return tOther, nil, err
		}
		switch {
		case isSpace(c):
		case c == '%':
			if err := t.skipLine(); err != nil {
				return tOther, nil, err
			}
		case c == '/':
			return tName, t.name(), nil
		case c == '[':
			return tArrOpen, nil, nil
		case c == ']':
			return tArrClose, nil, nil
		case c == '(':
			return tOther, nil, t.literal()
		case c == '<':
			return t.angle(true)
		case c == '>':
			return t.angle(false)
		case isRegular(c):
			t.unread()
			return tWord, t.regular(false), nil
		default: // { } )
			return tOther, nil, nil
		}
	}
}

// angle reads what follows < (open) or >: << or >>, else the rest of a
// hex string, or nothing after a stray >.
func (t *tokenizer) angle(open bool) (tkind, []byte, error) {
	c, err := t.byte()
	switch {
	case err != nil:
		return tOther, nil, err
	case open && c == '<':
		return tDictOpen, nil, nil
	case !open && c == '>':
		return tDictClose, nil, nil
	case !open:
		t.unread()
		return tOther, nil, nil
	}
	for c != '>' {
		if c, err = t.byte(); err != nil {
			return tOther, nil, err
		}
	}
	return tOther, nil, nil
}

// skipLine reads through a comment.
func (t *tokenizer) skipLine() error {
	for {
		c, err := t.byte()
		if err != nil || c == '\n' || c == '\r' {
			return err
		}
	}
}

// literal reads through a string whose ( was read: parentheses balance
// unless escaped with a backslash.
func (t *tokenizer) literal() error {
	depth := 1
	for depth > 0 {
		c, err := t.byte()
		if err != nil {
			return err
		}
		switch c {
		case '\\':
			if _, err := t.byte(); err != nil {
				return err
			}
		case '(':
			depth++
		case ')':
			depth--
		}
	}
	return nil
}

// regular reads a run of regular characters, decoding #xx escapes when
// it is a name's.
func (t *tokenizer) regular(name bool) []byte {
	n := 0
	for {
		c, err := t.byte()
		if err != nil {
			return t.buf[:n]
		}
		if !isRegular(c) {
			t.unread()
			return t.buf[:n]
		}
		if c == '#' && name {
			c = t.escape()
		}
		if n < len(t.buf) {
			t.buf[n] = c
		}
		n = min(n+1, len(t.buf))
	}
}

func (t *tokenizer) name() []byte { return t.regular(true) }

// escape decodes the two hex digits after # in a name; a # without
// them stands for itself.
func (t *tokenizer) escape() byte {
	var v byte
	for i := range 2 {
		c, err := t.byte()
		d, ok := hexVal(c)
		if err != nil || !ok {
			if err == nil {
				t.unread()
			}
			if i == 0 {
				return '#'
			}
			return v
		}
		v = v<<4 | d
	}
	return v
}

// pageCount counts, in a stream of tokens, the page objects (/Type
// /Page) and the references in /Kids arrays.
type pageCount struct {
	typePage, kidsRefs int
	afterType          bool // the last token was /Type
	afterKids          bool // the last token was /Kids
	kids               int  // nesting of the /Kids array being read; 0 outside
}

func (c *pageCount) token(k tkind, b []byte) {
	if c.kids > 0 {
		switch {
		case k == tArrOpen:
			c.kids++
		case k == tArrClose:
			c.kids--
		case k == tWord && string(b) == "R":
			c.kidsRefs++
		}
	}
	switch {
	case c.afterType && k == tName && string(b) == "Page":
		c.typePage++
	case c.afterKids && k == tArrOpen && c.kids == 0:
		c.kids = 1
	}
	c.afterType = k == tName && string(b) == "Type"
	c.afterKids = k == tName && string(b) == "Kids"
}
