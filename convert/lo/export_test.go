package lo

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

func TestExportCheck(t *testing.T) {
	tests := []struct {
		name  string
		e     Export
		field []string // the fields of the *ExportErrors, in order; none: valid
	}{
		{"zero", Export{}, nil},
		{"every valid field", Export{Landscape: true, PageRanges: "1-4", PDFUA: true, Quality: 100, MaxImageResolution: 1200, Password: "x"}, nil},
		{"quality 1", Export{Quality: 1}, nil},
		{"quality 101", Export{Quality: 101}, []string{"quality"}},
		{"quality -1", Export{Quality: -1}, []string{"quality"}},
		{"resolution 75", Export{MaxImageResolution: 75}, nil},
		{"resolution 100", Export{MaxImageResolution: 100}, []string{"maxImageResolution"}},
		{"resolution -75", Export{MaxImageResolution: -75}, []string{"maxImageResolution"}},
		{"pages list", Export{PageRanges: "1,3,5-7"}, nil},
		{"pages open end", Export{PageRanges: "2-"}, nil},
		{"pages open start", Export{PageRanges: "-3"}, nil},
		{"pages spaces", Export{PageRanges: " 1 , 3-4 "}, nil},
		{"pages descending", Export{PageRanges: "5-3"}, nil},
		{"pages zero", Export{PageRanges: "0-2"}, []string{"nativePageRanges"}},
		{"pages word", Export{PageRanges: "all"}, []string{"nativePageRanges"}},
		{"pages dash", Export{PageRanges: "-"}, []string{"nativePageRanges"}},
		{"pages empty item", Export{PageRanges: "1,,2"}, []string{"nativePageRanges"}},
		{"pages sign", Export{PageRanges: "+2"}, []string{"nativePageRanges"}},
		{"pages double range", Export{PageRanges: "1-2-3"}, []string{"nativePageRanges"}},
		{"pages colon", Export{PageRanges: "1:2"}, []string{"nativePageRanges"}},
		{"two fields", Export{Quality: 101, MaxImageResolution: 1}, []string{"quality", "maxImageResolution"}},
		{"watermark", Export{NativeWatermarkText: "DRAFT", NativeWatermarkColor: 0xFFFFFF, NativeWatermarkFontHeight: 48, NativeWatermarkRotateAngle: -450, NativeWatermarkFontName: "Courier"}, nil},
		{"watermark colour", Export{NativeWatermarkColor: 0x1000000}, []string{"nativeWatermarkColor"}},
		{"options", Export{Options: map[string]string{"zoom": "50", "skipEmptyPages": "true", "openBookmarkLevels": "-1"}}, nil},
		{"options bad", Export{Options: map[string]string{"zoom": "0", "skipEmptyPages": "yes", "openBookmarkLevels": "0"}}, []string{"skipEmptyPages", "zoom", "openBookmarkLevels"}},
		{"options unknown", Export{Options: map[string]string{"Zoom": "50"}}, []string{"Zoom"}},
		{"watermark font height", Export{NativeWatermarkFontHeight: -1}, []string{"nativeWatermarkFontHeight"}},
		{"watermark angle", Export{NativeWatermarkRotateAngle: 3601}, []string{"nativeWatermarkRotateAngle"}},
		{"watermark control", Export{NativeWatermarkText: "a\nb", NativeTiledWatermarkText: "x\x00"}, []string{"nativeWatermarkText", "nativeTiledWatermarkText"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.e.Check()
			var got []string
			if err != nil {
				for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
					var ee *ExportError
					if !errors.As(e, &ee) {
						t.Fatalf("Check() error %v is not an *ExportError", e)
					}
					got = append(got, ee.Field)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.field) {
				t.Errorf("Check() = %v, want errors on fields %v", err, tt.field)
			}
		})
	}
	if got, want := (Export{Quality: 101}).Check().Error(), "quality 101: want 1 to 100"; got != want {
		t.Errorf("Check() = %q, want %q", got, want)
	}
}

