package form

import (
	"net/http"
	"strings"
	"unicode"
)

// LibreOfficeOptions are the fields of POST /forms/libreoffice/convert.
type LibreOfficeOptions struct {
	Landscape                bool
	PageRanges               string // nativePageRanges: "1-4", "1,3,5-7"; "" all pages
	PDFA                     int    // 1, 2 or 3 for PDF/A-1b, -2b, -3b; 0 none
	PDFUA                    bool
	SinglePageSheets         bool
	ExportFormFields         *bool // nil: LibreOffice's default (true)
	ExportBookmarks          *bool // nil: LibreOffice's default (true)
	ExportNotes              bool
	LosslessImageCompression bool
	Quality                  int // JPEG quality 1-100; 0: LibreOffice's default (90)
	// MaxImageResolution is 75, 150, 300, 600 or 1200 DPI when
	// reduceImageResolution is true (maxImageResolution, default 300), as
	// in Gotenberg, which ignores maxImageResolution otherwise; 0 no reduction.
	MaxImageResolution int
	// ExportBookmarksToPdfDestination exports bookmarks as named
	// destinations too.
	ExportBookmarksToPdfDestination bool
	NativeWatermark                 NativeWatermark
	// Options are LibreOffice's other export options (lo.FilterFields)
	// the form sets, by field name, as lo.Export.Options keeps them.
	Options map[string]string
	// UpdateIndexes refreshes the indexes before the export; Gotenberg's
	// default is true, calq's false (see lo.Export.UpdateIndexes).
	UpdateIndexes bool
	Password      string // opens a password-protected source
	Merge         bool
	MailTo        []string // calq's extension: mailTo, comma-separated
	Post
}

// NativeWatermark is LibreOffice's own watermark: nativeWatermarkText
// and its options (read only with it), nativeTiledWatermarkText.
type NativeWatermark struct {
	Text        string
	Color       int // 0xRRGGBB; Gotenberg's 8388223 (light green) by default
	FontHeight  int // points; 0 fitted to the page
	RotateAngle int // tenths of a degree
	FontName    string
	Tiled       string
}

// defaultWatermarkColor is Gotenberg's default for nativeWatermarkColor.
const defaultWatermarkColor = 8388223

// nativeWatermark reads LibreOffice's watermark fields.
func (f *Form) nativeWatermark() NativeWatermark {
	w := NativeWatermark{Text: f.Value("nativeWatermarkText"), Tiled: f.Value("nativeTiledWatermarkText")}
	color := f.IntRange("nativeWatermarkColor", defaultWatermarkColor, 0, 0xFFFFFF)
	height := f.IntRange("nativeWatermarkFontHeight", 0, 0, 1000)
	angle := f.IntRange("nativeWatermarkRotateAngle", 0, -3600, 3600)
	if w.Text != "" {
		w.Color, w.FontHeight, w.RotateAngle, w.FontName = color, height, angle, f.Value("nativeWatermarkFontName")
	}
	for _, name := range []string{"nativeWatermarkText", "nativeWatermarkFontName", "nativeTiledWatermarkText"} {
		if strings.ContainsFunc(f.Value(name), unicode.IsControl) {
			f.Invalid(name, "text without control characters")
		}
	}
	return w
}

// LibreOffice reads the fields of /forms/libreoffice/convert. Unknown
// fields are ignored; a bad value, or a feature calq cannot honour, is a
// 400 *Error naming the field. The fields are read in Gotenberg's order,
// which is the order of the lines of its refusal: the PDF fields its
// routes share, the files, then the route's own.
func LibreOffice(f *Form) (LibreOfficeOptions, error) {
	var o LibreOfficeOptions
	o.PDFA, o.PDFUA = f.pdfFormats(true)
	split := f.split(false)
	o.Post = f.post(o.PDFA)
	o.Post.Split = split
	f.inputsRead()
	f.officeFields(&o)
	o.NativeWatermark = f.nativeWatermark()
	f.BoolOr("nativePdfFormats", true) // how Gotenberg makes PDF/A; calq always lets LibreOffice
	o.Merge = f.Bool("merge")
	o.Post.Flatten = f.Bool("flatten")
	o.MailTo = Recipients(f.Value("mailTo"))
	return o, f.Err()
}

// pageRanges reads nativePageRanges.
func (f *Form) pageRanges() string {
	v := strings.TrimSpace(f.Value("nativePageRanges"))
	for _, r := range v {
		if !(r >= '0' && r <= '9' || strings.ContainsRune("-,; ", r)) {
			f.badPageRanges(v)
			return ""
		}
	}
	return v
}

// badPageRanges refuses nativePageRanges in Gotenberg's sentence, which
// names the first document LibreOffice would have been given them with.
func (f *Form) badPageRanges(v string) {
	doc := ""
	if in := f.Inputs(); len(in) > 0 {
		doc = in[0].Name
	}
	f.failLate(&Error{Status: http.StatusBadRequest, Msg: "LibreOffice could not apply the page ranges " + quote(v) +
		" to the document " + quote(doc) + ". Check the 'nativePageRanges' form field; valid values look like '1-4', '2' or '1,3,5-7'."})
}

// Recipients splits a field of recipients (calq's mailTo and smsTo:
// comma-separated) into its trimmed, non-empty entries.
func Recipients(v string) []string {
	var to []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			to = append(to, s)
		}
	}
	return to
}
