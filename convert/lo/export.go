package lo

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Export holds the PDF export options that Gotenberg's
// POST /forms/libreoffice/convert takes, as LibreOffice's PDF export
// filter (FilterData) and loader understand them. The zero value is
// LibreOffice's defaults: every page, no PDF/UA, JPEG images at quality
// 90 at their own resolution, no password.
//
// Landscape and Password need the UNO helper: a conversion by client
// soffice (no python3-uno) with either fails with ReasonOptions.
//
// Its JSON (for a job's payload or a fingerprint) names the fields as
// Gotenberg's form does and never holds the password.
type Export struct {
	// Landscape turns every portrait page style of a text document or
	// spreadsheet to landscape (width and height swapped), and every
	// portrait page of a presentation or drawing (its size swapped; its
	// content is not re-laid out). LibreOffice's PDF export has no such
	// option: the helper changes the loaded document before exporting.
	Landscape                bool   `json:"landscape,omitempty"`
	PageRanges               string `json:"nativePageRanges,omitempty"` // LibreOffice's PageRange: "1-4", "1,3,5-7", "2-"; "" all pages
	PDFUA                    bool   `json:"pdfua,omitempty"`            // PDF/UA (universal accessibility): PDFUACompliance, a tagged PDF
	SinglePageSheets         bool   `json:"singlePageSheets,omitempty"` // each sheet of a spreadsheet on one page
	ExportFormFields         *bool  `json:"exportFormFields,omitempty"` // nil: LibreOffice's default (true)
	ExportBookmarks          *bool  `json:"exportBookmarks,omitempty"`  // nil: LibreOffice's default (true)
	ExportNotes              bool   `json:"exportNotes,omitempty"`      // comments as PDF annotations
	LosslessImageCompression bool   `json:"losslessImageCompression,omitempty"`
	Quality                  int    `json:"quality,omitempty"`            // JPEG quality 1-100; 0: LibreOffice's default (90)
	MaxImageResolution       int    `json:"maxImageResolution,omitempty"` // 75, 150, 300, 600 or 1200 DPI; 0: no reduction
	Password                 string `json:"-"`                            // opens a password-protected source; never logged or fingerprinted
	// ExportBookmarksToPdfDestination exports the document's bookmarks
	// as named destinations too, for links like file.pdf#name.
	ExportBookmarksToPdfDestination bool `json:"exportBookmarksToPdfDestination,omitempty"`
	// LibreOffice's own watermark: text drawn across each page. Color
	// is 0xRRGGBB, 0 LibreOffice's default; FontHeight in points, 0
	// fitted to the page; RotateAngle in tenths of a degree; FontName ""
	// LibreOffice's default (Helvetica).
	NativeWatermarkText        string `json:"nativeWatermarkText,omitempty"`
	NativeWatermarkColor       int    `json:"nativeWatermarkColor,omitempty"`
	NativeWatermarkFontHeight  int    `json:"nativeWatermarkFontHeight,omitempty"`
	NativeWatermarkRotateAngle int    `json:"nativeWatermarkRotateAngle,omitempty"`
	NativeWatermarkFontName    string `json:"nativeWatermarkFontName,omitempty"`
	// NativeTiledWatermarkText is LibreOffice's tiled watermark: the
	// text repeated over each page.
	NativeTiledWatermarkText string `json:"nativeTiledWatermarkText,omitempty"`
	// Options are the other export options, FilterFields', by
	// Gotenberg's field name: "true" or "false", or an integer.
	Options map[string]string `json:"options,omitempty"`
	// UpdateIndexes refreshes a text document's indexes (tables of
	// contents, of figures...) before the export, as Gotenberg does by
	// default: their entries and page numbers are those of the document
	// as LibreOffice lays it out, not as it was saved. It needs the UNO
	// helper.
	UpdateIndexes bool `json:"updateIndexes,omitempty"`
}

