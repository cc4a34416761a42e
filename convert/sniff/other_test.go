package sniff

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// otherSamples are small files of the other formats LibreOffice imports,
// made here: each passes its format's check.
func otherSamples(t *testing.T) map[string][]byte {
	t.Helper()
	emf := make([]byte, 64)
	emf[0] = 1
	copy(emf[40:], " EMF")
	tga := make([]byte, 64)
	tga[2], tga[12], tga[14], tga[16] = 2, 1, 1, 24
	pcx := make([]byte, 128)
	pcx[0], pcx[1], pcx[2], pcx[3] = 0x0A, 5, 1, 8
	dbf := make([]byte, 64)
	dbf[0], dbf[1], dbf[2], dbf[3], dbf[8] = 0x03, 124, 1, 1, 65
	return map[string][]byte{
		"svg":   []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><text>x</text></svg>`),
		"xml":   []byte(`<?xml version="1.0"?><office:document/>`),
		"xhtml": []byte(`<html xmlns="http://www.w3.org/1999/xhtml"><body><p>x</p></body></html>`),
		"dif":   []byte("TABLE\r\n0,1\r\n\"\"\r\nEOD\r\n"),
		"slk":   []byte("ID;PWXL\r\nC;Y1;X1;K\"x\"\r\nE\r\n"),
		"xbm":   []byte("#define a_width 8\n#define a_height 1\nstatic unsigned char a_bits[] = { 0x55 };\n"),
		"xpm":   []byte("/* XPM */\nstatic char *a[] = {\"1 1 1 1\", \". c #ff0000\", \".\"};\n"),
		"pbm":   []byte("P1\n1 1\n1\n"),
		"pgm":   []byte("P5\n1 1\n255\n\x80"),
		"ppm":   []byte("P3\n1 1\n255\n255 0 0\n"),
		"wpd":   []byte("\xFFWPC\x10\x00\x00\x00\x01\x0A"),
		"emf":   emf,
		"wmf":   []byte("\xD7\xCD\xC6\x9A\x00\x00\x00\x00"),
		"eps":   []byte("%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n"),
		"zabw":  []byte("\x1F\x8B\x08\x00\x00\x00\x00\x00"),
		"tga":   tga,
		"pcx":   pcx,
		"dbf":   dbf,
		"pct":   append(make([]byte, 522), "\x00\x11\x02\xFF"...),
		"sxw":   zipOf(t, "mimetype", "application/vnd.sun.xml.writer", "content.xml", "<office:document-content/>"),
		"vsdx":  zipOf(t, "[Content_Types].xml", "<Types/>", "visio/document.xml", "<VisioDocument/>"),
		"pages": zipOf(t, "Index/Document.iwa", "x"),
	}
}

// TestOtherFormats: each other format LibreOffice imports is accepted
// under its name when its content passes the format's check; under that
// name a PDF is still converted as a PDF and a DOCX as a DOCX, and bytes
// of no format are refused as a mismatch, as for calq's first formats.
func TestOtherFormats(t *testing.T) {
	dir := t.TempDir()
	pdf, err := os.ReadFile(filepath.Join(testdata, "pages_3.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	docx := zipOf(t, "[Content_Types].xml", "<Types/>", "word/document.xml", "<w:document/>")
	for ext, content := range otherSamples(t) {
		t.Run(ext, func(t *testing.T) {
			if !slices.Contains(Supported(), "."+ext) {
				t.Fatalf("Supported() lacks .%s", ext)
			}
			write := func(name string, b []byte) string {
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, b, 0o600); err != nil {
					t.Fatal(err)
				}
				return p
			}
			if got, err := DetectFile(write("ok."+ext, content)); err != nil || got.Kind != Office || got.As != "."+ext || got.Note != "" {
				t.Errorf("its own content: got %+v, %v; want Office as .%s without a note", got, err, ext)
			}
			if got, err := DetectFile(write("pdf."+ext, pdf)); err != nil || got.Kind != PDF || got.As != ".pdf" {
				t.Errorf("a PDF under its name: got %+v, %v; want PDF as .pdf", got, err)
			}
			if got, err := DetectFile(write("docx."+ext, docx)); err != nil || got.As != ".docx" {
				t.Errorf("a DOCX under its name: got %+v, %v; want as .docx", got, err)
			}
			if _, err := DetectFile(write("zeros."+ext, make([]byte, 16))); ext != "pct" && !errors.Is(err, ErrMismatch) {
				t.Errorf("16 NUL bytes under its name: got %v, want ErrMismatch", err)
			}
		})
	}
}

// TestSupportedLibreOfficeInputs: calq takes every input Gotenberg's
// LibreOffice route lists, except those LibreOffice 7.4 here has no
// import filter for or cannot load headless, and adds its own few.
func TestSupportedLibreOfficeInputs(t *testing.T) {
	gotenberg := strings.Fields(`.123 .602 .abw .bib .bmp .cdr .cgm .cmx .csv .cwk .dbf .dif .doc .docm .docx .dot .dotm
		.dotx .dxf .emf .eps .epub .fodg .fodp .fods .fodt .fopd .gif .htm .html .hwp .jpeg .jpg .key .ltx .lwp .mcw .met
		.mml .mw .numbers .odd .odg .odm .odp .ods .odt .otg .oth .otp .ots .ott .pages .pbm .pcd .pct .pcx .pdb .pdf .pgm
		.png .pot .potm .potx .ppm .pps .ppsm .ppsx .ppt .pptm .pptx .psd .psw .pub .pwp .pxl .ras .rtf .sda .sdc .sdd
		.sdp .sdw .sgl .slk .smf .stc .std .sti .stw .svg .svm .swf .sxc .sxd .sxg .sxi .sxm .sxw .tga .tif .tiff .txt
		.uof .uop .uos .uot .vdx .vor .vsd .vsdm .vsdx .wb2 .wk1 .wks .wmf .wpd .wpg .wps .xbm .xhtml .xls .xlsb .xlsm
		.xlsx .xlt .xltm .xltx .xlw .xml .xpm .zabw`)
	// No import filter in LibreOffice 7.4 (export only, or none; .fopd
	// and .odd are no format), not loaded headless (.mml, .sxm), or no
	// check of its content known to calq (.psw, Pocket Word).
	cannot := strings.Fields(`.bib .epub .fopd .ltx .odd .pwp .pxl .sdp .sgl .smf .swf .uof .uop .uos .uot .vor .mml .sxm .psw`)
	calqOnly := []string{".otm", ".webp"}
	var want []string
	for _, e := range gotenberg {
		if !slices.Contains(cannot, e) {
			want = append(want, e)
		}
	}
	want = append(want, calqOnly...)
	slices.Sort(want)
	if got := Supported(); !slices.Equal(got, want) {
		for _, e := range want {
			if !slices.Contains(got, e) {
				t.Errorf("Supported() lacks %s", e)
			}
		}
		for _, e := range got {
			if !slices.Contains(want, e) {
				t.Errorf("Supported() has %s, want it not", e)
			}
		}
	}
}

// TestDetectFileXHTMLNamedHTML: HTML with an XML declaration goes the
// way of .xhtml, which calq reads as HTML (LibreOffice's Writer/Web
// would make blank pages of it); plain HTML keeps its name.
func TestDetectFileXHTMLNamedHTML(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, content, as string }{
		{"x.html", "\xEF\xBB\xBF <?xml version=\"1.0\"?><html><body>x</body></html>", ".xhtml"},
		{"x.htm", "<?xml version=\"1.0\"?><html/>", ".xhtml"},
		{"plain.html", "<html><body>x</body></html>", ".html"},
	} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, []byte(tc.content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, err := DetectFile(p); err != nil || got.As != tc.as || got.Note != "" {
			t.Errorf("%s: got %+v, %v; want as %s without a note", tc.name, got, err, tc.as)
		}
	}
}
