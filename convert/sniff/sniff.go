package sniff

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Kind says which converter handles a file.
type Kind int

const (
	// Unknown is returned with every error.
	Unknown Kind = iota
	// Office documents, spreadsheets, presentations, text, CSV and HTML go
	// through LibreOffice.
	Office
	// Image files become one PDF page per image (per TIFF page).
	Image
	// PDF files are passed through, not re-rendered.
	PDF
)

func (k Kind) String() string {
	switch k {
	case Office:
		return "office"
	case Image:
		return "image"
	case PDF:
		return "pdf"
	}
	return "unknown"
}

// The sentinel errors callers branch on with errors.Is. Detect wraps them in
// an *Error whose Reason says more.
var (
	ErrEmpty       = errors.New("empty file")
	ErrMismatch    = errors.New("content does not match the file extension")
	ErrPassword    = errors.New("password-protected")
	ErrUnsupported = errors.New("unsupported file type")
)

// Error is the error Detect returns. Error() is "<path>: <reason>"; Unwrap
// gives one of the sentinels above, or the I/O error if the file could not be
// read.
type Error struct {
	Path   string
	Reason string
	Err    error
}

func (e *Error) Error() string { return e.Path + ": " + e.Reason }
func (e *Error) Unwrap() error { return e.Err }

// headSize is how much of the start of a file the signature checks look at.
const headSize = 8 << 10

// Detect returns the Kind of the file at path, or an *Error if the file is
// empty, has an unsupported extension, does not look like what its extension
// says, or is password-protected. The extension is matched case-insensitively.
func Detect(path string) (Kind, error) {
	fail := func(reason string, err error) (Kind, error) {
		return Unknown, &Error{Path: path, Reason: reason, Err: err}
	}
	ext := strings.ToLower(filepath.Ext(path))
	f, ok := formats[ext]
	if !ok {
		if ext == "" {
			return fail("unsupported file type (no extension)", ErrUnsupported)
		}
		return fail("unsupported extension "+ext, ErrUnsupported)
	}
	// Stat before Open: opening a FIFO would block.
	fi, err := os.Stat(path)
	if err != nil {
		return fail(readReason(err), err)
	}
	if !fi.Mode().IsRegular() {
		return fail("not a regular file", ErrUnsupported)
	}
	file, err := os.Open(path)
	if err != nil {
		return fail(readReason(err), err)
	}
	defer file.Close()
	if err := detect(f, file, fi.Size()); err != nil {
		var de *detectError
		if errors.As(err, &de) {
			return fail(de.reason, de.sentinel)
		}
		return fail(readReason(err), err)
	}
	return f.kind, nil
}

func readReason(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return "cannot read file: " + err.Error()
}

// Supported returns the supported extensions, lower case with a leading dot,
// sorted.
func Supported() []string {
	out := make([]string, 0, len(formats))
	for ext := range formats {
		out = append(out, ext)
	}
	slices.Sort(out)
	return out
}

// TellsPassword says whether Detect finds out that a file named like path
// is password-protected (ErrPassword), so that a file it accepts is not:
// true for calq's first formats (those that cannot be protected
// included), false for the other formats LibreOffice imports, and for
// extensions calq does not take.
func TellsPassword(path string) bool {
	f, ok := formats[strings.ToLower(filepath.Ext(path))]
	return ok && !f.other
}

// detectError carries a reason and sentinel out of the checks; Detect turns it
// into an *Error with the path.
type detectError struct {
	reason   string
	sentinel error
}

func (e *detectError) Error() string { return e.reason }

func mismatch(format string, args ...any) error {
	return &detectError{reason: fmt.Sprintf(format, args...), sentinel: ErrMismatch}
}

var (
	errOfficePassword = &detectError{reason: "password-protected Office document", sentinel: ErrPassword}
	errPDFPassword    = &detectError{reason: "password-protected PDF", sentinel: ErrPassword}
	errEmpty          = &detectError{reason: "empty file", sentinel: ErrEmpty}
)

// detect checks the content of r (size bytes) against format f.
func detect(f format, r io.ReaderAt, size int64) error {
	if size == 0 {
		return errEmpty
	}
	head := make([]byte, min(size, headSize))
	n, err := r.ReadAt(head, 0)
	if err != nil && !(err == io.EOF && n == len(head)) {
		return err
	}
	return f.check(f, r, size, head)
}
