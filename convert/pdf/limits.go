package pdf

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"calq/internal/fsio"
)

// Limits bound the PDFs calq accepts, checked by CheckLimits before any
// of its work reads one. pdfcpu's cost grows with a PDF's pages, faster
// than linearly for some operations (measured: rotating 1,000 pages took
// 2 s, 10,000 pages 4 minutes), and its memory with what the streams it
// decodes inflate to: a 1 MB file can hold a stream of 1 GiB.
type Limits struct {
	MaxPages    int   // pages (0 → DefaultMaxPages)
	MaxInflated int64 // bytes the streams inflate to, images left out, all together (0 → DefaultMaxInflated)
}

// The bounds a zero Limits field stands for.
const (
	DefaultMaxPages    = 10000
	DefaultMaxInflated = 512 << 20
)

func (l Limits) withDefaults() Limits {
	if l.MaxPages <= 0 {
		l.MaxPages = DefaultMaxPages
	}
	if l.MaxInflated <= 0 {
		l.MaxInflated = DefaultMaxInflated
	}
	return l
}

// ErrTooLarge is the error (reached with errors.Is) of a PDF over its
// Limits: the same file fails again, so it is never retried.
var ErrTooLarge = errors.New("PDF over calq's limits")

// LimitError says which of its Limits a PDF is over: its pages (Pages
// counted, over MaxPages) or what its streams inflate to (more than
// MaxInflated; MaxPages is then 0).
type LimitError struct {
	Pages       int
	MaxPages    int
	MaxInflated int64
}

func (e *LimitError) Error() string {
	if e.MaxPages > 0 {
		return fmt.Sprintf("the PDF has %d pages, over the limit of %d", e.Pages, e.MaxPages)
	}
	return fmt.Sprintf("the PDF's streams inflate to more than the limit of %s", fsio.Size(e.MaxInflated))
}

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *LimitError) Is(target error) bool { return target == ErrTooLarge }

// CheckLimits reads the PDF at path once, front to back, and refuses it
// with a *LimitError when it is over l. A file without %PDF- in its first
// 1024 bytes passes: it is no PDF, and other checks judge it.
//
// Pages are counted as pdfcpu could find them, whatever the page tree's
// /Count says: the larger of the page objects (/Type /Page) and the
// references in /Kids arrays, in the file's own bytes and in its object
// streams. Streams are inflated (Flate, LZW, ASCIIHex, ASCII85 and
// RunLength, in chains) to count what they hold, without keeping it, and
// never past what is left of MaxInflated; image streams, which pdfcpu
// copies as they are, and streams in codecs it does not decode (JPEG,
// JPEG 2000, CCITT, JBIG2) are not inflated, nor are encrypted ones
// counted. Every update of a file counts, so a page written again by an
// update counts twice.
//
// Its cost is one pass over the file and at most MaxInflated bytes
// inflated, in memory bounded by a few hundred KiB whatever the file; ctx
// stops it.
func CheckLimits(ctx context.Context, path string, l Limits) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	head := make([]byte, 1024)
	n, err := f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return err
	}
	if !bytes.Contains(head[:n], []byte("%PDF-")) {
		return nil
	}
	s := &scan{ctx: ctx, f: f, size: fi.Size(), lim: l.withDefaults()}
	s.raw = tokenizer{r: bufio.NewReaderSize(f, 64<<10)}
	if err := s.run(); err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	if pages := max(s.pages.typePage, s.pages.kidsRefs); pages > s.lim.MaxPages {
		return fmt.Errorf("check %s: %w", path, &LimitError{Pages: pages, MaxPages: s.lim.MaxPages})
	}
	return nil
}

// scan is one CheckLimits pass.
type scan struct {
	ctx      context.Context
	f        *os.File
	size     int64
	lim      Limits
	raw      tokenizer // the file's own bytes
	pages    pageCount // in the file and its object streams
	dict     streamDict
	depth    int   // dictionary nesting in the file's own bytes
	inflated int64 // by the streams read so far
	dec      decoders
}

// run lexes the file's own bytes, counting pages and reading each stream
// where its data begins.
func (s *scan) run() error {
	var prev tkind
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := s.ctx.Err(); err != nil {
				return err
			}
		}
		k, b, err := s.raw.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		s.pages.token(k, b)
		if k == tWord && string(b) == "stream" && prev == tDictClose && s.depth == 0 {
			if err := s.stream(); err != nil {
				return err
			}
			prev = tWord
			continue
		}
		s.track(k, b)
		prev = k
	}
}

// track follows the dictionary nesting and the entries of the one at
// the top level, which a stream keyword may follow.
func (s *scan) track(k tkind, b []byte) {
	switch k {
	case tDictOpen:
		s.depth++
		if s.depth == 1 {
			s.dict = streamDict{length: -1}
		}
		if s.depth == 2 {
			s.dict.value() // a dictionary is a value
		}
		return
	case tDictClose:
		if s.depth == 1 {
			s.dict.end()
		}
		s.depth = max(0, s.depth-1)
		return
	}
	if s.depth == 1 {
		s.dict.token(k, b)
	}
}
