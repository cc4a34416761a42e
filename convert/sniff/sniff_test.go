package sniff

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const testdata = "../../testdata/convert"

// want is an expected outcome: a Kind, or an error with this sentinel and
// exactly this reason.
type want struct {
	kind     Kind
	sentinel error
	reason   string
}

var (
	office = want{kind: Office}
	image  = want{kind: Image}
	pdf    = want{kind: PDF}
)

func officePassword() want {
	return want{sentinel: ErrPassword, reason: "password-protected Office document"}
}

func mismatchOf(reason string) want { return want{sentinel: ErrMismatch, reason: reason} }

func check(t *testing.T, path string, w want) {
	t.Helper()
	got, err := Detect(path)
	if w.sentinel == nil {
		if err != nil || got != w.kind {
			t.Errorf("Detect(%s) = %v, %v; want %v, nil", path, got, err, w.kind)
		}
		return
	}
	var de *Error
	if !errors.As(err, &de) {
		t.Fatalf("Detect(%s) = %v, %v; want an *Error", path, got, err)
	}
	if got != Unknown || !errors.Is(err, w.sentinel) || de.Reason != w.reason || de.Path != path {
		t.Errorf("Detect(%s) = %v, %q (sentinel %v); want Unknown, %q (sentinel %v)",
			path, got, de.Reason, de.Err, w.reason, w.sentinel)
	}
}

// The corpus copy: every input file in testdata/convert must be listed.
var corpusWant = map[string]want{
	"001-test.doc":                     office,
	"Größen_表格 (final).xlsx":           office,
	"HeaderFooterUnicode.docx":         office,
	"LibreOfficeImpress_odp_1.3.odp":   office,
	"SampleSS.xls":                     office,
	"SampleSS.xlsx":                    office,
	"SampleShow.pptx":                  office,
	"Special_Chars_ß.docx":             office,
	"basic_test_ppt_file.ppt":          office,
	"broken-xref.pdf":                  pdf, // the xref is repaired later, by pdfcpu
	"chinese_spreadsheet.ods":          office,
	"cols.odp":                         office,
	"ofz5909-1.html":                   office, // fails in LibreOffice: not detectable here
	"ofz8255-1.html":                   office, // hangs LibreOffice: not detectable here
	"pages_3.pdf":                      pdf,
	"random-bytes.docx":                mismatchOf("content is not a DOCX (no OOXML zip signature)"),
	"sample.pptx":                      office,
	"sample_3.docx":                    office,
	"serious_poem.odt":                 office,
	"simple.odt":                       office,
	"simple.xlsx":                      office,
	"test.rtf":                         office,
	"testCSV.csv":                      office,
	"testFooter.ods":                   office,
	"testGIF.gif":                      image,
	"testHTML_utf8.html":               office,
	"testJPEG_EXIF.jpg":                image,
	"testPDF.pdf":                      pdf,
	"testPNG.png":                      image,
	"testPPT.ppt":                      office,
	"testPassword4Spaces.pdf":          {sentinel: ErrPassword, reason: "password-protected PDF"},
	"testRTFJapanese.rtf":              office,
	"testTIFF_multipage.tif":           image,
	"testTXTNonASCIIUTF8.txt":          office,
	"testWORD_protected_passtika.docx": officePassword(),
	"testWORD_various.doc":             office,
	"testWORD_various.docx":            office,
	"truncated-half.docx":              mismatchOf("truncated or corrupt DOCX (zip unreadable)"),
	"video-001.bmp":                    image,
	"video-001.tiff":                   image,
	"yellow_rose.lossy.webp":           image,
	"zero-bytes.docx":                  {sentinel: ErrEmpty, reason: "empty file"},
	"Übersicht – 報告.docx":              office,
	"Презентация 演示.odp":               office,
}

func TestDetectCorpus(t *testing.T) {
	testDir(t, testdata, corpusWant)
}

