package pdf

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestInspect(t *testing.T) {
	tests := []struct {
		name, file, password string
		pages                int
		encrypted            bool
		title                string
		err                  error
	}{
		{"plain", "testPDF.pdf", "", 1, false, "Apache Tika - Apache Tika", nil},
		{"three pages", "pages_3.pdf", "", 3, false, "", nil},
		{"broken xref", "broken-xref.pdf", "", 1, false, "Apache Tika - Apache Tika", nil},
		{"encrypted without password", "testPassword4Spaces.pdf", "", 0, false, "", ErrEncrypted},
		{"encrypted wrong password", "testPassword4Spaces.pdf", "   ", 0, false, "", ErrEncrypted},
		{"encrypted right password", "testPassword4Spaces.pdf", "    ", 1, true, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, err := Inspect(testFile(t, tt.file), tt.password)
			if !errors.Is(err, tt.err) {
				t.Fatalf("Inspect error = %v, want %v", err, tt.err)
			}
			if info.Pages != tt.pages || info.Encrypted != tt.encrypted || info.Title != tt.title {
				t.Errorf("Inspect = %+v, want %d pages, encrypted %v, title %q", info, tt.pages, tt.encrypted, tt.title)
			}
		})
	}
}

func TestInspectMissingFile(t *testing.T) {
	_, err := Inspect(filepath.Join(t.TempDir(), "nope.pdf"), "")
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Inspect of a missing file: %v, want os.ErrNotExist", err)
	}
}

func TestPassThrough(t *testing.T) {
	tests := []struct {
		file  string
		pages int
		text  string
	}{
		{"testPDF.pdf", 1, "Apache Tika"},
		{"pages_3.pdf", 3, "Page 3"},
		{"broken-xref.pdf", 1, "Content Analysis Toolkit"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.pdf")
			if err := PassThrough(context.Background(), testFile(t, tt.file), out); err != nil {
				t.Fatalf("PassThrough: %v", err)
			}
			if got := inspect(t, out, "").Pages; got != tt.pages {
				t.Errorf("pages = %d, want %d", got, tt.pages)
			}
			text, err := Text(out, "")
			if err != nil || !strings.Contains(text, tt.text) {
				t.Errorf("Text = %.100q, %v; want it to contain %q", text, err, tt.text)
			}
			onlyFiles(t, dir, "out.pdf")
		})
	}
}

func TestPassThroughEncrypted(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.pdf")
	err := PassThrough(context.Background(), testFile(t, "testPassword4Spaces.pdf"), out)
	if !errors.Is(err, ErrEncrypted) {
		t.Fatalf("PassThrough error = %v, want ErrEncrypted", err)
	}
	if !strings.Contains(err.Error(), "password-protected") {
		t.Errorf("error %q does not say password-protected", err)
	}
	onlyFiles(t, dir)
}

func TestPassThroughCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	err := PassThrough(ctx, testFile(t, "testPDF.pdf"), filepath.Join(dir, "out.pdf"))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("PassThrough error = %v, want context.Canceled", err)
	}
	onlyFiles(t, dir)
}