// IsZero says whether e is LibreOffice's defaults: no option at all.
func (e Export) IsZero() bool {
	if len(e.Options) > 0 {
		return false
	}
	e.Options = nil
	return reflect.ValueOf(e).IsZero()
}

// String is e's JSON, with "password":"(set)" when there is one: a
// password printed by mistake (%v of a struct holding e) shows as that.
func (e Export) String() string {
	b, _ := json.Marshal(e)
	s := string(b)
	if e.Password != "" {
		sep := ","
		if s == "{}" {
			sep = ""
		}
		s = s[:len(s)-1] + sep + `"password":"(set)"}`
	}
	return s
}

// ExportError is one problem of an Export, naming its field as
// Gotenberg's form names it (quality, nativePageRanges...).
type ExportError struct {
	Field string // Gotenberg's form field: quality, maxImageResolution, nativePageRanges
	Value string
	Want  string
}

func (e *ExportError) Error() string { return fmt.Sprintf("%s %s: want %s", e.Field, e.Value, e.Want) }

// imageResolutions are the resolutions LibreOffice's PDF export reduces
// images to (its dialog's list).
var imageResolutions = []int{75, 150, 300, 600, 1200}

// Check refuses values LibreOffice would not take: a quality outside 1
// to 100, a resolution not in its list, page ranges that do not parse.
// The error joins an *ExportError per field, one per line.
func (e Export) Check() error {
	var errs []error
	if e.Quality < 0 || e.Quality > 100 {
		errs = append(errs, &ExportError{"quality", strconv.Itoa(e.Quality), "1 to 100"})
	}
	if e.MaxImageResolution != 0 && !slices.Contains(imageResolutions, e.MaxImageResolution) {
		errs = append(errs, &ExportError{"maxImageResolution", strconv.Itoa(e.MaxImageResolution), "75, 150, 300, 600 or 1200"})
	}
	if e.PageRanges != "" && !validPageRanges(e.PageRanges) {
		errs = append(errs, &ExportError{"nativePageRanges", strconv.Quote(e.PageRanges), "pages and ranges from 1 such as 1-4, 1,3,5-7 or 2-"})
	}
	errs = append(errs, e.checkWatermark()...)
	return errors.Join(append(errs, e.checkOptions()...)...)
}

// checkWatermark refuses watermark options LibreOffice would not draw.
func (e Export) checkWatermark() []error {
	var errs []error
	if e.NativeWatermarkColor < 0 || e.NativeWatermarkColor > 0xFFFFFF {
		errs = append(errs, &ExportError{"nativeWatermarkColor", strconv.Itoa(e.NativeWatermarkColor), "a colour 0xRRGGBB from 0 to 16777215"})
	}
	if e.NativeWatermarkFontHeight < 0 || e.NativeWatermarkFontHeight > 1000 {
		errs = append(errs, &ExportError{"nativeWatermarkFontHeight", strconv.Itoa(e.NativeWatermarkFontHeight), "points from 0 (fitted to the page) to 1000"})
	}
	if e.NativeWatermarkRotateAngle < -3600 || e.NativeWatermarkRotateAngle > 3600 {
		errs = append(errs, &ExportError{"nativeWatermarkRotateAngle", strconv.Itoa(e.NativeWatermarkRotateAngle), "tenths of a degree from -3600 to 3600"})
	}
	for _, f := range []struct{ field, v string }{{"nativeWatermarkText", e.NativeWatermarkText},
		{"nativeWatermarkFontName", e.NativeWatermarkFontName}, {"nativeTiledWatermarkText", e.NativeTiledWatermarkText}} {
		if strings.ContainsFunc(f.v, unicode.IsControl) || !utf8.ValidString(f.v) {
			errs = append(errs, &ExportError{f.field, strconv.Quote(f.v), "text without control characters"})
		}
	}
	return errs
}

