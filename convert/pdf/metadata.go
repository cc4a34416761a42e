package pdf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// Metadata is the document information to set; empty fields are left as
// they are. Trapped is "True", "False" or "Unknown". Other keys of the
// information dictionary are Post.CustomMetadata: Metadata stays
// comparable, which calq convert relies on. The fields added after the
// first four are omitted from JSON when unset (see Post).
//
// pdfcpu sets Producer, CreationDate and ModDate itself on every save, so
// when one of them is given Apply writes the three as an incremental update
// after its last step, as ExifTool (Gotenberg's metadata writer) does; the
// values then stand in the file's last information dictionary, which is
// the one readers use.
type Metadata struct {
	Title, Author, Subject, Keywords string
	Creator                          string    `json:",omitempty"`
	Producer                         string    `json:",omitempty"`
	CreationDate                     time.Time `json:",omitzero"`
	ModDate                          time.Time `json:",omitzero"`
	Trapped                          string    `json:",omitempty"`
	// Marked is "true" or "false": the catalog's /MarkInfo /Marked, which
	// says the PDF is tagged.
	Marked string `json:",omitempty"`
}

// standardKeys are the information dictionary's keys that Metadata has a
// field for; Post.CustomMetadata may not use them.
var standardKeys = []string{"Title", "Author", "Subject", "Keywords", "Creator", "Producer", "CreationDate", "ModDate", "Trapped"}

func (m *Metadata) check() error {
	switch m.Trapped {
	case "", "True", "False", "Unknown":
	default:
		return &FieldError{Field: "metadata", Value: m.Trapped, Err: errors.New("Trapped must be True, False or Unknown")}
	}
	switch m.Marked {
	case "", "true", "false":
	default:
		return &FieldError{Field: "metadata", Value: m.Marked, Err: errors.New("Marked must be true or false")}
	}
	props := m.strings(nil)
	props["Producer"] = m.Producer
	return checkValues(props)
}

// checkValues refuses a value holding a control character: a line break
// in a value would end it early in a reader's view (XMP, a tool's
// listing) and forge a second key after it.
func checkValues(props map[string]string) error {
	for k, v := range props {
		if hasControl(v) {
			return &FieldError{Field: "metadata", Value: k, Err: errors.New("its value holds a control character (a line break, a tab or NUL)")}
		}
	}
	return nil
}

// checkCustom checks the keys of Post.CustomMetadata.
func checkCustom(custom map[string]string) error {
	for k := range custom {
		switch {
		case k == "":
			return &FieldError{Field: "metadata", Value: k, Err: errors.New("a custom key must not be empty")}
		case isStandardKey(k):
			return &FieldError{Field: "metadata", Value: k, Err: errors.New("a standard key, not a custom one")}
		case strings.ContainsFunc(k, func(r rune) bool { return r <= ' ' || r > '~' || strings.ContainsRune("/()<>[]{}%#", r) }):
			return &FieldError{Field: "metadata", Value: k, Err: errors.New("a key must be printable ASCII without spaces or PDF delimiters")}
		}
	}
	return checkValues(custom)
}

func isStandardKey(k string) bool {
	for _, s := range standardKeys {
		if strings.EqualFold(k, s) {
			return true
		}
	}
	return false
}

// rewritten says whether m sets a key that pdfcpu overwrites on save.
func (m *Metadata) rewritten() bool {
	return m.Producer != "" || !m.CreationDate.IsZero() || !m.ModDate.IsZero()
}

// strings returns the string-valued keys m sets and the custom ones.
func (m *Metadata) strings(custom map[string]string) map[string]string {
	props := map[string]string{}
	for k, v := range custom {
		props[k] = v
	}
	for k, v := range map[string]string{"Title": m.Title, "Author": m.Author, "Subject": m.Subject, "Keywords": m.Keywords, "Creator": m.Creator} {
		if v != "" {
			props[k] = v
		}
	}
	return props
}

// apply returns the step writing the keys pdfcpu keeps, and custom, into
// the Info dictionary, where pdfcpu (and Inspect) read them.
func (m *Metadata) apply(custom map[string]string) func(rs io.ReadSeeker, w io.Writer) error {
	return func(rs io.ReadSeeker, w io.Writer) error {
		ctx, err := readFrom(rs, "", model.ADDPROPERTIES)
		if err != nil {
			return err
		}
		if err := pdfcpu.PropertiesAdd(ctx, m.strings(custom)); err != nil {
			return err
		}
		if m.Trapped != "" {
			info, err := ctx.DereferenceDict(*ctx.Info)
			if err != nil {
				return err
			}
			info["Trapped"] = types.Name(m.Trapped)
		}
		if m.Marked != "" {
			if err := setMarked(ctx.XRefTable, m.Marked == "true"); err != nil {
				return err
			}
		}
		return api.WriteContext(ctx, w)
	}
}

