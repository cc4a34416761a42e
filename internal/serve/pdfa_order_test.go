package serve

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"calq/convert/pdf"
	"calq/internal/tooltest"
)

// TestPDFAWithOtherSteps: merge, split and libreoffice/convert take pdfa
// and pdfua with their other steps, and what they return is what it
// claims: a PDF/A-1 as LibreOffice wrote it (PDF 1.4, no object
// streams), a PDF/A-3 whose XMP repeats its information dictionary and
// whose attachments are associated files; what cannot be made so is
// refused with a 400 naming the fields.
func TestPDFAWithOtherSteps(t *testing.T) {
	tooltest.Require(t, "soffice")
	qpdf := tooltest.Require(t, "qpdf")
	pdfinfo := tooltest.Require(t, "pdfinfo")
	ts := newTestServer(t, nil)
	three, err := os.ReadFile(filepath.Join(repoTestdata, "convert", "pages_3.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	const invoice = `<?xml version="1.0"?><rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"/>`
	files := []part{{"files", "a.pdf", string(three)}, {"files", "b.pdf", string(three)}}
	all := []part{
		{"metadata", "", `{"Author":"Ada","Title":"Sample","Subject":"Tests","Keywords":["one","two"],"Creator":"calq tests","Producer":"calq tests"}`},
		{"watermarkSource", "", "text"}, {"watermarkExpression", "", "CONFIDENTIAL"},
		{"stampSource", "", "text"}, {"stampExpression", "", "DRAFT"},
		{"rotateAngle", "", "90"}, {"flatten", "", "true"},
		{"embeds", "one.xml", "<one/>"}, {"embeds", "two.txt", "two"},
	}
	tests := []struct {
		name, route string
		parts       []part
		status      int
		want        string // in the refusal
		part        int    // the PDF/A part of each PDF returned
		ua          bool
		pages       int // of the first PDF
		attached    []string
		facturX     string // the Factur-X level declared
	}{
		{name: "merge PDF/A-1b and PDF/UA-1", route: "pdfengines/merge",
			parts: append(slices.Clone(files), part{"pdfa", "", "PDF/A-1b"}, part{"pdfua", "", "true"}), status: 200, part: 1, ua: true, pages: 6},
		{name: "split PDF/A-1b and PDF/UA-1", route: "pdfengines/split",
			parts: []part{{"files", "a.pdf", string(three)}, {"splitMode", "", "intervals"}, {"splitSpan", "", "2"},
				{"pdfa", "", "PDF/A-1b"}, {"pdfua", "", "true"}}, status: 200, part: 1, ua: true, pages: 2},
		{name: "merge PDF/A-3b with every step", route: "pdfengines/merge",
			parts: append(append(slices.Clone(files), part{"pdfa", "", "PDF/A-3b"}, part{"pdfua", "", "true"},
				part{"bookmarks", "", `[{"title":"Merged","page":1}]`}), all...),
			status: 200, part: 3, ua: true, pages: 6, attached: []string{"one.xml", "two.txt"}},
		{name: "split PDF/A-3b with every step", route: "pdfengines/split",
			parts: append([]part{{"files", "a.pdf", string(three)}, {"splitMode", "", "pages"}, {"splitSpan", "", "1-2"},
				{"splitUnify", "", "true"}, {"pdfa", "", "PDF/A-3b"}}, all...),
			status: 200, part: 3, pages: 2, attached: []string{"one.xml", "two.txt"}},
		{name: "libreoffice/convert PDF/A-3b with every step", route: "libreoffice/convert",
			parts:  append([]part{{"files", "a.txt", "A page of text."}, {"pdfa", "", "PDF/A-3b"}, {"pdfua", "", "true"}}, all...),
			status: 200, part: 3, ua: true, pages: 1, attached: []string{"one.xml", "two.txt"}},
		{name: "libreoffice/convert split and PDF/A-1b", route: "libreoffice/convert",
			parts: []part{{"files", "a.pdf", string(three)}, {"splitMode", "", "intervals"}, {"splitSpan", "", "2"},
				{"pdfa", "", "PDF/A-1b"}}, status: 200, part: 1, pages: 2},
		{name: "libreoffice/convert Factur-X", route: "libreoffice/convert",
			parts:  []part{{"files", "a.txt", "An invoice."}, {"facturxXml", "inv.xml", invoice}, {"facturxConformanceLevel", "", "EN 16931"}},
			status: 200, part: 3, pages: 1, attached: []string{"factur-x.xml"}, facturX: "EN 16931"},
		{name: "merge Factur-X with metadata", route: "pdfengines/merge",
			parts: append(slices.Clone(files), part{"facturxXml", "inv.xml", invoice}, part{"facturxConformanceLevel", "", "BASIC"},
				part{"metadata", "", `{"Title":"Invoice"}`}),
			status: 200, part: 3, pages: 6, attached: []string{"factur-x.xml"}, facturX: "BASIC"},
		{name: "PDF/A-1b with metadata", route: "pdfengines/merge",
			parts:  append(slices.Clone(files), part{"pdfa", "", "PDF/A-1b"}, part{"metadata", "", `{"Title":"x"}`}),
			status: 400, want: "form field 'pdfa' PDF/A-1b cannot go with metadata or bookmarks"},
		{name: "PDF/A-1b with a watermark", route: "libreoffice/convert",
			parts: []part{{"files", "a.txt", "text"}, {"pdfa", "", "PDF/A-1b"},
				{"watermarkSource", "", "text"}, {"watermarkExpression", "", "DRAFT"}},
			status: 400, want: "form field 'pdfa' PDF/A-1b cannot go with watermarks or stamps"},
		{name: "PDF/A-2b with embeds", route: "libreoffice/convert",
			parts:  []part{{"files", "a.txt", "text"}, {"pdfa", "", "PDF/A-2b"}, {"embeds", "one.xml", "<one/>"}},
			status: 400, want: "PDF format 'PDF/A-2b' does not support embedded files"},
		{name: "PDF/A-3b with an owner password", route: "pdfengines/split",
			parts: []part{{"files", "a.pdf", string(three)}, {"splitMode", "", "intervals"}, {"splitSpan", "", "1"},
				{"pdfa", "", "PDF/A-3b"}, {"ownerPassword", "", "secret"}},
			status: 400, want: "PDF/A format is incompatible with encryption"},
		{name: "Factur-X with PDF/A-2b", route: "pdfengines/merge",
			parts: append(slices.Clone(files), part{"facturxXml", "inv.xml", invoice}, part{"facturxConformanceLevel", "", "BASIC"},
				part{"pdfa", "", "PDF/A-2b"}),
			status: 400, want: "Factur-X requires a PDF/A-3 variant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := postParts(t, ts.URL+"/forms/"+tt.route, tt.parts)
			b := body(t, resp)
			if resp.StatusCode != tt.status {
				t.Fatalf("got status %d %q, want %d", resp.StatusCode, b, tt.status)
			}
			if tt.status != http.StatusOK {
				if !strings.Contains(string(b), tt.want) {
					t.Errorf("got %q, want it to say %q", b, tt.want)
				}
				return
			}
			pdfs := [][]byte{b}
			if !bytes.HasPrefix(b, []byte("%PDF-")) {
				names, entries := zipEntries(t, b)
				pdfs = nil
				for _, n := range names {
					pdfs = append(pdfs, entries[n])
				}
			}
			for i, p := range pdfs {
				assertPDFA(t, qpdf, pdfinfo, p, tt.part, tt.ua)
				out := pdfFile(t, p)
				if i == 0 {
					if n := pageCount(t, pdfinfo, out); n != tt.pages {
						t.Errorf("got %d pages, want %d", n, tt.pages)
					}
				}
				if names := attachmentNames(t, out); !slices.Equal(names, tt.attached) {
					t.Errorf("got attachments %q, want %q", names, tt.attached)
				}
				if tt.facturX != "" && !bytes.Contains(p, []byte("<fx:ConformanceLevel>"+tt.facturX+"</fx:ConformanceLevel>")) {
					t.Errorf("no Factur-X level %s declared", tt.facturX)
				}
			}
		})
	}
}

// assertPDFA checks that the PDF b claims PDF/A-part (and PDF/UA-1 with
// ua), that qpdf finds it sound, that a PDF/A-1 is PDF 1.4 without
// object streams, that its XMP repeats its information dictionary, and
// that each attachment is an associated file with a MIME type.
func assertPDFA(t *testing.T, qpdf, pdfinfo string, b []byte, part int, ua bool) {
	t.Helper()
	out := pdfFile(t, b)
	c, err := pdf.PDFA(context.Background(), out)
	if err != nil || c.Part != part || (c.UA == 1) != ua {
		t.Errorf("got PDF/A identification %+v (%v), want part %d, PDF/UA-1 %v", c, err, part, ua)
	}
	if res, err := exec.Command(qpdf, "--check", out).CombinedOutput(); err != nil {
		t.Errorf("qpdf --check: %v\n%s", err, res)
	}
	if part == 1 && (b[7] > '4' || bytes.Contains(b, []byte("/ObjStm"))) {
		t.Errorf("a PDF/A-1 that is PDF %q or has object streams, which PDF/A-1 forbids", b[:8])
	}
	xmp, err := exec.Command(pdfinfo, "-meta", out).Output()
	if err != nil {
		t.Fatalf("pdfinfo -meta: %v", err)
	}
	m, err := pdf.ReadMetadata(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	for key, prop := range map[string]string{"Title": "dc:title", "Author": "dc:creator", "Subject": "dc:description",
		"Keywords": "pdf:Keywords", "Producer": "pdf:Producer", "Creator": "xmp:CreatorTool"} {
		if m[key] == "" {
			continue
		}
		re := regexp.MustCompile(`<` + prop + `>(?:<rdf:(?:Alt|Seq)>\s*<rdf:li[^>]*>)?([^<]*)<`)
		got := re.FindAllSubmatch(xmp, -1)
		if len(got) != 1 || string(got[0][1]) != m[key] {
			t.Errorf("got XMP %s %q, want once the Info's %s %q", prop, got, key, m[key])
		}
	}
	qdf := out + ".qdf"
	if res, err := exec.Command(qpdf, "--qdf", "--object-streams=disable", out, qdf).CombinedOutput(); err != nil {
		t.Fatalf("qpdf --qdf: %v\n%s", err, res)
	}
	plain, err := os.ReadFile(qdf)
	if err != nil {
		t.Fatal(err)
	}
	specs := bytes.Count(plain, []byte("/Type /Filespec"))
	if part == 3 && specs > 0 {
		if n := bytes.Count(plain, []byte("/AFRelationship")); n != specs {
			t.Errorf("got %d /AFRelationship for %d attachments, want one each, as PDF/A-3 asks", n, specs)
		}
		if n := bytes.Count(plain, []byte("/Type /EmbeddedFile\n")) + bytes.Count(plain, []byte("/Type /EmbeddedFile ")); n > 0 &&
			bytes.Count(plain, []byte("/Subtype /")) < specs {
			t.Error("embedded files without a MIME type (/Subtype), which PDF/A-3 asks for")
		}
		if !bytes.Contains(plain, []byte("/AF [")) && !bytes.Contains(plain, []byte("/AF [\n")) {
			t.Error("no /AF in the catalog, which PDF/A-3 asks for")
		}
	}
}

// pageCount is what pdfinfo says of the PDF at path.
func pageCount(t *testing.T, pdfinfo, path string) int {
	t.Helper()
	out, err := exec.Command(pdfinfo, path).Output()
	if err != nil {
		t.Fatalf("pdfinfo: %v", err)
	}
	m := regexp.MustCompile(`(?m)^Pages:\s+(\d+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("pdfinfo said no page count: %s", out)
	}
	n := 0
	for _, d := range m[1] {
		n = n*10 + int(d-'0')
	}
	return n
}