// validPageRanges says whether s is a list of pages and ranges, as
// LibreOffice's PageRange takes it: items separated by commas, each a
// page N, a range N-M (descending ones print backwards), N- (to the
// end) or -M (from the first); pages count from 1. Spaces around items
// are allowed.
func validPageRanges(s string) bool {
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		from, to, isRange := strings.Cut(item, "-")
		switch {
		case !isRange:
			if !pageNumber(item) {
				return false
			}
		case from == "" && to == "", from != "" && !pageNumber(from), to != "" && !pageNumber(to):
			return false
		}
	}
	return true
}

// pageNumber says whether s is a page number: digits, not 0.
func pageNumber(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 1 && strings.Trim(s, "0123456789") == ""
}

// filterProp is one entry of the PDF export filter's FilterData, typed as
// LibreOffice's JSON filter options type them.
type filterProp struct {
	Name  string `json:"name"`
	Type  string `json:"type"` // boolean, long or string
	Value string `json:"value"`
}

func boolProp(name string, v bool) filterProp {
	return filterProp{name, "boolean", strconv.FormatBool(v)}
}

func longProp(name string, v int) filterProp { return filterProp{name, "long", strconv.Itoa(v)} }

// filterData is what e asks of the PDF export filter, in a fixed order;
// nil for the zero value. Landscape and Password are not export
// options.
func (e Export) filterData() []filterProp {
	var data []filterProp
	if e.PageRanges != "" {
		data = append(data, filterProp{"PageRange", "string", e.PageRanges})
	}
	if e.PDFUA {
		data = append(data, boolProp("PDFUACompliance", true))
	}
	if e.SinglePageSheets {
		data = append(data, boolProp("SinglePageSheets", true))
	}
	if e.ExportFormFields != nil {
		data = append(data, boolProp("ExportFormFields", *e.ExportFormFields))
	}
	if e.ExportBookmarks != nil {
		data = append(data, boolProp("ExportBookmarks", *e.ExportBookmarks))
	}
	if e.ExportNotes {
		data = append(data, boolProp("ExportNotes", true))
	}
	if e.LosslessImageCompression {
		data = append(data, boolProp("UseLosslessCompression", true))
	}
	if e.Quality != 0 {
		data = append(data, longProp("Quality", e.Quality))
	}
	if e.MaxImageResolution != 0 {
		data = append(data, boolProp("ReduceImageResolution", true), longProp("MaxImageResolution", e.MaxImageResolution))
	}
	if e.ExportBookmarksToPdfDestination {
		data = append(data, boolProp("ExportBookmarksToPDFDestination", true))
	}
	data = append(data, e.watermarkData()...)
	return append(data, e.optionsData()...)
}

// watermarkData is the export filter's entries for the native
// watermarks; the options of the plain one only with its text.
func (e Export) watermarkData() []filterProp {
	var data []filterProp
	if e.NativeWatermarkText != "" {
		data = append(data, filterProp{"Watermark", "string", e.NativeWatermarkText})
		for _, p := range []struct {
			name string
			v    int
		}{{"WatermarkColor", e.NativeWatermarkColor}, {"WatermarkFontHeight", e.NativeWatermarkFontHeight}, {"WatermarkRotateAngle", e.NativeWatermarkRotateAngle}} {
			if p.v != 0 {
				data = append(data, longProp(p.name, p.v))
			}
		}
		if e.NativeWatermarkFontName != "" {
			data = append(data, filterProp{"WatermarkFontName", "string", e.NativeWatermarkFontName})
		}
	}
	if e.NativeTiledWatermarkText != "" {
		data = append(data, filterProp{"TiledWatermark", "string", e.NativeTiledWatermarkText})
	}
	return data
}

// mergeProps is base with each of over replacing the entry of its name
// in place, or appended: over wins.
func mergeProps(base, over []filterProp) []filterProp {
	out := slices.Clone(base)
	for _, p := range over {
		if i := slices.IndexFunc(out, func(q filterProp) bool { return q.Name == p.Name }); i >= 0 {
			out[i] = p
		} else {
			out = append(out, p)
		}
	}
	return out
}
