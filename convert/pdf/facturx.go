package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// FacturX makes a PDF/A-3 a Factur-X (ZUGFeRD 2) invoice: the invoice's
// XML, the file at XML, is attached as factur-x.xml (text/xml, its
// relationship Alternative), and the XMP metadata declares it (the fx
// schema with its PDF/A extension schema). Level is the conformance
// level (one of FacturXLevels), DocumentType one of FacturXTypes
// (INVOICE when empty), Version the schema's ("1.0" when empty).
//
// The step is an incremental update: the PDF's bytes, and its
// information dictionary, stay as they were, so a PDF/A-3 keeps its
// Info and XMP in step. Apply refuses it with any other step.
type FacturX struct {
	XML, Level   string
	DocumentType string `json:",omitempty"`
	Version      string `json:",omitempty"`
}

// FacturXLevels and FacturXTypes are the conformance levels and document
// types of Factur-X.
var (
	FacturXLevels = []string{"MINIMUM", "BASIC WL", "BASIC", "EN 16931", "EXTENDED", "XRECHNUNG"}
	FacturXTypes  = []string{"INVOICE", "ORDER", "ORDER_RESPONSE", "ORDER_CHANGE"}
)

// FacturXFile is the name Factur-X gives the attached invoice.
const FacturXFile = "factur-x.xml"

// facturxNS is the namespace of Factur-X's XMP schema.
const facturxNS = "urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#"

