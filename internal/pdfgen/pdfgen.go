// Package pdfgen writes PDFs built to cost their reader: many pages in few
// bytes (Pages), and a small file whose one content stream inflates to a
// great size (Inflating); and PDFs of objects a test writes (Objects). Tests and bench commands generate them in a
// temporary directory instead of keeping big files in the tree.
//
// Both write a valid PDF 1.7 (a cross-reference table with true offsets)
// in one pass, in memory bounded by a few MiB whatever the size asked for;
// Pages(w, 100000) writes 12 MB, Inflating(w, 1<<30) about 1 MB.
// Output depends only on the arguments. Everything here is safe for
// concurrent use.
package pdfgen

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"os"
)

// counter is a writer that counts the bytes written, for the offsets of
// the cross-reference table.
type counter struct {
	w   *bufio.Writer
	n   int64
	err error
}

func (c *counter) printf(format string, args ...any) {
	if c.err != nil {
		return
	}
	n, err := fmt.Fprintf(c.w, format, args...)
	c.n += int64(n)
	c.err = err
}

func (c *counter) write(b []byte) {
	if c.err != nil {
		return
	}
	n, err := c.w.Write(b)
	c.n += int64(n)
	c.err = err
}

// doc writes objects 1..n in order and the table that finds them.
type doc struct {
	c    *counter
	offs []int64
}

func newDoc(w io.Writer) *doc {
	d := &doc{c: &counter{w: bufio.NewWriterSize(w, 64<<10)}}
	d.c.printf("%%PDF-1.7\n%%\xe2\xe3\xcf\xd3\n")
	return d
}

// obj starts object number len(offs)+1, which must be num.
func (d *doc) obj(num int) {
	d.offs = append(d.offs, d.c.n)
	if num != len(d.offs) && d.c.err == nil {
		d.c.err = fmt.Errorf("pdfgen: object %d written as %d", num, len(d.offs))
	}
	d.c.printf("%d 0 obj\n", num)
}

// finish writes the table and the trailer, with object 1 as the catalog.
func (d *doc) finish() error {
	start := d.c.n
	d.c.printf("xref\n0 %d\n0000000000 65535 f \n", len(d.offs)+1)
	for _, o := range d.offs {
		d.c.printf("%010d 00000 n \n", o)
	}
	d.c.printf("trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(d.offs)+1, start)
	if d.c.err != nil {
		return d.c.err
	}
	return d.c.w.Flush()
}

// Pages writes a PDF of n A4 pages (n ≥ 1), all drawing one shared
// content stream, in a flat page tree: about 120 bytes a page.
func Pages(w io.Writer, n int) error {
	if n < 1 {
		return errors.New("pdfgen: want at least one page")
	}
	d := newDoc(w)
	const first = 4 // objects: 1 catalog, 2 pages, 3 content, 4.. the pages
	d.obj(1)
	d.c.printf("<< /Type /Catalog /Pages 2 0 R >>\nendobj\n")
	d.obj(2)
	d.c.printf("<< /Type /Pages /Count %d /Kids [", n)
	for i := range n {
		d.c.printf("%d 0 R ", first+i)
	}
	d.c.printf("] >>\nendobj\n")
	content := "0 0 1 rg 100 700 50 50 re f\n"
	d.obj(3)
	d.c.printf("<< /Length %d >>\nstream\n%sendstream\nendobj\n", len(content), content)
	for i := range n {
		d.obj(first + i)
		d.c.printf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 3 0 R >>\nendobj\n")
	}
	return d.finish()
}

// Inflating writes a one-page PDF whose content stream, Flate-compressed,
// inflates to size bytes of spaces (a valid, empty drawing): about a
// thousandth of size on disk.
func Inflating(w io.Writer, size int64) error {
	if size < 1 {
		return errors.New("pdfgen: want a positive size")
	}
	z, err := zlibSpaces(size)
	if err != nil {
		return err
	}
	d := newDoc(w)
	d.obj(1)
	d.c.printf("<< /Type /Catalog /Pages 2 0 R >>\nendobj\n")
	d.obj(2)
	d.c.printf("<< /Type /Pages /Count 1 /Kids [3 0 R] >>\nendobj\n")
	d.obj(3)
	d.c.printf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>\nendobj\n")
	d.obj(4)
	d.c.printf("<< /Length %d /Filter /FlateDecode >>\nstream\n", z.Len())
	d.c.write(z.Bytes())
	d.c.printf("\nendstream\nendobj\n")
	return d.finish()
}

// chunk is the block of spaces compressed once and repeated: deflate
// blocks ended by a flush are byte-aligned and refer to nothing before
// them, so copies of one follow each other in a valid stream.
const chunk = 1 << 20

// zlibSpaces returns a zlib stream of size spaces.
func zlibSpaces(size int64) (*bytes.Buffer, error) {
	spaces := bytes.Repeat([]byte{' '}, chunk)
	block := func(n int) ([]byte, error) {
		var b bytes.Buffer
		fw, err := flate.NewWriter(&b, flate.BestCompression)
		if err != nil {
			return nil, err
		}
		if _, err := fw.Write(spaces[:n]); err != nil {
			return nil, err
		}
		if err := fw.Flush(); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	full, err := block(chunk)
	if err != nil {
		return nil, err
	}
	out := bytes.NewBuffer([]byte{0x78, 0xda}) // zlib header: deflate, 32K window, best compression
	sum := adler32.New()
	for left := size; left > 0; left -= chunk {
		b := full
		if left < chunk {
			if b, err = block(int(left)); err != nil {
				return nil, err
			}
		}
		out.Write(b)
		sum.Write(spaces[:min(left, chunk)])
	}
	out.Write([]byte{0x03, 0x00}) // an empty final block (fixed Huffman)
	return out, binary.Write(out, binary.BigEndian, sum.Sum32())
}

// Objects writes a PDF of the given objects (each the text between "obj"
// and "endobj": a dictionary, or one with its stream), numbered from 1,
// object 1 being the catalog.
func Objects(w io.Writer, objs ...string) error {
	d := newDoc(w)
	for i, o := range objs {
		d.obj(i + 1)
		d.c.printf("%s\nendobj\n", o)
	}
	return d.finish()
}

// WriteFile writes what gen writes to a new file at path.
func WriteFile(path string, gen func(io.Writer) error) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	return gen(f)
}
