package pdf

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"encoding/ascii85"
	"io"
	"strconv"

	tifflzw "golang.org/x/image/tiff/lzw"
)

// streamDict is what CheckLimits keeps of the dictionary a stream keyword
// may follow: its filters, whether it is an image or an object stream,
// and its direct /Length (-1 when indirect or absent).
type streamDict struct {
	filters []string
	image   bool
	objStm  bool
	length  int64

	key   string // the name whose value the next tokens are; "" for none
	arr   int    // nesting of the array being read as a value
	words int    // numbers read as /Length's value: 12, or 12 0 before R
	n     int64
}

// token takes one token at the dictionary's top level. Keys and values
// alternate; a name read while no key waits is a key.
func (d *streamDict) token(k tkind, b []byte) {
	if d.arr > 0 {
		switch {
		case k == tArrOpen:
			d.arr++
		case k == tArrClose:
			d.arr--
		case k == tName && d.key == "Filter" && d.arr == 1:
			d.filters = append(d.filters, string(b))
		}
		if d.arr == 0 {
			d.key = ""
		}
		return
	}
	switch {
	case k == tName && d.key == "Length" && d.words > 0:
		d.end()
		d.key = string(b)
	case k == tName && d.key != "":
		d.set(d.key, string(b))
		d.key = ""
	case k == tName:
		d.key = string(b)
	case k == tWord && d.key == "Length":
		d.lengthWord(b)
	case k == tArrOpen:
		d.arr = 1
		if d.key == "Filter" {
			d.filters = nil
		}
	default:
		d.value()
	}
}

// set records the name value of key.
func (d *streamDict) set(key, v string) {
	switch key {
	case "Filter":
		d.filters = []string{v}
	case "Subtype":
		d.image = v == "Image"
	case "Type":
		d.objStm = v == "ObjStm"
	}
}

// lengthWord reads /Length's value: a number, or an indirect reference
// (n g R), which leaves the length unknown.
func (d *streamDict) lengthWord(b []byte) {
	d.words++
	switch {
	case d.words == 1:
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil || n < 0 {
			d.value()
			return
		}
		d.n = n
	case d.words == 3 && string(b) == "R":
		d.length = -1
		d.value()
	case d.words >= 3:
		d.end()
	}
}

// value ends the value being read.
func (d *streamDict) value() {
	d.key, d.words = "", 0
}

// end ends the dictionary, or the value of its /Length: a number read
// and not followed by a reference's R is the length.
func (d *streamDict) end() {
	if d.key == "Length" && d.words > 0 {
		d.length = d.n
	}
	d.value()
}

// stream reads the data of the stream whose keyword was just read, and
// resumes the file after it.
func (s *scan) stream() error {
	d := s.dict
	// The keyword ends with CR LF or LF (a lone CR is taken too).
	if c, err := s.raw.byte(); err == nil {
		if c == '\r' {
			c, err = s.raw.byte()
		}
		if err == nil && c != '\n' {
			s.raw.unread()
		}
	}
	start := s.raw.pos
	end, err := s.dataEnd(start, d.length)
	if err != nil {
		return err
	}
	if err := s.inflate(d, io.NewSectionReader(s.f, start, end-start)); err != nil {
		return err
	}
	s.raw.reset(io.NewSectionReader(s.f, end, s.size-end), end)
	return nil
}

var endstream = []byte("endstream")

// dataEnd is where the data of a stream beginning at start ends: after
// its /Length when endstream follows there, as a reader takes it; else at
// the first endstream, or at the end of the file.
func (s *scan) dataEnd(start, length int64) (int64, error) {
	if length >= 0 && length <= s.size-start {
		var b [32]byte
		n, err := s.f.ReadAt(b[:], start+length)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if bytes.HasPrefix(bytes.TrimLeft(b[:n], "\x00\t\n\f\r "), endstream) {
			return start + length, nil
		}
	}
	return s.find(endstream, start)
}

// find returns the offset of the first kw at or after off, or the size of
// the file.
func (s *scan) find(kw []byte, off int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for off < s.size {
		n, err := s.f.ReadAt(buf, off)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.Index(buf[:n], kw); i >= 0 {
			return off + int64(i), nil
		}
		if n < len(buf) {
			break
		}
		off += int64(n - len(kw) + 1)
	}
	return s.size, nil
}

// inflate decodes a stream's data, counting what it inflates to against
// MaxInflated, and counts the pages an object stream holds. A stream
// that does not decode (broken, encrypted) counts as far as it went.
func (s *scan) inflate(d streamDict, data io.Reader) error {
	if d.image {
		return nil
	}
	r, ok := s.dec.chain(data, d.filters)
	if !ok {
		return nil
	}
	left := s.lim.MaxInflated - s.inflated
	cr := &countReader{r: r, ctx: s.ctx}
	lr := io.LimitReader(cr, left+1)
	if d.objStm {
		var pc pageCount
		t := tokenizer{r: bufio.NewReaderSize(lr, 16<<10)}
		for {
			k, b, err := t.next()
			if err != nil {
				break
			}
			pc.token(k, b)
		}
		s.pages.typePage += pc.typePage
		s.pages.kidsRefs += pc.kidsRefs
	} else {
		io.Copy(io.Discard, lr)
	}
	s.inflated += cr.n
	if cr.n > left {
		return &LimitError{MaxInflated: s.lim.MaxInflated}
	}
	return s.ctx.Err()
}

