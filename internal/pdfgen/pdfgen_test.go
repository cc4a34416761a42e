package pdfgen_test

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"calq/convert/pdf"
	"calq/internal/pdfgen"
)

// TestPages: pdfcpu reads the pages generated, cross-reference table
// and all.
func TestPages(t *testing.T) {
	for _, n := range []int{1, 3, 1000} {
		path := filepath.Join(t.TempDir(), "p.pdf")
		if err := pdfgen.WriteFile(path, func(w io.Writer) error { return pdfgen.Pages(w, n) }); err != nil {
			t.Fatal(err)
		}
		info, err := pdf.Inspect(path, "")
		if err != nil || info.Pages != n {
			t.Errorf("Pages(%d): pdfcpu reads %d pages, %v", n, info.Pages, err)
		}
	}
}

// TestInflating: the content stream inflates to exactly the size asked
// for, and pdfcpu reads the file.
func TestInflating(t *testing.T) {
	for _, size := range []int64{1, 3<<20 + 5} {
		var b bytes.Buffer
		if err := pdfgen.Inflating(&b, size); err != nil {
			t.Fatal(err)
		}
		data := b.Bytes()
		start := bytes.Index(data, []byte("stream\n")) + len("stream\n")
		end := bytes.Index(data, []byte("\nendstream"))
		z, err := zlib.NewReader(bytes.NewReader(data[start:end]))
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, z)
		if err != nil || n != size {
			t.Errorf("Inflating(%d): inflates to %d bytes, %v", size, n, err)
		}
		path := filepath.Join(t.TempDir(), "i.pdf")
		os.WriteFile(path, data, 0o600)
		if info, err := pdf.Inspect(path, ""); err != nil || info.Pages != 1 {
			t.Errorf("Inflating(%d): pdfcpu reads %d pages, %v", size, info.Pages, err)
		}
	}
}

func TestBadArguments(t *testing.T) {
	if err := pdfgen.Pages(io.Discard, 0); err == nil {
		t.Error("Pages(0): no error")
	}
	if err := pdfgen.Inflating(io.Discard, 0); err == nil {
		t.Error("Inflating(0): no error")
	}
	path := filepath.Join(t.TempDir(), "p.pdf")
	os.WriteFile(path, nil, 0o600)
	if err := pdfgen.WriteFile(path, func(w io.Writer) error { return pdfgen.Pages(w, 1) }); err == nil {
		t.Error("WriteFile over an existing file: no error")
	}
}

// TestObjects: pdfcpu reads the objects given, found by the table.
func TestObjects(t *testing.T) {
	content := "BT /F1 12 Tf 72 720 Td (Hi) Tj ET"
	var b bytes.Buffer
	err := pdfgen.Objects(&b, "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "o.pdf")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	info, err := pdf.Inspect(path, "")
	if err != nil || info.Pages != 1 {
		t.Errorf("pdfcpu reads %d pages, %v; want 1", info.Pages, err)
	}
	if !bytes.Contains(b.Bytes(), []byte("xref\n0 5\n")) {
		t.Errorf("got %q, want a table of 5 entries", b.Bytes())
	}
}

func ExamplePages() {
	var b bytes.Buffer
	pdfgen.Pages(&b, 100000)
	fmt.Println(b.Len()>>20, "MiB")
	// Output: 11 MiB
}
