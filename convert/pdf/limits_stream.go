package pdf

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
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
