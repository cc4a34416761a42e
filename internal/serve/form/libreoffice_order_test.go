package form

import (
	"strings"
	"testing"
)

// TestLibreOfficeBadFormOrder: a form without files and with every field
// of the LibreOffice route bad is refused with one line per problem in
// Gotenberg's order and words: the missing files first (after the shared
// PDF fields, which are fine here), then the route's own fields as
// Gotenberg reads them. Each field is the case's name.
func TestLibreOfficeBadFormOrder(t *testing.T) {
	parse := func(v string) string { return `resulting to strconv.ParseBool: parsing "` + v + `": invalid syntax` }
	cases := []struct{ field, value, reason string }{
		{"landscape", "foo", parse("foo")},
		{"exportFormFields", "foo", parse("foo")},
		{"allowDuplicateFieldNames", "foo", parse("foo")},
		{"exportBookmarks", "foo", parse("foo")},
		{"exportBookmarksToPdfDestination", "foo", parse("foo")},
		{"exportPlaceholders", "foo", parse("foo")},
		{"exportNotes", "foo", parse("foo")},
		{"exportNotesPages", "foo", parse("foo")},
		{"exportOnlyNotesPages", "foo", parse("foo")},
		{"exportNotesInMargin", "foo", parse("foo")},
		{"convertOooTargetToPdfTarget", "foo", parse("foo")},
		{"exportLinksRelativeFsys", "foo", parse("foo")},
		{"exportHiddenSlides", "foo", parse("foo")},
		{"skipEmptyPages", "foo", parse("foo")},
		{"addOriginalDocumentAsStream", "foo", parse("foo")},
		{"singlePageSheets", "foo", parse("foo")},
		{"initialView", "5", "resulting to value is not 0, 1 or 2"},
		{"initialPage", "-1", "resulting to value is inferior to 1"},
		{"magnification", "9", "resulting to value is not 0, 1, 2, 3 or 4"},
		{"zoom", "-1", "resulting to value is inferior to 1"},
		{"pageLayout", "7", "resulting to value is not 0, 1, 2 or 3"},
		{"firstPageOnLeft", "foo", parse("foo")},
		{"resizeWindowToInitialPage", "foo", parse("foo")},
		{"centerWindow", "foo", parse("foo")},
		{"openInFullScreenMode", "foo", parse("foo")},
		{"displayPDFDocumentTitle", "foo", parse("foo")},
		{"hideViewerMenubar", "foo", parse("foo")},
		{"hideViewerToolbar", "foo", parse("foo")},
		{"hideViewerWindowControls", "foo", parse("foo")},
		{"useTransitionEffects", "foo", parse("foo")},
		{"openBookmarkLevels", "15", "resulting to value is not -1 or between 1 and 10"},
		{"losslessImageCompression", "foo", parse("foo")},
		{"quality", "-1", "resulting to value is inferior to 1"},
		{"reduceImageResolution", "foo", parse("foo")},
		{"maxImageResolution", "10", "resulting to value is not 75, 150, 300, 600 or 1200"},
	}
	var kv []string
	want := []string{"Invalid form data: no form file found for extensions: [.docx .odt]"}
	for _, c := range cases {
		kv = append(kv, c.field, c.value)
		want = append(want, "form field '"+c.field+"' is invalid (got '"+c.value+"', "+c.reason+")")
	}
	f := formOf(kv...)
	f.RequireInputs([]string{".docx", ".odt"})
	_, err := LibreOffice(f)
	got := strings.Split(errMsg(err), "\n")
	for i := range max(len(got), len(want)) {
		g, w := "(none)", "(none)"
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("line %d: got %s\nwant %s", i+1, g, w)
		}
	}
}

// TestLibreOfficeFieldReasons: each integer field of the route, alone,
// out of its bounds or not a number, in Gotenberg's words; calq's own
// upper bounds in the same words.
func TestLibreOfficeFieldReasons(t *testing.T) {
	for _, tc := range []struct {
		name, field, value, reason string
	}{
		{"quality over 100", "quality", "101", "value is superior to 100"},
		{"quality zero", "quality", "0", "value is inferior to 1"},
		{"quality not a number", "quality", "x", `strconv.Atoi: parsing "x": invalid syntax`},
		{"zoom not a number", "zoom", "x", `strconv.Atoi: parsing "x": invalid syntax`},
		{"zoom over calq's bound", "zoom", "6401", "value is superior to 6400"},
		{"initialPage zero", "initialPage", "0", "value is inferior to 1"},
		{"openBookmarkLevels zero", "openBookmarkLevels", "0", "value is not -1 or between 1 and 10"},
		{"openBookmarkLevels under -1", "openBookmarkLevels", "-2", "value is not -1 or between 1 and 10"},
		{"magnification negative", "magnification", "-1", "value is not 0, 1, 2, 3 or 4"},
		{"maxImageResolution", "maxImageResolution", "100", "value is not 75, 150, 300, 600 or 1200"},
		{"exportPlaceholders", "exportPlaceholders", "yes", `strconv.ParseBool: parsing "yes": invalid syntax`},
		{"nativeWatermarkFontHeight negative", "nativeWatermarkFontHeight", "-1", "value is inferior to 0"},
		{"nativeWatermarkColor over calq's bound", "nativeWatermarkColor", "16777216", "value is superior to 16777215"},
		{"imageQuality with optimizeImages", "imageQuality", "0", "value is inferior to 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := formOf(tc.field, tc.value, "optimizeImages", "true")
			_, err := LibreOffice(f)
			want := "Invalid form data: form field '" + tc.field + "' is invalid (got '" + tc.value + "', resulting to " + tc.reason + ")"
			if got := errMsg(err); got != want {
				t.Errorf("got  %q\nwant %q", got, want)
			}
		})
	}
}
