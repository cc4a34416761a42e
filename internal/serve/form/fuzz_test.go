package form

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead feeds Read random bodies under a fixed boundary: it must not
// panic, must answer with an *Error or a form, and must leave nothing but
// the form's own files, all inside dir.
func FuzzRead(f *testing.F) {
	b, _ := body(f, part{name: "files", file: "a.docx", body: "doc"}, part{name: "quality", body: "90"})
	f.Add(b.Bytes())
	f.Add([]byte("--X\r\nContent-Disposition: form-data; name=\"f\"; filename=\"../../x\"\r\n\r\nabc\r\n--X--\r\n"))
	f.Add([]byte("--X\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--X\r\n\r\n--X--"))
	f.Add([]byte("--X\r\nContent-Disposition: form-data; filename*=UTF-8''%2E%2E%2Fy\r\n\r\n\r\n--X--\r\n"))
	parent := f.TempDir()
	dir := filepath.Join(parent, "req")
	if err := os.Mkdir(dir, 0o700); err != nil {
		f.Fatal(err)
	}
	lim := Limits{MaxBody: 8 << 10, MaxFile: 1 << 10, MaxFiles: 4, MaxFields: 8, MaxFieldBytes: 256}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Bodies that hold the other boundary spelling too.
		data = bytes.ReplaceAll(data, []byte("--x"), []byte("--X"))
		r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(data))
		r.Header.Set("Content-Type", "multipart/form-data; boundary=X")
		form, err := Read(r, dir, lim)
		var fe *Error
		if err != nil && !errors.As(err, &fe) {
			t.Fatalf("error %v (%T), want *Error", err, err)
		}
		var want []string
		if form != nil {
			for _, file := range form.Files {
				if filepath.Dir(file.Path) != dir {
					t.Fatalf("file %s outside %s", file.Path, dir)
				}
				if st, err := os.Stat(file.Path); err != nil || st.Size() != file.Size || file.Size > lim.MaxFile {
					t.Fatalf("file %s: %v, want %d bytes within the limit", file.Path, err, file.Size)
				}
				if file.Name == "" {
					t.Fatal("a file with an empty name")
				}
				want = append(want, file.Path)
			}
			_ = checkFields(form)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != len(want) {
			t.Fatalf("dir holds %d entries, want the form's %d", len(entries), len(want))
		}
		if form != nil {
			if err := form.Remove(); err != nil {
				t.Fatal(err)
			}
		}
		if top, _ := os.ReadDir(parent); len(top) != 1 {
			t.Fatalf("parent holds %d entries, want only req", len(top))
		}
	})
}

// checkFields runs the field readers over a fuzzed form; any error
// must be a 400 *Error.
func checkFields(f *Form) error {
	_, err := LibreOffice(f)
	if err != nil && err.(*Error).Status != http.StatusBadRequest {
		panic(err)
	}
	return err
}