func TestDetectBroken(t *testing.T) {
	testDir(t, filepath.Join(testdata, "broken"), map[string]want{
		"html-named.xls":      mismatchOf("content is not an XLS (no OLE2 signature; it looks like HTML or XML text)"),
		"random-bytes.docx":   mismatchOf("content is not a DOCX (no OOXML zip signature)"),
		"random-bytes.png":    mismatchOf("content is not a PNG (no PNG signature)"),
		"text-named.odt":      mismatchOf("content is not an ODT (no ODF zip signature; it looks like plain text)"),
		"truncated-half.docx": mismatchOf("truncated or corrupt DOCX (zip unreadable)"),
		"zero-bytes.docx":     {sentinel: ErrEmpty, reason: "empty file"},
	})
}

func TestDetectProtected(t *testing.T) {
	w := map[string]want{}
	for _, ext := range []string{"doc", "docx", "odp", "ods", "odt", "pptx", "xls", "xlsx"} {
		w["protected."+ext] = officePassword()
	}
	w["gcm.odt"] = officePassword() // an encryption LibreOffice 7.4 does not know
	testDir(t, filepath.Join(testdata, "protected"), w)
}

func TestDetectSamples(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join(testdata, "samples"))
	if err != nil {
		t.Fatal(err)
	}
	w := map[string]want{}
	kinds := map[Kind]int{}
	for _, e := range entries {
		if name := e.Name(); !strings.HasSuffix(name, ".md") {
			k, err := Detect(filepath.Join(testdata, "samples", name))
			w[name] = want{kind: k}
			kinds[k]++
			if err != nil {
				t.Errorf("sample %s: %v", name, err)
			}
		}
	}
	if len(w) < 8 || kinds[Office] == 0 || kinds[Image] == 0 || kinds[PDF] == 0 {
		t.Errorf("samples: %d files by kind %v; want 8 or more of every kind", len(w), kinds)
	}
}

// testDir checks every regular non-Markdown file of dir against wants, and
// that wants lists exactly those files.
func testDir(t *testing.T, dir string, wants map[string]want) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".py") {
			continue
		}
		seen = append(seen, name)
		w, ok := wants[name]
		if !ok {
			t.Errorf("%s: no expectation for this file; add it to the test table", name)
			continue
		}
		t.Run(name, func(t *testing.T) { check(t, filepath.Join(dir, name), w) })
	}
	for name := range wants {
		if !slices.Contains(seen, name) {
			t.Errorf("%s: expected in %s but missing", name, dir)
		}
	}
}

func TestDetectPathErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "folder.docx"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		path     string
		sentinel error
		reason   string
	}{
		{"unsupported", "notes.xyz", ErrUnsupported, "unsupported extension .xyz"},
		{"no extension", "README", ErrUnsupported, "unsupported file type (no extension)"},
		{"directory", filepath.Join(dir, "folder.docx"), ErrUnsupported, "not a regular file"},
		{"missing", filepath.Join(dir, "missing.docx"), fs.ErrNotExist, "cannot read file: no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Detect(tt.path)
			var de *Error
			if !errors.As(err, &de) || !errors.Is(err, tt.sentinel) || de.Reason != tt.reason {
				t.Fatalf("Detect(%s) = %v; want reason %q wrapping %v", tt.path, err, tt.reason, tt.sentinel)
			}
			if got, want := err.Error(), tt.path+": "+tt.reason; got != want {
				t.Errorf("Error() = %q, want %q", got, want)
			}
		})
	}
}

func TestSupported(t *testing.T) {
	got := Supported()
	if !slices.IsSorted(got) {
		t.Errorf("Supported() is not sorted: %v", got)
	}
	for _, ext := range strings.Fields(`.doc .docx .odt .rtf .txt .html .htm .xls .xlsx .ods .csv .ppt
		.pptx .odp .fodt .fods .fodp .odg .dotx .xlsm .pptm .png .jpg .jpeg .tif .tiff .webp .gif .bmp .pdf`) {
		if !slices.Contains(got, ext) {
			t.Errorf("Supported() lacks %s", ext)
		}
	}
	for _, ext := range got {
		if ext != strings.ToLower(ext) || !strings.HasPrefix(ext, ".") {
			t.Errorf("Supported() has %q; want lower case with a leading dot", ext)
		}
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Unknown: "unknown", Office: "office", Image: "image", PDF: "pdf", 42: "unknown"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}
