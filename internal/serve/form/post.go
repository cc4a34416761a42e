package form

import (
	"encoding/json"
	"errors"

	"calq/convert/pdf"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
)

// Post is the PDF post-processing a request asks for. Gotenberg applies it
// in this order: split, watermark, stamp, rotate, flatten, PDF/A, metadata,
// encryption last. Nil or false steps are not asked for.
type Post struct {
	Split     *Split
	Watermark *Mark
	Stamp     *Mark
	Rotate    *Rotation
	Flatten   bool
	Metadata  map[string]any // a JSON object; numbers are json.Number
	Encrypt   *Encryption

	// Watermarks and Stamps are those after Watermark and Stamp when
	// the fields are repeated, in order.
	Watermarks, Stamps []Mark
	// Embeds are the files uploaded as embeds, to attach to the PDFs.
	Embeds []pdf.Attachment
	// Bookmarks replace the outline of every PDF; FileBookmarks, by the
	// client's file name, that of the PDFs it names. One at most is set.
	Bookmarks     []pdf.Bookmark
	FileBookmarks map[string][]pdf.Bookmark
	// Optimize rewrites the PDF's structure compactly; Images re-encodes
	// its raster images.
	Optimize bool
	Images   *pdf.Images
	// FacturX makes a PDF/A-3 a Factur-X invoice (pdfengines/factur-x).
	FacturX *pdf.FacturX
}

// Split cuts each PDF: Mode "intervals" makes a PDF every Span pages (Span
// a count), Mode "pages" makes a PDF of each page range in Span ("1-3,5"),
// or with Unify one PDF of all of them.
type Split struct {
	Mode  string
	Span  string
	Unify bool
}

// Mark is a watermark (behind the content) or a stamp (over it).
type Mark struct {
	Source      string // "text", "image" or "pdf"
	Text        string // the text, for Source "text"
	File        string // the uploaded image or PDF's path, for the others
	Pages       string // pdfcpu's page selection ("1-3,5", "odd"); "" all
	Description string // pdfcpu's description ("opacity:0.5, rotation:45"), keys sorted; "" its default
}

// Rotation turns pages clockwise by Angle (90, 180 or 270) degrees.
type Rotation struct {
	Angle int
	Pages string // pdfcpu's page selection; "" all
}

// Encryption protects a PDF with passwords (either may be empty, not both)
// and restricts what a reader without the owner password may do.
type Encryption struct {
	UserPassword, OwnerPassword string
	Permissions                 Permissions
}

// Permissions are Gotenberg's allow* fields; each defaults to allowed.
type Permissions struct {
	AllowPrinting, AllowCopying, AllowModifying, AllowAnnotating, AllowFillingForms, AllowAssembling bool
}

// pdfFormats reads pdfa ("PDF/A-1b" → 1, 2 or 3; 0 when absent) and
// pdfua. An unknown format is refused in the sentence of Gotenberg's
// route: office says the LibreOffice route's, naming the format.
func (f *Form) pdfFormats(office bool) (pdfa int, pdfua bool) {
	formats := []string{"PDF/A-1b", "PDF/A-2b", "PDF/A-3b"}
	if v := f.Value("pdfa"); v != "" {
		pdfa = slices.IndexFunc(formats, func(s string) bool { return strings.EqualFold(s, v) }) + 1
		if pdfa == 0 && office {
			f.failLate(&Error{Status: http.StatusBadRequest, Msg: "The PDF format " + quote(v) + " is not supported. " + validFormats})
		} else if pdfa == 0 {
			f.failLate(&Error{Status: http.StatusBadRequest, Msg: "The requested PDF format is not supported, or no PDF engine could apply it. " + validFormats})
		}
	}
	return pdfa, f.Bool("pdfua")
}

// validFormats ends Gotenberg's refusals of a PDF format.
const validFormats = "Valid formats include PDF/A-1b, PDF/A-2b, PDF/A-3b, and PDF/UA."

// BadSplitSpan is Gotenberg's refusal of a page selection its engine
// cannot split by.
var BadSplitSpan = &Error{Status: http.StatusBadRequest,
	Msg: "The requested split mode is not supported, or no PDF engine could process it. Valid modes: 'intervals', 'pages'."}

