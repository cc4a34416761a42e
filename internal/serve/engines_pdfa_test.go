package serve

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"calq/convert/pdf"
	"calq/internal/tooltest"
)

// TestPDFAConvertRoute: pdfengines/convert returns a file that is what
// it claims: LibreOffice's PDF/A export as it wrote it (PDF/A-1 keeps
// PDF 1.4 and has no object streams, which PDF/A-1 forbids), never
// rewritten by pdfcpu afterwards; pdfua alone or with pdfa gives a
// tagged PDF that says PDF/UA-1. libreoffice/convert (the page's route,
// and calq convert's code) makes the same of a PDF.
func TestPDFAConvertRoute(t *testing.T) {
	tooltest.Require(t, "soffice")
	ts := newTestServer(t, nil)
	three, err := os.ReadFile(filepath.Join(repoTestdata, "convert", "pages_3.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		route    string
		fields   []part
		part     int  // the PDF/A part claimed; 0 none
		maxMinor byte // the highest PDF 1.x version allowed
		ua       bool // claims PDF/UA-1 and is tagged
	}{
		{"PDF/A-1b", "pdfengines/convert", []part{{"pdfa", "", "PDF/A-1b"}}, 1, '4', false},
		{"PDF/A-2b", "pdfengines/convert", []part{{"pdfa", "", "PDF/A-2b"}}, 2, '7', false},
		{"PDF/A-3b", "pdfengines/convert", []part{{"pdfa", "", "PDF/A-3b"}}, 3, '7', false},
		{"PDF/UA-1", "pdfengines/convert", []part{{"pdfua", "", "true"}}, 0, '7', true},
		{"PDF/A-1b and PDF/UA-1", "pdfengines/convert", []part{{"pdfa", "", "PDF/A-1b"}, {"pdfua", "", "true"}}, 1, '4', true},
		{"libreoffice/convert PDF/A-1b of a PDF", "libreoffice/convert", []part{{"pdfa", "", "PDF/A-1b"}}, 1, '4', false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := postParts(t, ts.URL+"/forms/"+tt.route, append([]part{{"files", "a.pdf", string(three)}}, tt.fields...))
			b := body(t, resp)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("got status %d %q, want 200", resp.StatusCode, b)
			}
			if got := b[7]; !bytes.HasPrefix(b, []byte("%PDF-1.")) || got > tt.maxMinor {
				t.Errorf("got header %q, want PDF 1.%c at most", b[:8], tt.maxMinor)
			}
			if tt.part == 1 && bytes.Contains(b, []byte("/ObjStm")) {
				t.Error("a PDF/A-1 file with object streams, which PDF/A-1 forbids")
			}
			out := pdfFile(t, b)
			c, err := pdf.PDFA(context.Background(), out)
			if err != nil || c.Part != tt.part {
				t.Errorf("got PDF/A identification %+v (%v), want part %d", c, err, tt.part)
			}
			m, err := pdf.ReadMetadata(context.Background(), out)
			if err != nil {
				t.Fatal(err)
			}
			if tt.ua && m["Marked"] != "true" {
				t.Errorf("got Marked %q, want a tagged PDF", m["Marked"])
			}
			if ua := c.UA == 1; ua != tt.ua {
				t.Errorf("got PDF/UA part %d, want PDF/UA-1 %v", c.UA, tt.ua)
			}
		})
	}
}

// TestFacturXRoute: pdfengines/factur-x makes each PDF PDF/A-3b when it
// is not (a PDF/A-3 stays as LibreOffice wrote it, the invoice appended
// as an incremental update), attaches factur-x.xml as its Alternative
// and declares the Factur-X level in the XMP.
func TestFacturXRoute(t *testing.T) {
	tooltest.Require(t, "soffice")
	qpdf := tooltest.Require(t, "qpdf")
	ts := newTestServer(t, nil)
	three, err := os.ReadFile(filepath.Join(repoTestdata, "convert", "pages_3.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	resp := postParts(t, ts.URL+"/forms/pdfengines/convert", []part{{"files", "a.pdf", string(three)}, {"pdfa", "", "PDF/A-3b"}})
	a3 := body(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("making a PDF/A-3b: %d %q", resp.StatusCode, a3)
	}
	const invoice = `<?xml version="1.0"?><rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"/>`
	tests := []struct {
		name   string
		parts  []part
		status int
		level  string
		kept   []byte // the input bytes the result starts with
	}{
		{"a plain PDF", []part{{"files", "plain.pdf", string(three)}, {"facturxXml", "inv.xml", invoice},
			{"facturxConformanceLevel", "", "EN 16931"}}, 200, "EN 16931", nil},
		{"a PDF/A-3b, kept", []part{{"files", "a3.pdf", string(a3)}, {"facturxXml", "inv.xml", invoice},
			{"facturxConformanceLevel", "", "BASIC"}, {"facturxDocumentType", "", "ORDER"}}, 200, "BASIC", a3},
		{"no XML", []part{{"files", "plain.pdf", string(three)}, {"facturxConformanceLevel", "", "EN 16931"}}, 400, "", nil},
		{"a bad level", []part{{"files", "plain.pdf", string(three)}, {"facturxXml", "inv.xml", invoice},
			{"facturxConformanceLevel", "", "GOLD"}}, 400, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := postParts(t, ts.URL+"/forms/pdfengines/factur-x", tt.parts)
			b := body(t, resp)
			if resp.StatusCode != tt.status {
				t.Fatalf("got status %d %q, want %d", resp.StatusCode, b, tt.status)
			}
			if tt.status != http.StatusOK {
				return
			}
			out := pdfFile(t, b)
			if c, err := pdf.PDFA(context.Background(), out); err != nil || c.Part != 3 {
				t.Errorf("got PDF/A %+v (%v), want part 3", c, err)
			}
			if tt.kept != nil && !bytes.HasPrefix(b, tt.kept) {
				t.Error("the PDF/A-3 input was rewritten, want it kept and updated incrementally")
			}
			if names := attachmentNames(t, out); !slices.Equal(names, []string{"factur-x.xml"}) {
				t.Errorf("got attachments %q, want factur-x.xml", names)
			}
			for _, want := range []string{"/AFRelationship /Alternative", "urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#",
				"<fx:ConformanceLevel>" + tt.level + "</fx:ConformanceLevel>"} {
				if !bytes.Contains(b, []byte(want)) && !bytes.Contains(b, []byte(strings.ReplaceAll(want, " /", "/"))) {
					t.Errorf("the PDF does not hold %s", want)
				}
			}
			if out, err := exec.Command(qpdf, "--check", out).CombinedOutput(); err != nil {
				t.Errorf("qpdf --check: %v\n%s", err, out)
			}
		})
	}
}