// increment returns the step that copies its input and appends an
// incremental update setting Producer, CreationDate and ModDate, which
// pdfcpu's ordinary save would overwrite. enc, when set, is the
// encryption the previous steps applied: its owner password opens the
// file to encrypt the new strings.
func (m *Metadata) increment(enc *Encryption) func(rs io.ReadSeeker, w io.Writer) error {
	return func(rs io.ReadSeeker, w io.Writer) error {
		password := ""
		if enc != nil {
			var err error
			if password, err = preparePassword(enc.OwnerPassword); err != nil {
				return err
			}
		}
		ctx, err := readFrom(rs, password, model.ADDPROPERTIES)
		if err != nil {
			return err
		}
		if ctx.Info == nil {
			return errors.New("the PDF has no information dictionary")
		}
		info, err := ctx.DereferenceDict(*ctx.Info)
		if err != nil {
			return err
		}
		if m.Producer != "" {
			s, err := types.EscapedUTF16String(m.Producer)
			if err != nil {
				return err
			}
			info["Producer"] = types.StringLiteral(*s)
		}
		for k, t := range map[string]time.Time{"CreationDate": m.CreationDate, "ModDate": m.ModDate} {
			if !t.IsZero() {
				info[k] = types.StringLiteral(types.DateString(t))
			}
		}
		ctx.Write.Increment = true
		ctx.Write.Offset = ctx.Read.FileSize
		ctx.Write.IncrementWithObjNr(ctx.Info.ObjectNumber.Value())
		if _, err := rs.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if _, err := io.Copy(w, rs); err != nil {
			return err
		}
		return api.WriteIncrement(ctx, w)
	}
}

// readFrom reads and validates a PDF for the pdfcpu command cmd, opening
// it with password.
func readFrom(rs io.ReadSeeker, password string, cmd model.CommandMode) (*model.Context, error) {
	conf := newConf(password)
	conf.Cmd = cmd
	return api.ReadAndValidate(rs, conf)
}

// ReadMetadata returns the document information of the PDF at path, as
// Gotenberg's metadata/read does: every key of the information dictionary
// (Title, Author, Subject, Keywords, Creator, Producer, Trapped, custom
// keys), CreationDate and ModDate in RFC 3339 when they parse (else as
// written), plus PDFVersion ("1.7") and PageCount. XMP metadata is not
// read. A PDF that needs a password gives ErrEncrypted.
func ReadMetadata(ctx context.Context, path string) (map[string]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read metadata of %s: %w", path, err)
	}
	pc, err := readContext(path, "", model.LISTPROPERTIES)
	if err != nil {
		return nil, fmt.Errorf("read metadata of %s: %w", path, err)
	}
	meta := map[string]string{
		"PDFVersion": pc.XRefTable.Version().String(),
		"PageCount":  strconv.Itoa(pc.PageCount),
	}
	if marked, ok := isMarked(pc.XRefTable); ok {
		meta["Marked"] = strconv.FormatBool(marked)
	}
	if pc.Info == nil {
		return meta, nil
	}
	info, err := pc.DereferenceDict(*pc.Info)
	if err != nil {
		return nil, fmt.Errorf("read metadata of %s: information dictionary: %w", path, err)
	}
	for k, v := range info {
		s, ok := infoValue(pc.XRefTable, v)
		if !ok {
			continue
		}
		if k == "CreationDate" || k == "ModDate" {
			if t, ok := types.DateTime(s, true); ok {
				s = t.Format(time.RFC3339)
			}
		}
		meta[k] = s
	}
	return meta, nil
}

// infoValue decodes a string or name, following an indirect reference;
// other types give false.
func infoValue(xt *model.XRefTable, o types.Object) (string, bool) {
	o, err := xt.Dereference(o)
	if err != nil {
		return "", false
	}
	switch v := o.(type) {
	case types.StringLiteral:
		s, err := types.StringLiteralToString(v)
		return s, err == nil
	case types.HexLiteral:
		s, err := types.HexLiteralToString(v)
		return s, err == nil
	case types.Name:
		return v.Value(), true
	}
	return "", false
}

// setMarked sets the catalog's /MarkInfo /Marked.
func setMarked(xt *model.XRefTable, marked bool) error {
	cat, err := xt.Catalog()
	if err != nil {
		return err
	}
	mi, err := xt.DereferenceDict(cat["MarkInfo"])
	if err != nil || mi == nil {
		mi = types.Dict{}
		cat["MarkInfo"] = mi
	}
	mi["Marked"] = types.Boolean(marked)
	return nil
}

// isMarked reads the catalog's /MarkInfo /Marked; false when absent.
func isMarked(xt *model.XRefTable) (marked, ok bool) {
	cat, err := xt.Catalog()
	if err != nil {
		return false, false
	}
	mi, err := xt.DereferenceDict(cat["MarkInfo"])
	if err != nil || mi == nil {
		return false, false
	}
	b := mi.BooleanEntry("Marked")
	return b != nil && *b, b != nil
}
