package serve

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"testing"

	"calq/internal/pdftest"
)

// TestLibreOfficeOtherFormats: files of the other formats LibreOffice
// imports, made here, are converted by the LibreOffice route; each PDF
// holds the document's text where the format has text, else at least
// one page.
func TestLibreOfficeOtherFormats(t *testing.T) {
	ts := newTestServer(t, nil)
	abw := `<?xml version="1.0" encoding="UTF-8"?>
<abiword template="false" version="2.9" xmlns="http://www.abisource.com/awml.dtd"><section><p>Hello AbiWord</p></section></abiword>`
	tests := []struct {
		name    string
		content []byte
		text    string // in the PDF's text, spaces dropped; "" for a picture
	}{
		{"a.svg", []byte(`<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><text x="10" y="50" font-size="20">Hello SVG</text></svg>`), "HelloSVG"},
		{"a.xml", []byte(`<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.text"><office:body><office:text><text:p>Hello Flat XML</text:p></office:text></office:body></office:document>`), "HelloFlatXML"},
		{"a.xhtml", []byte(`<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>t</title></head><body><p>Hello XHTML</p></body></html>`), "HelloXHTML"},
		{"b.html", []byte(`<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>t</title></head><body><p>Hello XHTML</p></body></html>`), "HelloXHTML"},
		{"a.dif", []byte("TABLE\r\n0,1\r\n\"\"\r\nVECTORS\r\n0,1\r\n\"\"\r\nTUPLES\r\n0,1\r\n\"\"\r\nDATA\r\n0,0\r\n\"\"\r\n-1,0\r\nBOT\r\n1,0\r\n\"Hello DIF\"\r\n-1,0\r\nEOD\r\n"), "HelloDIF"},
		{"a.slk", []byte("ID;PWXL;N;E\r\nC;Y1;X1;K\"Hello SYLK\"\r\nE\r\n"), "HelloSYLK"},
		{"a.abw", []byte(abw), "HelloAbiWord"},
		{"a.zabw", gzipped(t, abw), "HelloAbiWord"},
		{"a.sxw", sunWriter(t, "Hello SXW"), "HelloSXW"},
		{"a.pbm", []byte("P1\n8 2\n1 0 1 0 1 0 1 0\n0 1 0 1 0 1 0 1\n"), ""},
		{"a.pgm", []byte("P2\n2 2\n255\n0 128\n255 64\n"), ""},
		{"a.ppm", []byte("P3\n2 1\n255\n255 0 0 0 0 255\n"), ""},
		{"a.xbm", []byte("#define a_width 8\n#define a_height 2\nstatic unsigned char a_bits[] = {\n 0x55, 0xaa };\n"), ""},
		{"a.xpm", []byte("/* XPM */\nstatic char *a[] = {\n\"2 2 1 1\",\n\". c #ff0000\",\n\"..\",\n\"..\"};\n"), ""},
		{"a.eps", []byte("%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 100 100\nshowpage\n"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := post(t, ts.URL+"/forms/libreoffice/convert", []upload{{"files", tt.name, tt.content}}, nil, nil)
			b := body(t, resp)
			if resp.StatusCode != 200 {
				t.Fatalf("got status %d (%s), want 200", resp.StatusCode, b)
			}
			var want []string
			if tt.text != "" {
				want = []string{tt.text}
			}
			pdftest.CheckText(t, pdfFile(t, b), want, nil)
		})
	}
}

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sunWriter is an OpenOffice.org 1 text document of one paragraph.
func sunWriter(t *testing.T, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, e := range [][2]string{
		{"mimetype", "application/vnd.sun.xml.writer"},
		{"content.xml", `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="http://openoffice.org/2000/office" xmlns:text="http://openoffice.org/2000/text" office:class="text" office:version="1.0"><office:body><text:p>` + text + `</text:p></office:body></office:document-content>`},
		{"META-INF/manifest.xml", `<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="http://openoffice.org/2001/manifest"><manifest:file-entry manifest:media-type="application/vnd.sun.xml.writer" manifest:full-path="/"/></manifest:manifest>`},
	} {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e[0], Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(e[1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
