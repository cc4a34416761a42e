package convert

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"calq/convert/pdf"
	"calq/convert/pdfpool"
	"calq/internal/pdfgen"
)

// TestPDFBounds (issue 33): a PDF of 100,000 pages in 12 MB, or with a
// stream that inflates to 1 GiB in 1 MB, is refused by the limits on
// inputs; let through, its work stops at the file's timeout, or at the
// helpers' memory limit, failing the file for good with the reason and
// leaving nothing behind. Before, pdfcpu ran in calq's own process: the
// first took minutes whatever --timeout (hours with a rotation), the
// second took calq to 2 GiB.
func TestPDFBounds(t *testing.T) {
	gen := t.TempDir()
	big := filepath.Join(gen, "big.pdf")
	bomb := filepath.Join(gen, "bomb.pdf")
	for path, f := range map[string]func(io.Writer) error{
		big:  func(w io.Writer) error { return pdfgen.Pages(w, 100000) },
		bomb: func(w io.Writer) error { return pdfgen.Inflating(w, 1<<30) },
	} {
		if err := pdfgen.WriteFile(path, f); err != nil {
			t.Fatal(err)
		}
	}
	rotate := pdf.Post{Rotate: &pdf.Rotation{Angle: 90}}
	watermark := pdf.Post{Watermark: &pdf.Watermark{Text: "calq"}}
	tests := []struct {
		name   string
		in     string
		o      Options
		state  string
		reason string
	}{
		{"100,000 pages, default limits", big, Options{}, StateFailed, "big.pdf: the PDF has 100000 pages, over the limit of 10000"},
		{"100,000 pages let through, 2s", big, Options{Timeout: 2 * time.Second, Post: rotate, PDFLimits: pdf.Limits{MaxPages: 100000}},
			StateTimedOut, "took longer than the limit of 2 seconds"},
		{"1 GiB stream, default limits", bomb, Options{}, StateFailed, "bomb.pdf: the PDF's streams inflate to more than the limit of 512 MiB"},
		{"1 GiB stream let through, watermarked", bomb, Options{Post: watermark, PDFLimits: pdf.Limits{MaxInflated: 2 << 30},
			PDFWork: pdfpool.Options{MemoryLimit: 256 << 20}}, StateFailed, "needs more than 256 MiB of memory to process"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			tt.o.Inputs, tt.o.Out = []string{tt.in}, out
			_, got, _ := collect(t, tt.o)
			f := got[filepath.Base(tt.in)]
			if f.State != tt.state || !f.Permanent || !strings.Contains(f.Reason, tt.reason) {
				t.Errorf("got %s %q (permanent %v), want %s %q", f.State, f.Reason, f.Permanent, tt.state, tt.reason)
			}
			if strings.Contains(f.Reason, os.TempDir()) {
				t.Errorf("the reason names calq's private copy: %q", f.Reason)
			}
			if entries, _ := os.ReadDir(out); len(entries) > 0 {
				t.Errorf("left behind in the output directory: %v", entries)
			}
		})
	}
}
