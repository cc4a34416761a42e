package webbench

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"

	"calq/internal/tooltest"
)

func TestNaive(t *testing.T) {
	binary := tooltest.Require(t, "chromium")
	work := t.TempDir()
	docs, err := Generate(work, 2)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Naive(context.Background(), binary, work, docs.HTML)
	if err != nil {
		t.Fatal(err)
	}
	if d <= 0 {
		t.Errorf("got %v, want a positive time", d)
	}
	for _, doc := range docs.HTML {
		got, err := api.PageCountFile(filepath.Join(work, "naive", doc.Name+".pdf"))
		if err != nil || got != doc.Pages {
			t.Errorf("%s: got %d pages (%v), want %d", doc.Name, got, err, doc.Pages)
		}
	}
}

func TestNaiveFails(t *testing.T) {
	work := t.TempDir()
	docs, err := Generate(work, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Naive(context.Background(), filepath.Join(work, "no-chromium"), work, docs.HTML)
	if err == nil || !strings.Contains(err.Error(), "naive: page-01: ") {
		t.Errorf("got %v, want an error naming the document", err)
	}
}
