package form

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"calq/convert/pdf"
)

// Limits bound what Read accepts; a zero field takes DefaultLimits' value.
type Limits struct {
	MaxBody       int64 // the whole request body, in bytes
	MaxFile       int64 // one file, in bytes
	MaxFiles      int   // file parts
	MaxFields     int   // other parts
	MaxFieldBytes int   // one field's name and value together, in bytes
	// PDF bounds each uploaded PDF's pages and what its streams inflate
	// to (pdf.CheckLimits; a zero field is pdf's default), whatever its
	// name: a file is a PDF by its content.
	PDF pdf.Limits
}

// DefaultLimits are the bounds a zero Limits field stands for.
var DefaultLimits = Limits{
	MaxBody:       256 << 20,
	MaxFile:       256 << 20,
	MaxFiles:      100,
	MaxFields:     200,
	MaxFieldBytes: 64 << 10,
}

// WithDefaults is l with DefaultLimits' value in each zero field.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits
	if l.MaxBody > 0 {
		d.MaxBody = l.MaxBody
	}
	if l.MaxFile > 0 {
		d.MaxFile = l.MaxFile
	}
	if l.MaxFiles > 0 {
		d.MaxFiles = l.MaxFiles
	}
	if l.MaxFields > 0 {
		d.MaxFields = l.MaxFields
	}
	if l.MaxFieldBytes > 0 {
		d.MaxFieldBytes = l.MaxFieldBytes
	}
	d.PDF = l.PDF // pdf applies its own defaults
	return d
}

// File is one uploaded file.
type File struct {
	Name  string // the client's base name, cleaned: for replies, never a path
	Path  string // where Read wrote it: dir/0001.docx
	Field string // the part's form field name ("files", "watermark", ...)
	Size  int64
}

// Form is a read request: its files, sorted by Name in Gotenberg's order
// (the merge order), and its fields. Its getters record every bad field,
// as Gotenberg lists them; late is a mistake Gotenberg finds only once the
// fields are read (an unknown PDF format), said when no field is bad.
type Form struct {
	Files    []File
	fields   map[string][]string
	err      *Error
	late     *Error
	noInputs string // RequireInputs's line
}

// maxNameBytes bounds a part's field name and a kept file name.
const maxNameBytes = 255

// Read streams r's multipart/form-data body: files go into dir (which must
// exist) under generated names, fields stay in memory, all within lim. A
// declared Content-Length over lim.MaxBody is refused without reading. On
// error nothing Read wrote is left in dir, and the Form, when not nil,
// holds the fields read before the error and no file (a page shows them
// again). Errors the client caused are *Error (415 not multipart, 413
// over a limit, 400 malformed); others (dir not writable) are plain
// errors.
func Read(r *http.Request, dir string, lim Limits) (*Form, error) {
	lim = lim.WithDefaults()
	if r.ContentLength > lim.MaxBody {
		return nil, tooLarge(LimitBody, "The request body exceeds the size limit of %s.", size(lim.MaxBody))
	}
	// Request.MultipartReader takes multipart/mixed too.
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "multipart/form-data" {
		return nil, notMultipart(http.ErrNotMultipart)
	}
	r.Body = http.MaxBytesReader(nil, r.Body, lim.MaxBody)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, notMultipart(err)
	}
	rd := &reader{ctx: r.Context(), dir: dir, lim: lim, form: &Form{fields: map[string][]string{}}}
	if err := rd.parts(mr); err != nil {
		rd.form.Remove()
		rd.form.Files = nil
		return rd.form, err
	}
	sortFiles(rd.form.Files)
	return rd.form, nil
}

func notMultipart(err error) error {
	msg := "Invalid 'Content-Type' header value: want 'multipart/form-data'"
	if errors.Is(err, http.ErrMissingBoundary) {
		msg = "Invalid 'Content-Type' header value: no boundary"
	}
	return &Error{Status: http.StatusUnsupportedMediaType, Msg: msg, Err: err}
}

// Remove deletes the files Read wrote; the directory itself stays.
func (f *Form) Remove() error {
	var errs []error
	for _, file := range f.Files {
		if err := os.Remove(file.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// reader holds Read's state while it walks the parts.
type reader struct {
	ctx    context.Context
	dir    string
	lim    Limits
	form   *Form
	fields int
}

func (rd *reader) parts(mr *multipart.Reader) error {
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return rd.bodyError(err)
		}
		err = rd.part(p)
		p.Close()
		if err != nil {
			return err
		}
	}
}

// bodyError tells a body over MaxBody from a malformed one.
func (rd *reader) bodyError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return &Error{Status: http.StatusRequestEntityTooLarge,
			Msg: fmt.Sprintf("The request body exceeds the size limit of %s.", size(rd.lim.MaxBody)), Err: err, Limit: LimitBody}
	}
	var fe *Error
	if errors.As(err, &fe) {
		return fe
	}
	return &Error{Status: http.StatusBadRequest,
		Msg: "Malformed body: it does not match the 'Content-Type' header boundaries.", Err: err}
}

