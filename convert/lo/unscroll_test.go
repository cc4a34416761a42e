package lo

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnscrollSheet(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"double quotes", `<sheetViews><sheetView topLeftCell="A40" workbookViewId="0"/></sheetViews><sheetData/>`,
			`<sheetViews><sheetView workbookViewId="0"/></sheetViews><sheetData/>`},
		{"single quotes, spaces", `<sheetView tabSelected="1" topLeftCell = 'C7'/><sheetData/>`, `<sheetView tabSelected="1"/><sheetData/>`},
		{"cells untouched", `<sheetView/><sheetData><c><is><t> topLeftCell="A1"</t></is></c></sheetData>`,
			`<sheetView/><sheetData><c><is><t> topLeftCell="A1"</t></is></c></sheetData>`},
		{"no sheet data", `<sheetView topLeftCell="B2"/>`, `<sheetView/>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w bytes.Buffer
			n, err := unscrollSheet(&w, strings.NewReader(tt.in))
			if err != nil || n != int64(len(tt.in)) {
				t.Fatalf("got %d bytes read, %v; want %d, nil", n, err, len(tt.in))
			}
			if w.String() != tt.want {
				t.Errorf("got %q, want %q", w.String(), tt.want)
			}
		})
	}
}

// TestUnscrollLeavesOthers: a staged file that is not a workbook is left
// as it is, and a workbook linked from the caller's file is replaced in
// the work directory, never written through the link.
func TestUnscrollLeavesOthers(t *testing.T) {
	dir := t.TempDir()
	notZip := filepath.Join(dir, "in.xlsx")
	os.WriteFile(notZip, []byte("not a zip"), 0o600)
	if err := unscroll(notZip); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(notZip); string(b) != "not a zip" {
		t.Errorf("got %q, want the file unchanged", b)
	}
	orig := writeScrolledXLSX(t, dir, "orig.xlsx", 3, 2)
	before, _ := os.ReadFile(orig)
	staged := filepath.Join(dir, "staged.xlsx")
	if err := os.Link(orig, staged); err != nil {
		t.Fatal(err) // a hard link within one temporary directory: nothing to skip for
	}
	if err := unscroll(staged); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(orig); !bytes.Equal(before, after) {
		t.Error("the caller's file changed")
	}
	zr, err := zip.OpenReader(staged)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		rc, _ := f.Open()
		var b bytes.Buffer
		b.ReadFrom(rc)
		rc.Close()
		if bytes.Contains(b.Bytes(), []byte("topLeftCell")) {
			t.Errorf("%s still holds topLeftCell: %s", f.Name, b.Bytes())
		}
	}
}