// malformed returns broken PDFs: each must give an error (or, if pdfcpu
// repairs it, a readable PDF), never a panic.
func malformed(t testing.TB) map[string][]byte {
	good, err := os.ReadFile(testFile(t, "pages_3.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{
		"empty":           {},
		"header only":     []byte("%PDF-1.7\n"),
		"eof only":        []byte("%PDF-1.4\n%%EOF\n"),
		"random":          []byte(strings.Repeat("\x8f\x01zq\xff", 400)),
		"truncated":       good[:len(good)/2],
		"no header":       good[20:],
		"bad startxref":   []byte("%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\nstartxref\n999999\n%%EOF\n"),
		"self parent":     []byte("%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[2 0 R]/Count 1>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"),
		"huge count":      []byte("%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 999999999>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"),
		"stream no end":   []byte("%PDF-1.4\n1 0 obj<</Length 99999>>stream\nabc"),
		"deep nesting":    []byte("%PDF-1.4\n1 0 obj" + strings.Repeat("[", 5000) + "\nendobj\n%%EOF\n"),
		"xref garbage":    []byte("%PDF-1.4\nxref\n0 9999999\n0000000000 65535 f \ntrailer<</Size 3/Root 1 0 R>>\nstartxref\n9\n%%EOF\n"),
		"wrong root type": []byte("%PDF-1.4\n1 0 obj 42 endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"),
	}
}

func TestPassThroughMalformed(t *testing.T) {
	for name, data := range malformed(t) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "in.pdf")
			if err := os.WriteFile(in, data, 0o600); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out.pdf")
			err := PassThrough(context.Background(), in, out)
			if err != nil {
				mustNotExist(t, out)
				onlyFiles(t, dir, "in.pdf")
				return
			}
			if info := inspect(t, out, ""); info.Pages < 1 {
				t.Errorf("repaired output has %d pages", info.Pages)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	tests := []struct {
		name  string
		ins   []string
		pages int
		order []string // texts that must appear in this order
	}{
		{"two", []string{"pages_3.pdf", "testPDF.pdf"}, 4, []string{"Page 1", "Page 3", "Apache Tika"}},
		{"reversed", []string{"testPDF.pdf", "pages_3.pdf"}, 4, []string{"Apache Tika", "Page 1", "Page 3"}},
		{"repeated", []string{"pages_3.pdf", "broken-xref.pdf", "pages_3.pdf"}, 7, []string{"Page 3", "Apache Tika", "Page 1"}},
		{"single", []string{"pages_3.pdf"}, 3, []string{"Page 1", "Page 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ins := make([]string, len(tt.ins))
			for i, n := range tt.ins {
				ins[i] = testFile(t, n)
			}
			dir := t.TempDir()
			out := filepath.Join(dir, "merged.pdf")
			if err := Merge(context.Background(), ins, out); err != nil {
				t.Fatalf("Merge: %v", err)
			}
			if got := inspect(t, out, "").Pages; got != tt.pages {
				t.Errorf("pages = %d, want %d", got, tt.pages)
			}
			text, err := Text(out, "")
			if err != nil {
				t.Fatal(err)
			}
			rest := text
			for _, w := range tt.order {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("%q missing or out of order in %.200q", w, text)
				}
				rest = rest[i+len(w):]
			}
			onlyFiles(t, dir, "merged.pdf")
		})
	}
}

func TestMergeFailure(t *testing.T) {
	tests := []struct {
		name string
		ins  []string
		err  error
	}{
		{"encrypted", []string{testFile(t, "pages_3.pdf"), testFile(t, "testPassword4Spaces.pdf")}, ErrEncrypted},
		{"missing", []string{testFile(t, "pages_3.pdf"), "/nonexistent/x.pdf"}, nil},
		{"none", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "merged.pdf")
			err := Merge(context.Background(), tt.ins, out)
			if err == nil || (tt.err != nil && !errors.Is(err, tt.err)) {
				t.Fatalf("Merge error = %v, want %v", err, tt.err)
			}
			onlyFiles(t, dir)
		})
	}
}

// TestConcurrent runs the operations from several goroutines at once, for
// the race detector: pdfcpu keeps global state.
func TestConcurrent(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 12)
	for i := range 4 {
		wg.Add(3)
		go func() {
			defer wg.Done()
			errs <- FromImages(context.Background(), []string{testFile(t, "testPNG.png")}, filepath.Join(dir, "img"+string(rune('a'+i))+".pdf"))
		}()
		go func() {
			defer wg.Done()
			errs <- Apply(context.Background(), testFile(t, "pages_3.pdf"), filepath.Join(dir, "wm"+string(rune('a'+i))+".pdf"),
				Post{Watermark: &Watermark{Text: "DRAFT"}, Encrypt: &Encryption{OwnerPassword: "o"}})
		}()
		go func() {
			defer wg.Done()
			_, err := Text(testFile(t, "testPDF.pdf"), "")
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func FuzzPassThrough(f *testing.F) {
	for _, name := range []string{"testPDF.pdf", "pages_3.pdf", "broken-xref.pdf"} {
		data, err := os.ReadFile(testFile(f, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, data := range malformed(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		in := filepath.Join(dir, "in.pdf")
		if err := os.WriteFile(in, data, 0o600); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out.pdf")
		if err := PassThrough(context.Background(), in, out); err != nil {
			mustNotExist(t, out)
			return
		}
		if _, err := Inspect(out, ""); err != nil {
			t.Errorf("PassThrough succeeded but its output does not read back: %v", err)
		}
		if _, err := Text(out, ""); err != nil && !errors.Is(err, ErrEncrypted) {
			t.Logf("Text: %v", err) // text of odd content may fail; it must not panic
		}
	})
}

// TestProtect checks that a panic inside a pdfcpu call becomes an error.
func TestProtect(t *testing.T) {
	tests := []struct {
		name string
		f    func() error
		want string
	}{
		{"panic value", func() error { panic("boom") }, "boom"},
		{"runtime error", func() error { var m map[string]int; m["x"]++; return nil }, "assignment to entry in nil map"},
		{"nil deref", func() error { var p *Info; return errors.New(p.Title) }, "nil pointer"},
		{"plain error", func() error { return errors.New("plain") }, "plain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := protect("op", tt.f)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("protect = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
