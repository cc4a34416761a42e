package sniff

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDetectFileSubtypes runs DetectFile on the files LibreOffice wrote in
// testdata/convert/subtypes: every sub-type LibreOffice writes is accepted
// under its own name; where name and content disagree, the content decides
// and the note says so.
func TestDetectFileSubtypes(t *testing.T) {
	tests := []struct {
		name, as, note string
	}{
		{"text-template.ott", ".ott", ""},
		{"text-flat.fodt", ".fodt", ""},
		{"text-master.odm", ".odm", ""},
		{"text-web.oth", ".oth", ""},
		{"word-macro.docm", ".docm", ""},
		{"word-template.dotx", ".dotx", ""},
		{"word97-template.dot", ".dot", ""},
		{"spreadsheet-template.ots", ".ots", ""},
		{"spreadsheet-flat.fods", ".fods", ""},
		{"excel-macro.xlsm", ".xlsm", ""},
		{"excel-template.xltx", ".xltx", ""},
		{"excel97-template.xlt", ".xlt", ""},
		{"html-export.xls", ".xls", "content is HTML, not XLS; converted as HTML"},
		{"presentation-template.otp", ".otp", ""},
		{"presentation-flat.fodp", ".fodp", ""},
		{"powerpoint-macro.pptm", ".pptm", ""},
		{"powerpoint-template.potx", ".potx", ""},
		{"powerpoint-show.ppsx", ".ppsx", ""},
		{"powerpoint97-template.pot", ".pot", ""},
		{"powerpoint97-show.pps", ".pps", ""},
		{"presentation-named.odg", ".odp", "content is ODP, not ODG; converted as ODP"},
		{"drawing.odg", ".odg", ""},
		{"drawing-template.otg", ".otg", ""},
		{"drawing-flat.fodg", ".fodg", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := DetectFile(filepath.Join(testdata, "subtypes", tt.name))
			if err != nil {
				t.Fatal(err)
			}
			if r.Kind != Office || r.As != tt.as || r.Note != tt.note {
				t.Errorf("DetectFile = %+v, want Office as %s, note %q", r, tt.as, tt.note)
			}
		})
	}
}

// TestDetectFileByContent renames real files: a known format under a wrong
// name converts by its content, with a note; what is not convertible is
// still refused with Detect's error.
func TestDetectFileByContent(t *testing.T) {
	tests := []struct {
		src, name string // a file of testdata/convert and the name it gets
		kind      Kind
		as, note  string
		err       string // a substring of the error, or "" for none
	}{
		{"broken/html-named.xls", "export.xls", Office, ".xls", "content is HTML, not XLS; converted as HTML", ""},
		{"broken/html-named.xls", "export.xlsx", Office, ".xls", "content is HTML, not XLSX; converted as HTML", ""},
		{"broken/html-named.xls", "export.ods", Office, ".xls", "content is HTML, not ODS; converted as HTML", ""},
		{"broken/html-named.xls", "export.docx", Office, ".html", "content is HTML, not DOCX; converted as HTML", ""},
		{"sample_3.docx", "letter.doc", Office, ".docx", "content is DOCX, not DOC; converted as DOCX", ""},
		{"testWORD_various.doc", "letter.docx", Office, ".doc", "content is DOC, not DOCX; converted as DOC", ""},
		{"simple.odt", "letter.ods", Office, ".odt", "content is ODT, not ODS; converted as ODT", ""},
		{"pages_3.pdf", "scan.docx", PDF, ".pdf", "content is PDF, not DOCX; converted as PDF", ""},
		{"testPNG.png", "photo.jpg", Image, ".png", "content is PNG, not JPG; converted as PNG", ""},
		{"test.rtf", "memo.doc", Office, ".doc", "", ""}, // Word itself writes RTF as .doc
		{"test.rtf", "memo.docx", Office, ".rtf", "content is RTF, not DOCX; converted as RTF", ""},
		{"subtypes/text-web.oth", "page.odt", Office, ".oth", "", ""},
		{"subtypes/text-web.oth", "page.ott", Office, ".oth", "", ""},
		{"random-bytes.docx", "junk.docx", 0, "", "", "content is not a DOCX"},
		{"zero-bytes.docx", "empty.xls", 0, "", "", "empty file"},
		{"truncated-half.docx", "half.docx", 0, "", "", "truncated or corrupt DOCX"},
		{"protected/protected.docx", "locked.docx", 0, "", "", "password"},
		{"protected/protected.odt", "locked.odt", 0, "", "", "password"},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.src+"_as_"+tt.name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(testdata, tt.src))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := DetectFile(path)
			if tt.err != "" {
				var e *Error
				if !errors.As(err, &e) || !strings.Contains(e.Reason, tt.err) {
					t.Fatalf("DetectFile = %+v, %v; want an *Error containing %q", r, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Kind != tt.kind || r.As != tt.as || r.Note != tt.note {
				t.Errorf("DetectFile = %+v, want %v as %s, note %q", r, tt.kind, tt.as, tt.note)
			}
		})
	}
}
