package chromium

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// longPage is HTML of about n Letter pages of text.
func longPage(n int) string {
	return "<html><head><title>T</title></head><body>" + strings.Repeat("<p style='height:900px'>para</p>", n) + "</body></html>"
}

// TestPDFOptions prints pages with each kind of PDF option and checks
// the PDF's pages, size and text with poppler.
func TestPDFOptions(t *testing.T) {
	p := shared.get(t)
	dir := t.TempDir()
	short := writePage(t, dir, "short.html", "<html><body><h1>Hello calq</h1></body></html>")
	long := writePage(t, dir, "long.html", longPage(3))
	breaks := writePage(t, dir, "breaks.html", "<html><body>"+strings.Repeat("<p style='page-break-after: always'>part</p>", 4)+"<p>last part</p></body></html>")
	wide := writePage(t, dir, "wide.html", "<html><body><table><tr>"+strings.Repeat("<td style='min-width:200px'>cell</td>", 11)+"<td style='white-space:nowrap'>Column 12</td></tr></table></body></html>")
	with := func(f func(*PDF)) PDF { o := DefaultPDF(); f(&o); return o }
	tests := []struct {
		name          string
		url           string
		o             PDF
		pages         int
		width, height float64 // points
		text          []string
	}{
		{"default letter", short, DefaultPDF(), 1, 612, 792, []string{"Hello calq"}},
		{"a4", short, with(func(o *PDF) { o.PaperWidth, o.PaperHeight = 8.27, 11.7 }), 1, 595, 842, nil},
		{"landscape", short, with(func(o *PDF) { o.Landscape = true }), 1, 792, 612, nil},
		{"long", long, DefaultPDF(), 3, 612, 792, nil},
		{"page ranges", long, with(func(o *PDF) { o.PageRanges = "2-3" }), 2, 612, 792, nil},
		{"header and footer", long, with(func(o *PDF) {
			o.MarginTop, o.MarginBottom = 1, 1
			o.FooterHTML = `<html><body><p style="font-size:12px">page <span class="pageNumber"></span> of <span class="totalPages"></span></p></body></html>`
		}), 4, 612, 792, []string{"page 1 of 4", "page 4 of 4"}},
		{"single page", long, with(func(o *PDF) { o.SinglePage = true }), 1, 612, 0, nil},
		{"single page, page breaks: the first page only", breaks, with(func(o *PDF) { o.SinglePage = true }), 1, 612, 0, []string{"part"}},
		{"single page landscape: as wide as the content", wide, with(func(o *PDF) { o.SinglePage, o.Landscape = true, true }), 1, 0, 0, []string{"Column 12"}},
		{"scale", long, with(func(o *PDF) { o.Scale = 0.5 }), 2, 612, 792, nil},
		{"outline and tags", short, with(func(o *PDF) { o.GenerateDocumentOutline, o.GenerateTaggedPDF = true, true }), 1, 612, 792, []string{"Hello calq"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.pdf")
			if err := p.PDF(t.Context(), Request{URL: tt.url, Dir: dir}, tt.o, out); err != nil {
				t.Fatalf("PDF: %v", err)
			}
			info := readPDFInfo(t, out)
			if info.pages != tt.pages {
				t.Errorf("got %d pages, want %d", info.pages, tt.pages)
			}
			if tt.o.SinglePage && tt.o.Landscape && info.width <= 792 {
				t.Errorf("got a page %g pts wide, want one wider than Letter's 792 for a wide table", info.width)
			}
			if tt.width > 0 && math.Abs(info.width-tt.width) > 1 || tt.height > 0 && math.Abs(info.height-tt.height) > 1 {
				t.Errorf("got page size %g x %g pts, want %g x %g", info.width, info.height, tt.width, tt.height)
			}
			text := pdfText(t, out)
			for _, want := range tt.text {
				if !strings.Contains(text, want) {
					t.Errorf("text %q does not contain %q", text, want)
				}
			}
		})
	}
}
