package lo

import (
	"archive/zip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"calq/internal/pdftest"
	"calq/internal/tooltest"
)

// TestExportNative: LibreOffice's own watermarks, bookmarks as named
// destinations, and single-page sheets of a workbook saved scrolled
// down, each seen in the PDF the instance makes.
func TestExportNative(t *testing.T) {
	inst := sharedPool.get(t).Instances()[0]
	dir := t.TempDir()
	marked := writeFODT(t, dir, "marked.fodt", pagesBody(1)+`<text:p><text:bookmark text:name="calqmark"/>Marked</text:p>`)
	scrolled := writeScrolledXLSX(t, dir, "scrolled.xlsx", 60, 40)
	// A table of contents saved stale: one entry no heading has.
	toc := writeFODT(t, dir, "toc.fodt", `<text:table-of-content text:name="Contents">`+
		`<text:table-of-content-source text:outline-level="3"><text:index-title-template>Contents</text:index-title-template></text:table-of-content-source>`+
		`<text:index-body><text:p>Stale entry</text:p></text:index-body></text:table-of-content>`+
		`<text:h text:outline-level="1">Chapter One</text:h><text:p>Body</text:p>`)
	tests := []struct {
		name  string
		in    string
		e     Export
		text  []string        // in the PDF's text, spaces and line breaks dropped
		not   []string        // not in it
		bytes map[string]bool // what the PDF's bytes hold, by regexp
		pages int             // 0: any
	}{
		{name: "no watermark", in: marked, text: []string{"Page1"}, not: []string{"CONFIDENTIAL"}},
		{name: "watermark", in: marked, e: Export{NativeWatermarkText: "CONFIDENTIAL"}, text: []string{"CONFIDENTIAL", "Page1"}},
		{name: "watermark with options", in: marked,
			e:     Export{NativeWatermarkText: "DRAFT", NativeWatermarkColor: 0xFF0000, NativeWatermarkFontHeight: 48, NativeWatermarkRotateAngle: 450, NativeWatermarkFontName: "Courier"},
			text:  []string{"DRAFT"},
			bytes: map[string]bool{`LiberationMono|Courier`: true, `(?:^|\s)1 0 0 rg\b`: true}},
		{name: "tiled watermark", in: marked, e: Export{NativeTiledWatermarkText: "SECRET"}, text: []string{"SE", "Page1"}, not: []string{"CONFIDENTIAL"}},
		{name: "bookmarks not as destinations", in: marked, bytes: map[string]bool{`calqmark`: false}},
		{name: "bookmarks as destinations", in: marked, e: Export{ExportBookmarksToPdfDestination: true}, bytes: map[string]bool{`calqmark`: true}},
		{name: "viewer options", in: marked, e: Export{Options: map[string]string{"initialView": "1", "hideViewerToolbar": "true", "pageLayout": "2"}},
			bytes: map[string]bool{`/PageMode\s*/UseOutlines`: true, `/HideToolbar\s*true`: true, `/PageLayout\s*/OneColumn`: true}},
		{name: "no viewer options", in: marked,
			bytes: map[string]bool{`/PageMode\s*/UseOutlines`: false, `/HideToolbar\s*true`: false, `/PageLayout\s*/OneColumn`: false}},
		{name: "indexes as saved", in: toc, text: []string{"Staleentry", "ChapterOne"}},
		{name: "indexes updated", in: toc, e: Export{UpdateIndexes: true}, text: []string{"ContentsChapterOne", "1ChapterOneBody"}, not: []string{"Stale"}},
		{name: "scrolled workbook, single page sheets", in: scrolled, e: Export{SinglePageSheets: true},
			text: []string{"Meteorheader", "row2", "row60"}, pages: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.pdf")
			if err := inst.Convert(t.Context(), tt.in, out, ConvertOptions{Export: tt.e}); err != nil {
				t.Fatalf("Convert(%s, %v) = %v", filepath.Base(tt.in), tt.e, err)
			}
			b := checkPDF(t, out, 1)
			if tt.pages > 0 && pages(b) != tt.pages {
				t.Errorf("got %d pages, want %d", pages(b), tt.pages)
			}
			pdftest.CheckText(t, out, tt.text, tt.not)
			raw := uncompressed(t, out)
			for what, want := range tt.bytes {
				if got := regexp.MustCompile(what).Match(raw); got != want {
					t.Errorf("the PDF holds %s: got %v, want %v", what, got, want)
				}
			}
		})
	}
}

// writeScrolledXLSX writes a workbook of one sheet, "Meteorheader" in A1
// and "rowN" below to row n, saved with its view scrolled down to row top.
func writeScrolledXLSX(t *testing.T, dir, name string, n, top int) string {
	t.Helper()
	var rows strings.Builder
	for i := 1; i <= n; i++ {
		v := fmt.Sprintf("row%d", i)
		if i == 1 {
			v = "Meteorheader"
		}
		fmt.Fprintf(&rows, `<row r="%d"><c r="A%d" t="inlineStr"><is><t>%s</t></is></c></row>`, i, i, v)
	}
	const head = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`
	const rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
	parts := []struct{ name, body string }{
		{"[Content_Types].xml", head + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
			`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
			`<Default Extension="xml" ContentType="application/xml"/>` +
			`<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>` +
			`<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`},
		{"_rels/.rels", head + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="` + rel + `/officeDocument" Target="xl/workbook.xml"/></Relationships>`},
		{"xl/workbook.xml", head + `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="` + rel + `">` +
			`<sheets><sheet name="First" sheetId="1" r:id="rId1"/></sheets></workbook>`},
		{"xl/_rels/workbook.xml.rels", head + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="` + rel + `/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`},
		{"xl/worksheets/sheet1.xml", head + `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` +
			fmt.Sprintf(`<sheetViews><sheetView tabSelected="1" topLeftCell="A%d" workbookViewId="0"/></sheetViews>`, top) +
			`<sheetData>` + rows.String() + `</sheetData></worksheet>`},
	}
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, p := range parts {
		w, err := zw.Create(p.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(p.body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// uncompressed is the PDF at path with its streams inflated (qpdf's QDF
// form), so that its content and names can be searched.
func uncompressed(t *testing.T, path string) []byte {
	t.Helper()
	tooltest.Require(t, "qpdf")
	q := filepath.Join(t.TempDir(), "q.pdf")
	if out, err := exec.Command("qpdf", "--qdf", "--object-streams=disable", path, q).CombinedOutput(); err != nil && !strings.Contains(string(out), "warning") {
		t.Fatalf("qpdf: %v: %s", err, out)
	}
	b, err := os.ReadFile(q)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
