// Package pdftest checks what a PDF made by a test says: [CheckText]
// looks for words in its text, as calq's own extraction (pdf.Text) reads
// it, with spaces and line breaks dropped so that layout does not matter.
// It is safe for concurrent use.
package pdftest

import (
	"strings"
	"testing"

	"calq/convert/pdf"
)

// CheckText fails t unless the text of the PDF at path holds each of want
// and none of not, compared without white space.
func CheckText(t testing.TB, path string, want, not []string) {
	t.Helper()
	text, err := pdf.Text(path, "")
	if err != nil {
		t.Fatalf("text of %s: %v", path, err)
	}
	text = strings.Join(strings.Fields(text), "")
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("got text %q, want %q in it", text, w)
		}
	}
	for _, w := range not {
		if strings.Contains(text, w) {
			t.Errorf("got text %q, want no %q in it", text, w)
		}
	}
}