// post reads the steps the merge, split and LibreOffice routes share, in
// Gotenberg's order; the split is read by the caller, and flatten, which
// Gotenberg reads after the files, too.
func (f *Form) post(pdfa int) Post {
	p := Post{
		Metadata: f.JSONObject("metadata"),
		Encrypt:  f.encryption(),
		Embeds:   f.embeds(),
	}
	p.Watermark, p.Watermarks = first(f.marks("watermark", false))
	p.Stamp, p.Stamps = first(f.marks("stamp", false))
	p.Rotate = f.rotation(false)
	if pdfa != 0 && p.Encrypt != nil && p.Encrypt.UserPassword != "" {
		f.fail(badRequest("PDF/A format is incompatible with encryption"))
	}
	// imageQuality is checked even when optimizeImages does not ask for
	// the images to be re-encoded, as Gotenberg does.
	if q := f.imageQuality(); f.Bool("optimizeImages") {
		p.Images = &pdf.Images{Quality: q, MaxResolution: f.maxImageResolution()}
	}
	if f.Has("facturxConformanceLevel") || slices.ContainsFunc(f.Files, func(file File) bool { return file.Field == "facturxXml" }) {
		p.FacturX = f.facturX() // made PDF/A-3b when no PDF/A is asked for
	}
	return p
}

// defaultImageQuality is the JPEG quality of re-encoded images when
// imageQuality is not given, Gotenberg's.
const defaultImageQuality = 80

// images reads imageQuality (1 to 100) and maxImageResolution (pixels
// per inch of the largest page, 0 or absent for no bound).
func (f *Form) images() *pdf.Images {
	return &pdf.Images{Quality: f.imageQuality(), MaxResolution: f.maxImageResolution()}
}

func (f *Form) imageQuality() int { return f.IntRange("imageQuality", defaultImageQuality, 1, 100) }

func (f *Form) maxImageResolution() int { return f.IntRange("maxImageResolution", 0, 1, 2400) }

// split reads splitMode, splitSpan and splitUnify; nil when no split is
// asked for and none is required.
func (f *Form) split(required bool) *Split {
	if required {
		f.Require("splitMode")
		f.Require("splitSpan")
	}
	mode := strings.ToLower(f.Value("splitMode"))
	switch mode {
	case "":
		return nil
	case "intervals", "pages":
	default:
		f.fail(badRequest("form field 'splitMode' is invalid (got %s, resulting to wrong value, expected either 'intervals' or 'pages')",
			quote(f.Value("splitMode"))))
		return nil
	}
	f.Require("splitSpan")
	s := &Split{Mode: mode, Span: strings.Join(strings.Fields(f.Value("splitSpan")), ""), Unify: f.Bool("splitUnify")}
	switch {
	case mode == "intervals":
		s.Span = fmt.Sprint(f.IntRange("splitSpan", 1, 1, maxInt))
	case s.Span != "" && !isPageSelection(s.Span):
		f.failLate(BadSplitSpan)
	}
	if s.Unify && mode != "pages" {
		f.Invalid("splitUnify", "false with splitMode 'intervals'")
	}
	return s
}

// marks reads {prefix}Source, Expression, Pages and Options: watermarks
// or stamps, one for each {prefix}Source, the other fields paired with
// it by position (a missing one is empty). Each image or PDF takes the
// next file uploaded as field prefix, in order.
func (f *Form) marks(prefix string, required bool) []Mark {
	src := prefix + "Source"
	if required {
		f.Require(src)
	}
	sources := f.Values(src)
	if len(sources) > maxMarks {
		f.fail(badRequest("form field '%s' is repeated %d times, over calq's %d", src, len(sources), maxMarks))
		return nil
	}
	var files []string
	for _, file := range f.Files {
		if file.Field == prefix {
			files = append(files, file.Path)
		}
	}
	var ms []Mark
	for i, source := range sources {
		m, ok := f.mark(prefix, i, source)
		if !ok {
			return nil
		}
		if m.Source != "text" {
			if len(files) == 0 {
				f.fail(badRequest("a %s file is required for image or pdf source", prefix))
				return nil
			}
			m.File, files = files[0], files[1:]
		}
		ms = append(ms, m)
	}
	return ms
}

// maxMarks bounds the watermarks or stamps of one request.
const maxMarks = 20

// mark reads the i-th watermark or stamp, whose source is source.
func (f *Form) mark(prefix string, i int, source string) (Mark, bool) {
	if source != "text" && source != "image" && source != "pdf" {
		f.fail(badRequest("form field '%sSource' is invalid (got %s, want 'text', 'image' or 'pdf')", prefix, quote(source)))
		return Mark{}, false
	}
	at := func(name string) string {
		if vs := f.Values(prefix + name); i < len(vs) {
			return vs[i]
		}
		return ""
	}
	m := Mark{Source: source, Pages: f.pageValue(prefix+"Pages", at("Pages")), Description: f.descriptionValue(prefix+"Options", at("Options"))}
	if source == "text" {
		if m.Text = at("Expression"); m.Text == "" {
			f.fail(badRequest("form field '%sExpression' is required", prefix))
			return Mark{}, false
		}
	}
	return m, f.Err() == nil
}

