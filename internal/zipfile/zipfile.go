// Package zipfile writes the zip archives calq hands to people (a job's
// PDFs, "Download all", split results, mailed zips) the way Info-ZIP's
// zip and Python's zipfile do, so that every unzip reads them right:
// each entry carries its modification time (as an MS-DOS date in local
// time and as a Unix time in an extended-timestamp field), the UTF-8 flag
// when its name is not ASCII, and Unix as its creator with mode 0644.
//
// archive/zip's Writer.Create writes none of that: a zero MS-DOS date
// (1980, shown by some tools as 1979-12-31) and FAT as the creator, for
// which Debian's unzip converts names from the OEM code page and garbles
// "Café & Crème.pdf" into "Caf+� & Cr+�me.pdf".
//
// Entry points: NewWriter, Writer.Add, Writer.AddFile, Writer.Close. A
// Writer is not safe for concurrent use; it costs what archive/zip's
// does (deflate, 32 KiB buffers).
package zipfile

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"
)

// Mode is the Unix mode of every entry: a file anyone may read, as zip
// stores a file of a usual umask.
const Mode os.FileMode = 0o644

// ErrName is wrapped by the error of an entry name that is not a plain
// file name: empty, not UTF-8, absolute, or with a ".." segment or a
// backslash, any of which an unzip could take for a path.
var ErrName = errors.New("not a file name for a zip entry")

// Writer writes a zip archive entry by entry.
type Writer struct{ zw *zip.Writer }

// NewWriter returns a Writer writing a zip archive to w.
func NewWriter(w io.Writer) *Writer { return &Writer{zw: zip.NewWriter(w)} }

// Add adds an entry name, modified at mod, holding what r holds.
func (w *Writer) Add(name string, mod time.Time, r io.Reader) error {
	if err := checkName(name); err != nil {
		return err
	}
	h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: mod.Local()}
	// The MS-DOS date is local time, as zip and Python write it
	// (archive/zip encodes Modified's own zone); the extended timestamp
	// is UTC whatever the zone.
	h.SetMode(Mode)
	if !isASCII(name) {
		h.Flags |= 0x800 // UTF-8, as Python sets it for any non-ASCII name
	}
	e, err := w.zw.CreateHeader(h)
	if err != nil {
		return fmt.Errorf("zip entry %q: %w", name, err)
	}
	if _, err := io.Copy(e, r); err != nil {
		return fmt.Errorf("zip entry %q: %w", name, err)
	}
	return nil
}

// AddFile adds the file at path as entry name, with the file's
// modification time.
func (w *Writer) AddFile(name, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("zip entry %q: %w", name, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("zip entry %q: %w", name, err)
	}
	return w.Add(name, fi.ModTime(), f)
}

// Close writes the archive's central directory; it does not close the
// underlying writer.
func (w *Writer) Close() error { return w.zw.Close() }

// checkName refuses a name an unzip could take for a path.
func checkName(name string) error {
	switch {
	case name == "", !utf8.ValidString(name):
		return fmt.Errorf("%q: %w (empty or not UTF-8)", name, ErrName)
	case strings.HasPrefix(name, "/"), strings.Contains(name, `\`):
		return fmt.Errorf("%q: %w (absolute, or a backslash)", name, ErrName)
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == ".." {
			return fmt.Errorf("%q: %w (a .. segment)", name, ErrName)
		}
	}
	return nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
