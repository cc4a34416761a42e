package convert

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"calq/convert/pdf"
	"calq/internal/tooltest"
)

// TestRunPDFAWithChanges: --pdfa with the pages' changes (a watermark, a
// rotation) and, from PDF/A-2 on, metadata gives a file that is the
// PDF/A it claims, as calq serve's routes do (pdf.AroundPDFA): the
// changes first, LibreOffice's PDF/A export after them, then the
// metadata with the XMP repeating it. Checked: the claim, PDF 1.4
// without object streams for PDF/A-1, every font embedded (pdfcpu's
// watermark font is not, until LibreOffice's export embeds it), the
// watermark's text kept, qpdf's check, and the title in both the
// information dictionary and the XMP.
func TestRunPDFAWithChanges(t *testing.T) {
	for _, tool := range []string{"soffice", "pdffonts", "qpdf", "pdfinfo"} {
		tooltest.Require(t, tool)
	}
	in := copyFiles(t, "simple.odt", "pages_3.pdf")
	tests := []struct {
		name  string
		pdfa  int
		post  pdf.Post
		mark  string // a watermark's text, "" for none
		title string
	}{
		{"PDF/A-1b, a rotation and optimize", 1, pdf.Post{Rotate: &pdf.Rotation{Angle: 90}, Optimize: true}, "", ""},
		{"PDF/A-2b, a watermark and a title", 2, pdf.Post{Watermark: &pdf.Watermark{Text: "DRAFTMARK"},
			Metadata: &pdf.Metadata{Title: "Quarterly report"}}, "DRAFTMARK", "Quarterly report"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			sum, got, err := collect(t, Options{Inputs: []string{in}, Out: out, PDFA: tt.pdfa, Post: tt.post})
			if err != nil || sum.Converted != 2 {
				t.Fatalf("got %+v, %v (%+v), want 2 converted", sum, err, got)
			}
			for _, name := range []string{"simple.pdf", "pages_3.pdf"} {
				p := filepath.Join(out, name)
				c, err := pdf.PDFA(context.Background(), p)
				if err != nil || c.Part != tt.pdfa {
					t.Errorf("%s: claims PDF/A part %d (%v), want %d", name, c.Part, err, tt.pdfa)
				}
				if b := readHead(t, p); tt.pdfa == 1 && (!strings.HasPrefix(b, "%PDF-1.4") || strings.Contains(b, "/ObjStm")) {
					t.Errorf("%s: a PDF/A-1 that is %.8q or has object streams", name, b)
				}
				if fonts := runTool(t, "pdffonts", p); strings.Contains(fonts, " no  ") {
					t.Errorf("%s: a font is not embedded:\n%s", name, fonts)
				}
				// LibreOffice's import of the PDF puts the watermark's
				// letters apart; the document's own text stays whole.
				text, err := pdf.Text(p, "")
				if flat := strings.Join(strings.Fields(text), ""); err != nil || !strings.Contains(flat, tt.mark) ||
					!strings.Contains(flat, map[string]string{"simple.pdf": "Thisisatestdocument", "pages_3.pdf": "Page3"}[name]) {
					t.Errorf("%s: text %q (%v), want the document's and the watermark %q in it", name, text, err, tt.mark)
				}
				runTool(t, "qpdf", "--check", p)
				if tt.title != "" {
					if info := runTool(t, "pdfinfo", p); !strings.Contains(info, tt.title) {
						t.Errorf("%s: pdfinfo:\n%s\nwant the title", name, info)
					}
					if meta := runTool(t, "pdfinfo", "-meta", p); strings.Count(meta, tt.title) != 1 {
						t.Errorf("%s: the XMP holds the title %d times, want once:\n%s", name, strings.Count(meta, tt.title), meta)
					}
				}
			}
		})
	}
}

// runTool runs a tool and returns its output, failing the test on an error.
func runTool(t *testing.T, name string, args ...string) string {
	t.Helper()
	b, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, b)
	}
	return string(b)
}

// readHead is the file's text, for its header and objects' names.
func readHead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
