package pdf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"calq/internal/debris"
	"calq/internal/fsio"
)

// stage is a private directory next to an output file, named with
// calq's PID so that a later run removes it after a SIGKILL. Every intermediate
// file of an operation lives in it; commit renames the last one onto out
// (same directory, so the rename is atomic) and remove deletes the rest.
type stage struct {
	dir string
	out string
	n   int
}

func newStage(out string) (*stage, error) {
	if out == "" {
		return nil, errors.New("no output path")
	}
	dir, err := os.MkdirTemp(filepath.Dir(out), debris.Pattern("pdf", true))
	if err != nil {
		return nil, err
	}
	return &stage{dir: dir, out: out}, nil
}

// next returns the path of a new, not yet existing intermediate file.
func (s *stage) next(ext string) string {
	s.n++
	return filepath.Join(s.dir, strconv.Itoa(s.n)+ext)
}

// write creates a new intermediate file and fills it with fill.
func (s *stage) write(fill func(w io.Writer) error) (string, error) {
	path := s.next(".pdf")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return "", err
	}
	err = fill(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	return path, nil
}

// transform runs one pdfcpu step from in to a new intermediate file.
func (s *stage) transform(op, in string, f func(rs io.ReadSeeker, w io.Writer) error) (string, error) {
	r, err := os.Open(in)
	if err != nil {
		return "", err
	}
	defer r.Close()
	return s.write(func(w io.Writer) error {
		return protect(op, func() error { return f(r, w) })
	})
}

func (s *stage) commit(ctx context.Context, final string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return fsio.Rename(final, s.out)
}

func (s *stage) remove() { os.RemoveAll(s.dir) }

// produce runs build in a fresh stage for out and renames its result into
// place; on any error nothing is left at out or in the stage.
func produce(ctx context.Context, op, out string, build func(s *stage) (string, error)) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	s, err := newStage(out)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer s.remove()
	final, err := build(s)
	if err == nil {
		err = s.commit(ctx, final)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}