// first splits marks into the first and the rest.
func first(ms []Mark) (*Mark, []Mark) {
	switch len(ms) {
	case 0:
		return nil, nil
	case 1:
		return &ms[0], nil
	}
	return &ms[0], ms[1:]
}

// optionsWant is what watermarkOptions and stampOptions hold.
const optionsWant = "a JSON object of pdfcpu options with plain values"

// description turns an options JSON object into pdfcpu's description
// string, keys sorted so that the same request gives the same string.
func (f *Form) description(name string) string {
	return f.descriptionValue(name, f.Value(name))
}

// descriptionValue is description for one of the field's values.
func (f *Form) descriptionValue(name, raw string) string {
	var opts map[string]any
	if !f.jsonValue(name, raw, optionsWant, &opts) || len(opts) == 0 {
		return ""
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v, ok := plainValue(opts[k])
		if !ok || k == "" || strings.ContainsAny(k, ":,") || !printable(k) || strings.Contains(v, ",") || !printable(v) {
			f.invalidValue(name, raw, optionsWant)
			return ""
		}
		parts = append(parts, k+":"+v)
	}
	return strings.Join(parts, ", ")
}

// plainValue is a JSON string, number or boolean as text.
func plainValue(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	case bool:
		return fmt.Sprint(v), true
	}
	return "", false
}

func printable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return false
		}
	}
	return true
}

// rotation reads rotateAngle and rotatePages; nil when no angle is given.
func (f *Form) rotation(required bool) *Rotation {
	if required {
		f.Require("rotateAngle")
	}
	angle := f.IntCheck("rotateAngle", 0, func(n int) error {
		if n != 90 && n != 180 && n != 270 {
			return errors.New("wrong value, expected 90, 180, or 270") // Gotenberg's words
		}
		return nil
	})
	if angle == 0 {
		return nil
	}
	return &Rotation{Angle: angle, Pages: f.pages("rotatePages")}
}

// pages reads a pdfcpu page selection.
func (f *Form) pages(name string) string { return f.pageValue(name, f.Value(name)) }

// pageValue is pages for one of the field's values.
func (f *Form) pageValue(name, raw string) string {
	v := strings.TrimSpace(raw)
	if v != "" && !isPageSelection(v) {
		f.fail(badRequest("form field '%s' is invalid (got %s, want pages like '1-3,5', 'even' or 'odd')", name, quote(raw)))
		return ""
	}
	return v
}

// isPageSelection accepts the characters of pdfcpu's and LibreOffice's page
// selections (numbers, ranges, lists, "even", "odd", "l" for last, "!" to
// exclude), so that nothing else reaches them.
func isPageSelection(s string) bool {
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || strings.ContainsRune("-,;! ", r)) {
			return false
		}
	}
	return s != ""
}

// encryption reads userPassword, ownerPassword and the allow* fields; nil
// when no password is given. Restricting without a password is an error.
func (f *Form) encryption() *Encryption {
	e := &Encryption{
		UserPassword:  f.Value("userPassword"),
		OwnerPassword: f.Value("ownerPassword"),
		Permissions: Permissions{
			AllowPrinting:     f.BoolOr("allowPrinting", true),
			AllowCopying:      f.BoolOr("allowCopying", true),
			AllowModifying:    f.BoolOr("allowModifying", true),
			AllowAnnotating:   f.BoolOr("allowAnnotating", true),
			AllowFillingForms: f.BoolOr("allowFillingForms", true),
			AllowAssembling:   f.BoolOr("allowAssembling", true),
		},
	}
	if e.UserPassword != "" || e.OwnerPassword != "" {
		return e
	}
	if e.Permissions != (Permissions{true, true, true, true, true, true}) {
		f.fail(badRequest("permission restrictions require a 'userPassword' or 'ownerPassword'"))
	}
	return nil
}

// onlyInt rejects an integer field asking for other than what calq does.
func (f *Form) onlyInt(name string, honoured int) {
	if f.Has(name) && f.Int(name, honoured) != honoured {
		f.Unsupported(name, fmt.Sprintf("'%d'", honoured))
	}
}

// unsupported rejects fields calq cannot honour whatever their value.
func (f *Form) unsupported(names ...string) {
	for _, n := range names {
		if f.Has(n) {
			f.Unsupported(n, "")
		}
	}
}

// unsupportedFiles rejects files uploaded under fields calq cannot honour.
func (f *Form) unsupportedFiles(fields ...string) {
	for _, file := range f.Files {
		if slices.Contains(fields, file.Field) {
			f.fail(badRequest("form file field '%s' is not supported by calq", file.Field))
		}
	}
}