// countReader counts the bytes read through it, and stops when ctx ends.
type countReader struct {
	r   io.Reader
	ctx context.Context
	n   int64
}

func (c *countReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// decoders builds the readers of a stream's filters, keeping one zlib
// reader for the streams of a file: most are Flate alone.
type decoders struct {
	z io.ReadCloser
}

// chain returns r decoded by filters, in order, or false when one of them
// is not inflated here.
func (d *decoders) chain(r io.Reader, filters []string) (io.Reader, bool) {
	shared := false
	for _, f := range filters {
		switch f {
		case "FlateDecode", "Fl":
			r = &lazyZlib{d: d, src: r, shared: !shared}
			shared = true
		case "LZWDecode", "LZW":
			r = tifflzw.NewReader(r, tifflzw.MSB, 8) // with PDF's default EarlyChange
		case "ASCIIHexDecode", "AHx":
			r = &hexReader{r: bufio.NewReader(r)}
		case "ASCII85Decode", "A85":
			r = ascii85.NewDecoder(&until{r: bufio.NewReader(r), end: '~'})
		case "RunLengthDecode", "RL":
			r = &runLength{r: bufio.NewReader(r)}
		default:
			return nil, false
		}
	}
	return r, true
}

// lazyZlib reads a zlib stream whose header is read at the first Read,
// on the decoders' reader when shared.
type lazyZlib struct {
	d      *decoders
	src    io.Reader
	shared bool
	z      io.Reader
	err    error
}

func (l *lazyZlib) Read(p []byte) (int, error) {
	if l.z == nil && l.err == nil {
		l.z, l.err = l.open()
	}
	if l.err != nil {
		return 0, l.err
	}
	return l.z.Read(p)
}

func (l *lazyZlib) open() (io.Reader, error) {
	if !l.shared {
		return zlib.NewReader(l.src)
	}
	if l.d.z == nil {
		z, err := zlib.NewReader(l.src)
		if err == nil {
			l.d.z = z
		}
		return z, err
	}
	return l.d.z, l.d.z.(zlib.Resetter).Reset(l.src, nil)
}

// hexReader decodes ASCIIHex: pairs of hex digits, white space between,
// up to >; an odd last digit is followed by 0.
type hexReader struct {
	r    *bufio.Reader
	done bool
}

func (h *hexReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && !h.done {
		hi, ok := h.digit()
		if !ok {
			break
		}
		lo, ok := h.digit()
		p[n] = hi<<4 | lo
		n++
		if !ok {
			break
		}
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// digit returns the next hex digit, or false at > or the end.
func (h *hexReader) digit() (byte, bool) {
	for {
		c, err := h.r.ReadByte()
		if err != nil || c == '>' {
			h.done = true
			return 0, false
		}
		if v, ok := hexVal(c); ok {
			return v, true
		}
	}
}

// until reads r up to the byte end, as the end of the data.
type until struct {
	r    *bufio.Reader
	end  byte
	done bool
}

func (u *until) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && !u.done {
		c, err := u.r.ReadByte()
		if err != nil || c == u.end {
			u.done = true
			break
		}
		p[n] = c
		n++
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// runLength decodes RunLength: a length byte L, then L+1 bytes to copy
// (L < 128) or one byte to repeat 257-L times (L > 128); 128 ends it.
type runLength struct {
	r        *bufio.Reader
	copyLeft int  // bytes still to copy from r
	rep      int  // times still to repeat c
	c        byte // the byte repeated
	done     bool
}

func (rl *runLength) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		switch {
		case rl.rep > 0:
			p[n] = rl.c
			rl.rep--
			n++
		case rl.copyLeft > 0:
			c, err := rl.r.ReadByte()
			if err != nil {
				rl.done, rl.copyLeft = true, 0
				continue
			}
			p[n] = c
			rl.copyLeft--
			n++
		case rl.done || !rl.header():
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		}
	}
	return n, nil
}

// header reads a length byte and what a repeat needs; false at the end.
func (rl *runLength) header() bool {
	l, err := rl.r.ReadByte()
	switch {
	case err != nil || l == 128:
		rl.done = true
	case l < 128:
		rl.copyLeft = int(l) + 1
	default:
		c, err := rl.r.ReadByte()
		if err != nil {
			rl.done = true
			break
		}
		rl.c, rl.rep = c, 257-int(l)
	}
	return !rl.done
}