// TestExportJSON: the JSON and the string of an Export never hold the
// password, only whether there is one.
func TestExportJSON(t *testing.T) {
	no := false
	tests := []struct {
		e          Export
		json, text string
	}{
		{Export{}, `{}`, `{}`},
		{Export{Password: "s3cret"}, `{}`, `{"password":"(set)"}`},
		{Export{PageRanges: "1-2", ExportBookmarks: &no, Quality: 50, Password: "s3cret"},
			`{"nativePageRanges":"1-2","exportBookmarks":false,"quality":50}`,
			`{"nativePageRanges":"1-2","exportBookmarks":false,"quality":50,"password":"(set)"}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.e)
		if err != nil || string(b) != tt.json {
			t.Errorf("json.Marshal = %s, %v, want %s", b, err, tt.json)
		}
		if got := fmt.Sprintf("%v", tt.e); got != tt.text {
			t.Errorf("%%v = %s, want %s", got, tt.text)
		}
	}
}

// TestExport converts with each export option on one warm instance (the
// UNO helper's route) and reads the result.
func TestExport(t *testing.T) {
	inst := sharedPool.get(t).Instances()[0]
	dir := t.TempDir()
	five := writeFODT(t, dir, "five.fodt", pagesBody(5))
	convert := func(t *testing.T, in string, e Export) []byte {
		t.Helper()
		out := filepath.Join(t.TempDir(), "out.pdf")
		if err := inst.Convert(t.Context(), in, out, ConvertOptions{Export: e}); err != nil {
			t.Fatalf("Convert(%s, %+v) = %v", filepath.Base(in), e, err)
		}
		return checkPDF(t, out, 1)
	}
	t.Run("landscape", func(t *testing.T) {
		for _, f := range []string{"sample_3.docx", "SampleSS.xlsx", "testPNG.png", "sample.pptx"} {
			dims := pageDims(t, convert(t, testdata(t, f), Export{Landscape: true}))
			for i, d := range dims {
				if d.Width <= d.Height {
					t.Errorf("%s: page %d is %.0f x %.0f pt, want wider than tall", f, i+1, d.Width, d.Height)
				}
			}
		}
		if d := pageDims(t, convert(t, testdata(t, "sample_3.docx"), Export{}))[0]; d.Width >= d.Height {
			t.Errorf("sample_3.docx without landscape: %.0f x %.0f pt, want portrait", d.Width, d.Height)
		}
	})
	t.Run("page ranges", func(t *testing.T) {
		tests := []struct {
			ranges string
			pages  int
		}{{"", 5}, {"2-3", 2}, {"1,3,5", 3}, {"4-", 2}, {"-2", 2}, {"4-9", 2}, {"3-1", 3}}
		for _, tt := range tests {
			if got := len(pageDims(t, convert(t, five, Export{PageRanges: tt.ranges}))); got != tt.pages {
				t.Errorf("PageRanges %q: %d pages, want %d", tt.ranges, got, tt.pages)
			}
		}
		// Past the last page: LibreOffice 7.4 fails the export.
		err := inst.Convert(t.Context(), five, filepath.Join(t.TempDir(), "out.pdf"), ConvertOptions{Export: Export{PageRanges: "7-9"}})
		var ce *ConvertError
		if !errors.As(err, &ce) || ce.Reason != ReasonExport || !strings.Contains(err.Error(), "page range 7-9") {
			t.Errorf("PageRanges 7-9 of 5 pages: %v, want %q naming the page range", err, ReasonExport)
		}
		// For people: the question, not LibreOffice's exception and paths.
		if want := "LibreOffice opened it but could not make a PDF of it: does the page range 7-9 name a page of the document?"; ce != nil && ce.Explain() != want {
			t.Errorf("Explain() = %q, want %q", ce.Explain(), want)
		}
	})
	t.Run("pdfua", func(t *testing.T) {
		if b := convert(t, five, Export{}); bytes.Contains(b, []byte("pdfuaid")) {
			t.Error("a plain export claims PDF/UA")
		}
		b := convert(t, five, Export{PDFUA: true})
		if !bytes.Contains(b, []byte("<pdfuaid:part>1</pdfuaid:part>")) {
			t.Error("PDFUA: no pdfuaid:part 1 in the XMP")
		}
		if !bytes.Contains(b, []byte("/MarkInfo")) {
			t.Error("PDFUA: the catalog has no /MarkInfo (not a tagged PDF)")
		}
	})
	t.Run("bookmarks and notes", func(t *testing.T) {
		no := false
		note := writeFODT(t, dir, "note.fodt", pagesBody(1)+
			`<text:p>Text<office:annotation><dc:creator>calq</dc:creator><text:p>A note</text:p></office:annotation></text:p>`)
		tests := []struct {
			name string
			e    Export
			has  map[string]bool // what the PDF holds, by regexp
		}{
			{"default", Export{}, map[string]bool{`/Outlines`: true, `/Subtype\s*/Text\b`: false}},
			{"no bookmarks", Export{ExportBookmarks: &no}, map[string]bool{`/Outlines`: false}},
			{"notes", Export{ExportNotes: true}, map[string]bool{`/Outlines`: true, `/Subtype\s*/Text\b`: true}},
		}
		for _, tt := range tests {
			b := convert(t, note, tt.e)
			for what, want := range tt.has {
				if got := regexp.MustCompile(what).Match(b); got != want {
					t.Errorf("%s: the PDF holds %s: %v, want %v", tt.name, what, got, want)
				}
			}
		}
	})
	t.Run("single page sheets", func(t *testing.T) {
		var rows strings.Builder
		for i := range 300 {
			fmt.Fprintf(&rows, "%d,row %d\n", i, i)
		}
		csv := filepath.Join(dir, "rows.csv")
		if err := os.WriteFile(csv, []byte(rows.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		if n := len(pageDims(t, convert(t, csv, Export{}))); n < 2 {
			t.Fatalf("300 rows: %d pages, want several", n)
		}
		if n := len(pageDims(t, convert(t, csv, Export{SinglePageSheets: true}))); n != 1 {
			t.Errorf("300 rows on one page a sheet: %d pages, want 1", n)
		}
	})
	t.Run("images", func(t *testing.T) {
		img := writeFODT(t, dir, "image.fodt", imageBody(noisePNG(t, 600)))
		plain := len(convert(t, img, Export{}))
		tests := []struct {
			name    string
			e       Export
			smaller bool
		}{
			{"quality 10", Export{Quality: 10}, true},
			{"max resolution 75", Export{MaxImageResolution: 75}, true},
			{"lossless", Export{LosslessImageCompression: true}, false},
		}
		for _, tt := range tests {
			got := len(convert(t, img, tt.e))
			t.Logf("%s: %d bytes, %d by default", tt.name, got, plain)
			if tt.smaller && got >= plain*3/4 || !tt.smaller && got <= plain {
				t.Errorf("%s: %d bytes, against %d by default", tt.name, got, plain)
			}
		}
	})
}

// TestExportPassword opens password-protected documents (written by
// LibreOffice, password "calq") with the right password and fails
// with a wrong one, saying so without repeating it.
func TestExportPassword(t *testing.T) {
	inst := sharedPool.get(t).Instances()[1]
	dir := t.TempDir()
	const wrong = "not-the-Passw0rd"
	for _, f := range []string{"protected.docx", "protected.odt", "protected.xls"} {
		in := testdata(t, filepath.Join("protected", f))
		out := filepath.Join(dir, f+".pdf")
		if err := inst.Convert(t.Context(), in, out, ConvertOptions{Export: Export{Password: "calq"}}); err != nil {
			t.Errorf("Convert(%s, right password) = %v", f, err)
		} else {
			checkPDF(t, out, 1)
		}
		err := inst.Convert(t.Context(), in, filepath.Join(dir, "wrong.pdf"), ConvertOptions{Export: Export{Password: wrong}})
		var ce *ConvertError
		if !errors.As(err, &ce) || ce.Reason != ReasonPassword || !errors.Is(err, ErrWrongPassword) {
			t.Errorf("Convert(%s, wrong password) = %v, want %q", f, err, ReasonPassword)
		} else if strings.Contains(err.Error(), wrong) {
			t.Errorf("the error repeats the password: %v", err)
		}
		err = inst.Convert(t.Context(), in, filepath.Join(dir, "none.pdf"), ConvertOptions{})
		if !errors.As(err, &ce) || ce.Reason != ReasonLoadFailed {
			t.Errorf("Convert(%s, no password) = %v, want %q", f, err, ReasonLoadFailed)
		}
	}
	// An encryption LibreOffice does not know (AES-GCM, from a newer
	// LibreOffice) fails alike with the right password and a wrong one,
	// and says so: not a wrong password, not a damaged file.
	gcm := testdata(t, filepath.Join("protected", "gcm.odt"))
	for _, pw := range []string{"calq", wrong} {
		err := inst.Convert(t.Context(), gcm, filepath.Join(dir, "gcm.pdf"), ConvertOptions{Export: Export{Password: pw}})
		var ce *ConvertError
		if !errors.As(err, &ce) || ce.Reason != ReasonEncryption {
			t.Errorf("Convert(gcm.odt, password %q) = %v, want %q", pw, err, ReasonEncryption)
		} else if want := "the document is encrypted in a way LibreOffice cannot open, whatever the password"; ce.Explain() != want {
			t.Errorf("Explain() = %q, want %q", ce.Explain(), want)
		}
	}
	// A password for a document without one is not in the way; a broken
	// document with one is still a load failure, not a password's.
	if err := inst.Convert(t.Context(), testdata(t, "sample_3.docx"), filepath.Join(dir, "plain.pdf"), ConvertOptions{Export: Export{Password: "x"}}); err != nil {
		t.Errorf("Convert(unprotected, a password) = %v", err)
	}
	err := inst.Convert(t.Context(), testdata(t, "truncated-half.docx"), filepath.Join(dir, "t.pdf"), ConvertOptions{Export: Export{Password: "x"}})
	var ce *ConvertError
	if !errors.As(err, &ce) || ce.Reason != ReasonLoadFailed {
		t.Errorf("Convert(truncated, a password) = %v, want %q", err, ReasonLoadFailed)
	}
}

// TestPDFToPDFA: a PDF converts to PDF/A as Gotenberg's
// /forms/pdfengines/convert does it, through LibreOffice's PDF import (Draw),
// keeping its pages; the images are kept lossless.
func TestPDFToPDFA(t *testing.T) {
	inst := sharedPool.get(t).Instances()[1]
	for _, part := range []int{1, 2, 3} {
		out := filepath.Join(t.TempDir(), "out.pdf")
		if err := inst.Convert(t.Context(), testdata(t, "pages_3.pdf"), out, ConvertOptions{PDFA: part}); err != nil {
			t.Fatalf("Convert(pages_3.pdf, PDF/A-%d) = %v", part, err)
		}
		b := checkPDF(t, out, 1)
		if n := len(pageDims(t, b)); n != 3 {
			t.Errorf("PDF/A-%d: %d pages, want 3", part, n)
		}
		if want := fmt.Sprintf("<pdfaid:part>%d</pdfaid:part>", part); !bytes.Contains(b, []byte(want)) {
			t.Errorf("PDF/A-%d: no %s in the XMP", part, want)
		}
	}
}

// checkClientExport checks Export on the client route (inst has no UNO
// helper): filter options go in --convert-to's JSON; landscape and a
// password cannot, and fail with ReasonOptions.
func checkClientExport(t *testing.T, inst *Instance, dir string) {
	t.Helper()
	five := writeFODT(t, dir, "five.fodt", pagesBody(5))
	out := filepath.Join(dir, "ranges.pdf")
	if err := inst.Convert(t.Context(), five, out, ConvertOptions{Export: Export{PageRanges: "2-3", PDFUA: true}}); err != nil {
		t.Fatalf("Convert(PageRanges, PDFUA) on the client route = %v", err)
	}
	b := checkPDF(t, out, 1)
	if n := len(pageDims(t, b)); n != 2 {
		t.Errorf("PageRanges 2-3 on the client route: %d pages, want 2", n)
	}
	if !bytes.Contains(b, []byte("<pdfuaid:part>1</pdfuaid:part>")) {
		t.Error("PDFUA on the client route: no pdfuaid:part 1 in the XMP")
	}
	for _, e := range []Export{{Landscape: true}, {Password: "calq"}, {UpdateIndexes: true}} {
		err := inst.Convert(t.Context(), five, filepath.Join(dir, "no.pdf"), ConvertOptions{Export: e})
		var ce *ConvertError
		if !errors.As(err, &ce) || ce.Reason != ReasonOptions || !strings.Contains(err.Error(), "python3-uno") {
			t.Errorf("Convert(%+v) on the client route = %v, want %q naming python3-uno", e, err, ReasonOptions)
		}
	}
}

// pageDims returns the size of each page of the PDF b.
func pageDims(t *testing.T, b []byte) []types.Dim {
	t.Helper()
	dims, err := api.PageDims(bytes.NewReader(b), nil)
	if err != nil {
		t.Fatalf("read the PDF's page sizes: %v", err)
	}
	return dims
}

// writeFODT writes a flat ODF text document of body (paragraphs; the
// style "Break" starts a page) and returns its path.
func writeFODT(t *testing.T, dir, name, body string) string {
	t.Helper()
	doc := `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
 xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
 xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
 xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"
 xmlns:dc="http://purl.org/dc/elements/1.1/"
 office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.text">
<office:automatic-styles>
<style:style style:name="Break" style:family="paragraph"><style:paragraph-properties fo:break-before="page"/></style:style>
</office:automatic-styles>
<office:body><office:text>
` + body + `
</office:text></office:body>
</office:document>
`
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// pagesBody is n pages of text, a heading on the first.
func pagesBody(n int) string {
	var b strings.Builder
	b.WriteString(`<text:h text:outline-level="1">Heading</text:h>`)
	for i := range n {
		style := ""
		if i > 0 {
			style = ` text:style-name="Break"`
		}
		fmt.Fprintf(&b, "<text:p%s>Page %d</text:p>\n", style, i+1)
	}
	return b.String()
}

// imageBody is a paragraph holding the PNG img as a 4 cm square.
func imageBody(img []byte) string {
	return `<text:p><draw:frame draw:name="noise" text:anchor-type="paragraph" svg:width="4cm" svg:height="4cm">` +
		`<draw:image><office:binary-data>` + base64.StdEncoding.EncodeToString(img) + `</office:binary-data></draw:image></draw:frame></text:p>`
}

// noisePNG is a size x size PNG of random pixels: JPEG and resolution
// matter to its size in a PDF.
func noisePNG(t *testing.T, size int) []byte {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	for y := range size {
		for x := range size {
			img.Set(x, y, color.RGBA{uint8(r.Uint32()), uint8(r.Uint32()), uint8(x), 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