func (rd *reader) part(p *multipart.Part) error {
	name, filename, isFile, err := disposition(p.Header.Get("Content-Disposition"))
	if err != nil {
		return &Error{Status: http.StatusBadRequest,
			Msg: "Malformed body: a part's 'Content-Disposition' header is invalid.", Err: err}
	}
	if len(name) > maxNameBytes {
		return &Error{Status: http.StatusBadRequest,
			Msg: fmt.Sprintf("Malformed body: a part's field name is longer than %d bytes.", maxNameBytes)}
	}
	if isFile {
		return rd.file(p, name, filename)
	}
	return rd.field(p, name)
}

// disposition reads a part's form field name and file name itself:
// multipart.Part.FileName applies filepath.Base, which keeps `a\b` whole on
// Unix, and calq cleans names the same way on every system.
func disposition(h string) (name, filename string, isFile bool, err error) {
	if h == "" {
		return "", "", false, nil
	}
	d, params, err := mime.ParseMediaType(h)
	if err != nil {
		return "", "", false, err
	}
	if d != "form-data" {
		return "", "", false, nil
	}
	filename, isFile = params["filename"]
	return params["name"], filename, isFile, nil
}

func (rd *reader) field(p *multipart.Part, name string) error {
	rd.fields++
	if rd.fields > rd.lim.MaxFields {
		return tooLarge(LimitFields, "The request has more than %d form fields.", rd.lim.MaxFields)
	}
	budget := int64(rd.lim.MaxFieldBytes - len(name))
	b, err := io.ReadAll(io.LimitReader(p, budget+1))
	if err != nil {
		return rd.bodyError(err)
	}
	if int64(len(b)) > budget {
		return tooLarge(LimitFields, "Form field %s exceeds the size limit of %s.", quote(name), size(int64(rd.lim.MaxFieldBytes)))
	}
	if name != "" {
		rd.form.fields[name] = append(rd.form.fields[name], string(b))
	}
	return nil
}

func (rd *reader) file(p *multipart.Part, field, filename string) error {
	err := rd.form.store(rd.ctx, rd.dir, rd.lim, field, filename, p)
	var re *readError
	if errors.As(err, &re) {
		return rd.bodyError(re.err)
	}
	return err
}

// diskName is the n-th file's name in dir: a counter plus the lower-cased
// extension of the client's name when it is short and alphanumeric, so that
// converters that go by extension see it, and nothing else of the client's
// name reaches the file system.
func diskName(n int, name string) string {
	base := fmt.Sprintf("%04d", n)
	ext := strings.ToLower(filepath.Ext(name))
	if len(ext) < 2 || len(ext) > 9 {
		return base
	}
	for _, c := range ext[1:] {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return base
		}
	}
	return base + ext
}

// BaseName is what calq keeps of a client's file name: the last segment
// after any '/' or '\', without control characters or invalid UTF-8, at most
// 255 bytes (the extension kept), and "file" when nothing is left or only
// "." or "..". It is meant for replies (zip entries, Content-Disposition),
// never for a path.
func BaseName(s string) string {
	if s = cleanName(s); s == "" {
		return "file"
	}
	return s
}

// cleanName is BaseName, "" when nothing usable is left.
func cleanName(s string) string {
	if i := strings.LastIndexAny(s, `/\`); i >= 0 {
		s = s[i+1:]
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	if s == "." || s == ".." {
		return ""
	}
	return cutName(s, maxNameBytes)
}

// cutName shortens s to at most max bytes on a rune boundary, keeping a
// short extension.
func cutName(s string, max int) string {
	if len(s) <= max {
		return s
	}
	ext := filepath.Ext(s)
	if len(ext) > 16 {
		ext = ""
	}
	stem := s[:len(s)-len(ext)]
	keep := max - len(ext)
	for keep > 0 && !utf8RuneStart(stem[keep]) {
		keep--
	}
	return stem[:keep] + ext
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// reserved are the file fields Gotenberg does not treat as inputs.
var reserved = []string{"watermark", "stamp", "embeds", "facturxXml"}

// RequireInputs records that the form has no file to work on, listing
// the extensions the route takes. Err says it where the route's reader
// calls inputsRead, else last: Gotenberg's routes read the PDF fields
// they share, then the files, then their own fields, and list the
// mistakes in that order.
func (f *Form) RequireInputs(exts []string) {
	if len(f.Inputs()) == 0 {
		f.noInputs = fmt.Sprintf("no form file found for extensions: %v", exts)
	}
}

// inputsRead puts the lack of files (RequireInputs) after the mistakes
// recorded so far and before those recorded next.
func (f *Form) inputsRead() {
	if f.noInputs != "" {
		f.fail(badRequest("%s", f.noInputs))
		f.noInputs = ""
	}
}

// Inputs are the files to convert or process, in order: all but those
// uploaded under the fields Gotenberg reserves (watermark, stamp, embeds,
// facturxXml).
func (f *Form) Inputs() []File {
	var in []File
	for _, file := range f.Files {
		if !slices.Contains(reserved, file.Field) {
			in = append(in, file)
		}
	}
	return in
}
