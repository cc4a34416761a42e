package form

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"calq/convert/pdf"
)

// ErrRead is wrapped by AddFile's errors that come from reading the
// file's bytes (from a download: the client's side), not from storing
// them (the server's).
var ErrRead = errors.New("read the file")

// readError is a failure to read a file's bytes from where they come
// from (the request body, a download), told apart from a failure to
// write them.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }

func (e *readError) Unwrap() error { return e.err }

func (e *readError) Is(target error) bool { return target == ErrRead }

// AddFile stores r as one more file of f, as Read stores an uploaded one:
// under a generated name in dir, within lim's MaxFiles and MaxFile, a PDF
// within lim.PDF, then keeps f's files in merge order. filename is the
// name the file came with (cleaned as BaseName cleans it), field the
// form field it counts as. Errors the client caused are *Error; a
// failure reading r wraps ErrRead and r's error. On error the file is
// not kept. It returns the file as f now holds it.
func (f *Form) AddFile(ctx context.Context, dir string, lim Limits, field, filename string, r io.Reader) (File, error) {
	lim = lim.WithDefaults()
	n := len(f.Files)
	err := f.store(ctx, dir, lim, field, filename, r)
	if err != nil {
		if len(f.Files) > n {
			os.Remove(f.Files[n].Path)
			f.Files = f.Files[:n]
		}
		return File{}, err
	}
	added := f.Files[n]
	sortFiles(f.Files)
	return added, nil
}

// store writes r as f's next file in dir, within lim (already with its
// defaults). The file is recorded before it is written, so that a
// failure leaves it in f.Files for the caller to remove.
func (f *Form) store(ctx context.Context, dir string, lim Limits, field, filename string, r io.Reader) error {
	n := len(f.Files) + 1
	if n > lim.MaxFiles {
		return tooLarge(LimitFiles, "The request has more than %d files.", lim.MaxFiles)
	}
	name := BaseName(filename)
	path := filepath.Join(dir, diskName(n, name))
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("store uploaded file %s: %w", quote(name), err)
	}
	f.Files = append(f.Files, File{Name: name, Path: path, Field: field})
	written, err := io.Copy(out, io.LimitReader(readerOnly{r}, lim.MaxFile+1))
	if cerr := out.Close(); err == nil && cerr != nil {
		return fmt.Errorf("store uploaded file %s: %w", quote(name), cerr)
	}
	var re *readError
	switch {
	case errors.As(err, &re):
		return re
	case err != nil:
		return fmt.Errorf("store uploaded file %s: %w", quote(name), err)
	}
	if written > lim.MaxFile {
		e := tooLarge(LimitFile, "The file %s exceeds the size limit of %s.", quote(name), size(lim.MaxFile))
		e.Name = name
		return e
	}
	f.Files[n-1].Size = written
	return checkPDF(ctx, path, name, lim.PDF)
}

// readerOnly marks r's errors as read errors, and hides any WriterTo
// so that io.Copy's errors from the writer stay the writer's.
type readerOnly struct{ r io.Reader }

func (ro readerOnly) Read(p []byte) (int, error) {
	n, err := ro.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = &readError{err}
	}
	return n, err
}

// checkPDF refuses a PDF over the limits: pdfcpu's work on it could take
// hours, or gigabytes. The scan costs a pass over the file.
func checkPDF(ctx context.Context, path, name string, lim pdf.Limits) error {
	err := pdf.CheckLimits(ctx, path, lim)
	var le *pdf.LimitError
	if errors.As(err, &le) {
		e := tooLarge(LimitPDF, "The file %s is refused: %v.", quote(name), le)
		e.Name, e.Err = name, le
		return e
	}
	return err
}
