package pdf

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// Attachment is a file embedded in a PDF (Post.Embeds): the file at Path,
// named Name in the PDF. MimeType, when set, is its /Subtype;
// Relationship, when set, its /AFRelationship (PDF/A-3's associated
// files: Source, Data, Alternative, Supplement, EncryptedPayload,
// FormData, Schema or Unspecified). Every attachment is also listed in
// the catalog's /AF, as PDF/A-3 asks.
type Attachment struct {
	Path, Name   string
	MimeType     string `json:",omitempty"`
	Relationship string `json:",omitempty"`
}

// Relationships are the values of /AFRelationship, as PDF 2.0 and
// PDF/A-3 define them.
var Relationships = []string{"Source", "Data", "Alternative", "Supplement", "EncryptedPayload", "FormData", "Schema", "Unspecified"}

// maxAttachmentName bounds an attachment's name, in bytes.
const maxAttachmentName = 255

func (a Attachment) check() error {
	fail := func(format string, args ...any) error {
		return &FieldError{Field: "embeds", Value: a.Name, Err: fmt.Errorf(format, args...)}
	}
	switch {
	case a.Path == "":
		return fail("no file")
	case a.Name == "" || a.Name == "." || a.Name == "..":
		return fail("a file name is required")
	case len(a.Name) > maxAttachmentName:
		return fail("a name may have %d bytes at most", maxAttachmentName)
	case hasControl(a.Name) || strings.ContainsAny(a.Name, `/\`):
		return fail("a name may not hold control characters nor slashes")
	case a.Relationship != "" && !slices.Contains(Relationships, a.Relationship):
		return fail("relationship %q: want one of %s", a.Relationship, strings.Join(Relationships, ", "))
	}
	if a.MimeType != "" {
		if _, _, err := mime.ParseMediaType(a.MimeType); err != nil || hasControl(a.MimeType) || strings.ContainsAny(a.MimeType, " ;") {
			return fail("mime type %q: want a type such as text/xml", a.MimeType)
		}
	}
	return nil
}

// checkEmbeds refuses bad attachments and two of the same name, which
// the PDF's name tree would keep only one of.
func checkEmbeds(embeds []Attachment) error {
	seen := map[string]bool{}
	for _, a := range embeds {
		if err := a.check(); err != nil {
			return err
		}
		if seen[a.Name] {
			return &FieldError{Field: "embeds", Value: a.Name, Err: errors.New("two files have this name")}
		}
		seen[a.Name] = true
	}
	return nil
}

// embed returns the step that attaches embeds; one of the same name
// already in the PDF is replaced.
func embed(embeds []Attachment) func(rs io.ReadSeeker, w io.Writer) error {
	return func(rs io.ReadSeeker, w io.Writer) error {
		ctx, err := readFrom(rs, "", model.ADDATTACHMENTS)
		if err != nil {
			return err
		}
		for _, a := range embeds {
			if err := attach(ctx, a); err != nil {
				return fmt.Errorf("embed %s: %w", a.Name, err)
			}
		}
		return api.WriteContext(ctx, w)
	}
}

// attach adds a to the EmbeddedFiles name tree and to the catalog's /AF.
func attach(ctx *model.Context, a Attachment) error {
	f, err := os.Open(a.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	xt := ctx.XRefTable
	if _, err := ctx.RemoveAttachments([]string{a.Name}); err != nil {
		return err
	}
	if err := xt.LocateNameTree("EmbeddedFiles", true); err != nil {
		return err
	}
	mod := fi.ModTime()
	d, err := xt.NewFileSpecDictForAttachment(model.Attachment{Reader: f, ID: a.Name, FileName: filepath.Base(a.Name), ModTime: &mod})
	if err != nil {
		return err
	}
	// pdfcpu adds an empty collection item, which PDF 1.7 introduced: a
	// PDF 1.6 (LibreOffice's PDF/A-3) would fail its own validation.
	d.Delete("CI")
	if a.Relationship != "" {
		d["AFRelationship"] = types.Name(a.Relationship)
	}
	if a.MimeType != "" {
		if err := setSubtype(xt, d, a.MimeType); err != nil {
			return err
		}
	}
	ir, err := xt.IndRefForNewObject(d)
	if err != nil {
		return err
	}
	if err := xt.Names["EmbeddedFiles"].Add(xt, a.Name, *ir, model.NameMap{a.Name: []types.Dict{d}}, []string{"F", "UF"}); err != nil {
		return err
	}
	return addAF(xt, *ir)
}

// setSubtype sets the embedded file stream's /Subtype, a MIME type
// written as a PDF name.
func setSubtype(xt *model.XRefTable, spec types.Dict, mimeType string) error {
	ef := spec.DictEntry("EF")
	if ef == nil {
		return errors.New("file specification without /EF")
	}
	ir := ef.IndirectRefEntry("F")
	if ir == nil {
		return errors.New("file specification without /EF /F")
	}
	sd, _, err := xt.DereferenceStreamDict(*ir)
	if err != nil || sd == nil {
		return fmt.Errorf("embedded file stream: %v", err)
	}
	sd.Dict["Subtype"] = types.Name(mimeType)
	return nil
}

// addAF appends the file specification ir to the catalog's /AF array.
func addAF(xt *model.XRefTable, ir types.IndirectRef) error {
	cat, err := xt.Catalog()
	if err != nil {
		return err
	}
	var af types.Array
	if o, found := cat.Find("AF"); found {
		if o, err = xt.Dereference(o); err != nil {
			return err
		}
		af, _ = o.(types.Array)
	}
	cat["AF"] = append(af, ir)
	return nil
}
