package pdf

import (
	"bufio"
	"compress/zlib"
	"context"
	"encoding/ascii85"
	"io"

	tifflzw "golang.org/x/image/tiff/lzw"
)

// The decoders of CheckLimits: each inflates a stream as it is read,
// holding a window of it at most (zlib's 32 KiB).

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