func (f *FacturX) check() error {
	fail := func(field, value, why string) error {
		return &FieldError{Field: field, Value: value, Err: errors.New(why)}
	}
	switch {
	case f.XML == "":
		return fail("facturxXml", "", "the invoice's XML file is required")
	case !slices.Contains(FacturXLevels, f.Level):
		return fail("facturxConformanceLevel", f.Level, "want one of "+strings.Join(FacturXLevels, ", "))
	case f.DocumentType != "" && !slices.Contains(FacturXTypes, f.DocumentType):
		return fail("facturxDocumentType", f.DocumentType, "want one of "+strings.Join(FacturXTypes, ", "))
	case f.Version != "" && (len(f.Version) > 16 || strings.ContainsFunc(f.Version, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.') })):
		return fail("facturxVersion", f.Version, "want a version such as 1.0")
	}
	return nil
}

// apply attaches the invoice and declares it in the XMP, as an
// incremental update of the PDF read from rs.
func (f *FacturX) apply(rs io.ReadSeeker, w io.Writer) error {
	ctx, err := readFrom(rs, "", model.ADDATTACHMENTS)
	if err != nil {
		return err
	}
	xt := ctx.XRefTable
	used := inUse(xt)
	if err := attach(ctx, Attachment{Path: f.XML, Name: FacturXFile, MimeType: "text/xml", Relationship: "Alternative"}); err != nil {
		return fmt.Errorf("attach %s: %w", FacturXFile, err)
	}
	if err := f.declare(xt); err != nil {
		return err
	}
	return writeIncrement(ctx, rs, w, used)
}

// declare replaces the catalog's XMP metadata by the same with the
// Factur-X schema added.
func (f *FacturX) declare(xt *model.XRefTable) error {
	xmp, err := catalogXMP(xt)
	if err != nil {
		return err
	}
	out, err := f.xmp(xmp)
	if err != nil {
		return err
	}
	return setCatalogXMP(xt, out)
}

// xmp returns the XMP packet xmp with the Factur-X description and its
// PDF/A extension schema added.
func (f *FacturX) xmp(xmp []byte) ([]byte, error) {
	if len(bytes.TrimSpace(xmp)) == 0 {
		return nil, errors.New("the PDF has no XMP metadata: it is not PDF/A-3")
	}
	if bytes.Contains(xmp, []byte(facturxNS)) {
		return nil, errors.New("the PDF declares Factur-X already")
	}
	end := bytes.LastIndex(xmp, []byte("</rdf:RDF>"))
	if end < 0 {
		return nil, errors.New("XMP metadata without rdf:RDF")
	}
	var b bytes.Buffer
	schemas := []byte("<pdfaExtension:schemas>")
	if i := bytes.Index(xmp, schemas); i >= 0 {
		// One extension schemas property: the Factur-X schema joins its bag.
		bag := bytes.Index(xmp[i:], []byte("<rdf:Bag>"))
		if bag < 0 || i+bag > end {
			return nil, errors.New("XMP metadata: pdfaExtension:schemas without rdf:Bag")
		}
		at := i + bag + len("<rdf:Bag>")
		b.Write(xmp[:at])
		b.WriteString(facturxSchema)
		b.Write(xmp[at:end])
	} else {
		b.Write(xmp[:end])
		b.WriteString(`<rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#"><pdfaExtension:schemas><rdf:Bag>`)
		b.WriteString(facturxSchema)
		b.WriteString("</rdf:Bag></pdfaExtension:schemas></rdf:Description>\n")
	}
	fmt.Fprintf(&b, `<rdf:Description rdf:about="" xmlns:fx="%s"><fx:DocumentType>%s</fx:DocumentType><fx:DocumentFileName>%s</fx:DocumentFileName><fx:Version>%s</fx:Version><fx:ConformanceLevel>%s</fx:ConformanceLevel></rdf:Description>`+"\n",
		facturxNS, cmpOr(f.DocumentType, "INVOICE"), FacturXFile, cmpOr(f.Version, "1.0"), f.Level)
	b.Write(xmp[end:])
	return b.Bytes(), nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// facturxSchema is the PDF/A extension schema describing the fx
// properties, which PDF/A asks of any schema outside its own list.
var facturxSchema = `<rdf:li rdf:parseType="Resource"><pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema><pdfaSchema:namespaceURI>` + facturxNS + `</pdfaSchema:namespaceURI><pdfaSchema:prefix>fx</pdfaSchema:prefix><pdfaSchema:property><rdf:Seq>` +
	facturxProperty("DocumentFileName", "The name of the embedded XML document") +
	facturxProperty("DocumentType", "The type of the hybrid document in capital letters, e.g. INVOICE or ORDER") +
	facturxProperty("Version", "The actual version of the standard applying to the embedded XML document") +
	facturxProperty("ConformanceLevel", "The conformance level of the embedded XML document") +
	`</rdf:Seq></pdfaSchema:property></rdf:li>`

func facturxProperty(name, description string) string {
	return `<rdf:li rdf:parseType="Resource"><pdfaProperty:name>` + name + `</pdfaProperty:name><pdfaProperty:valueType>Text</pdfaProperty:valueType><pdfaProperty:category>external</pdfaProperty:category><pdfaProperty:description>` + description + `</pdfaProperty:description></rdf:li>`
}

// inUse is the set of object numbers xt uses, before an incremental
// update adds some.
func inUse(xt *model.XRefTable) map[int]bool {
	used := make(map[int]bool, len(xt.Table))
	for nr, e := range xt.Table {
		if e != nil && !e.Free {
			used[nr] = true
		}
	}
	return used
}

// writeIncrement copies rs to w and appends an incremental update
// holding the catalog, the objects not in used (those the step added,
// under free numbers of the file too) and the name dictionary when it
// is an object of its own.
func writeIncrement(ctx *model.Context, rs io.ReadSeeker, w io.Writer, used map[int]bool) error {
	xt := ctx.XRefTable
	// The full write binds the name trees pdfcpu keeps aside into their
	// dictionaries; the incremental one does not.
	if err := xt.BindNameTrees(); err != nil {
		return err
	}
	ctx.Write.Increment = true
	ctx.Write.Offset = ctx.Read.FileSize
	ctx.Write.IncrementWithObjNr(xt.Root.ObjectNumber.Value())
	cat, err := xt.Catalog()
	if err != nil {
		return err
	}
	if ir := cat.IndirectRefEntry("Names"); ir != nil {
		ctx.Write.IncrementWithObjNr(ir.ObjectNumber.Value())
	}
	if names, err := xt.DereferenceDict(cat["Names"]); err == nil && names != nil {
		if ir := names.IndirectRefEntry("EmbeddedFiles"); ir != nil {
			ctx.Write.IncrementWithObjNr(ir.ObjectNumber.Value())
			if root, err := xt.DereferenceDict(*ir); err != nil || root.ArrayEntry("Kids") != nil {
				return errors.New("the PDF's attachments are a name tree of several levels, which calq does not update incrementally")
			}
		}
	}
	// New objects: pdfcpu gives them free numbers of the file first,
	// then numbers past its size.
	for nr, e := range xt.Table {
		if e != nil && !e.Free && !used[nr] {
			ctx.Write.IncrementWithObjNr(nr)
		}
	}
	if _, err := rs.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := io.Copy(w, rs); err != nil {
		return err
	}
	return api.WriteIncrement(ctx, w)
}
