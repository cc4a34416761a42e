package zipfile

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"calq/internal/tooltest"
	"calq/internal/zipfile/ziptest"
)

// entries are the test archive's: a name Debian's unzip garbled, a CJK
// one, an ASCII one, each with its own time.
var entries = []struct {
	name string
	mod  time.Time
	body string
}{
	{"Café & Crème #1.pdf", time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC), "first"},
	{"報告 2023.pdf", time.Date(2023, 12, 31, 23, 59, 58, 0, time.UTC), "second"},
	{"report.pdf", time.Date(2025, 1, 2, 3, 4, 6, 0, time.UTC), "third"},
}

// archive writes entries into a zip archive.
func archive(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, e := range entries {
		if err := w.Add(e.name, e.mod, strings.NewReader(e.body)); err != nil {
			t.Fatalf("Add(%q) = %v", e.name, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestUnzip reads the archive with Debian's unzip, as a person would:
// the listing shows each entry's date and name, and extracting gives the
// exact UTF-8 names, bodies and times.
func TestUnzip(t *testing.T) {
	files := ziptest.Unzip(t, archive(t))
	if len(files) != len(entries) {
		t.Fatalf("unzip lists %d files, want %d", len(files), len(entries))
	}
	for i, f := range files {
		e := entries[i]
		if f.Name != e.name || !f.Listed.Equal(e.mod.Truncate(time.Minute)) || string(f.Body) != e.body || !f.Modified.Equal(e.mod) {
			t.Errorf("unzip: %q listed at %v, extracted %q modified %v; want %q at %v holding %q",
				f.Name, f.Listed, f.Body, f.Modified.UTC(), e.name, e.mod, e.body)
		}
	}
}

// TestZipInfo: unzip -Z (zipinfo) sees each entry made on Unix with mode
// 0644, as zip's own.
func TestZipInfo(t *testing.T) {
	unzip := tooltest.Require(t, "unzip")
	path := filepath.Join(t.TempDir(), "all.zip")
	if err := os.WriteFile(path, archive(t), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(unzip, "-Z", path).CombinedOutput()
	if err != nil {
		t.Fatalf("unzip -Z: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "-rw-r--r--  2.0 unx"); n != len(entries) {
		t.Errorf("unzip -Z shows %d entries made on Unix with mode 0644, want %d:\n%s", n, len(entries), out)
	}
}

// TestHeaders reads the archive back with archive/zip: the fields
// unzip, Windows and macOS read.
func TestHeaders(t *testing.T) {
	b := archive(t)
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range zr.File {
		e := entries[i]
		utf8Flag := f.Flags&0x800 != 0
		if f.Name != e.name || !f.Modified.Equal(e.mod) || f.Mode() != Mode ||
			f.CreatorVersion>>8 != 3 || utf8Flag != (e.name != "report.pdf") {
			t.Errorf("entry %d: %q modified %v, mode %v, creator %d, UTF-8 flag %v; want %q modified %v, mode %v, creator 3 (Unix), UTF-8 flag for a non-ASCII name",
				i, f.Name, f.Modified, f.Mode(), f.CreatorVersion>>8, utf8Flag, e.name, e.mod, Mode)
		}
		local := e.mod.Local()
		dosDate := uint16((local.Year()-1980)<<9 | int(local.Month())<<5 | local.Day())
		if f.ModifiedDate != dosDate {
			t.Errorf("entry %q: MS-DOS date %#x, want %#x (%s, local time)", f.Name, f.ModifiedDate, dosDate, local.Format(time.DateOnly))
		}
	}
}

func TestBadNames(t *testing.T) {
	tests := []struct{ name, entry string }{
		{"empty", ""},
		{"not UTF-8", "caf\xe9.pdf"},
		{"absolute", "/etc/passwd"},
		{"parent", "../up.pdf"},
		{"inner parent", "a/../../up.pdf"},
		{"backslash", `..\up.pdf`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := NewWriter(new(bytes.Buffer))
			err := w.Add(tt.entry, time.Now(), strings.NewReader("x"))
			if !errors.Is(err, ErrName) || !strings.Contains(err.Error(), "zip") {
				t.Errorf("Add(%q) = %v, want an error wrapping ErrName", tt.entry, err)
			}
		})
	}
}

// TestAddFile: an entry added from a file has the file's time.
func TestAddFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.pdf")
	mod := time.Date(2022, 2, 3, 4, 5, 6, 0, time.UTC)
	if err := os.WriteFile(path, []byte("pdf"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mod, mod); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.AddFile("a.pdf", path); err != nil {
		t.Fatal(err)
	}
	if err := w.AddFile("b.pdf", filepath.Join(t.TempDir(), "missing.pdf")); err == nil || !strings.Contains(err.Error(), `"b.pdf"`) {
		t.Errorf("AddFile(missing) = %v, want an error naming the entry", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != 1 || !zr.File[0].Modified.Equal(mod) {
		t.Fatalf("archive holds %d entries, the first modified %v; want 1 modified %v", len(zr.File), zr.File[0].Modified, mod)
	}
}
