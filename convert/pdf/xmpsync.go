package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"io"
	"strings"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// The information dictionary's keys that PDF/A asks the XMP metadata to
// repeat, with the XMP property each is, as ISO 19005 maps them.
var infoXMP = []struct {
	key, ns, prop string
	kind          byte // 's' text, 'a' language alternative, 'q' ordered list, 'd' date
}{
	{"Title", "dc", "title", 'a'},
	{"Author", "dc", "creator", 'q'},
	{"Subject", "dc", "description", 'a'},
	{"Keywords", "pdf", "Keywords", 's'},
	{"Producer", "pdf", "Producer", 's'},
	{"Trapped", "pdf", "Trapped", 's'},
	{"Creator", "xmp", "CreatorTool", 's'},
	{"CreationDate", "xmp", "CreateDate", 'd'},
	{"ModDate", "xmp", "ModifyDate", 'd'},
}

// xmpNamespaces are the URIs of the prefixes infoXMP uses.
var xmpNamespaces = map[string]string{
	"dc":  "http://purl.org/dc/elements/1.1/",
	"pdf": "http://ns.adobe.com/pdf/1.3/",
	"xmp": "http://ns.adobe.com/xap/1.0/",
}

// syncXMP is the step that makes a PDF/A's XMP metadata agree with its
// information dictionary again after pdfcpu's changes (its save sets
// Producer and ModDate; the metadata step sets the rest): the XMP's dc,
// pdf and xmp descriptions are replaced by those of the Info's values,
// the others (the PDF/A and PDF/UA identification, extension schemas,
// Factur-X's) are kept as they are. It is an incremental update that
// leaves the information dictionary as it is.
func syncXMP(rs io.ReadSeeker, w io.Writer) error {
	ctx, err := readFrom(rs, "", model.ADDPROPERTIES)
	if err != nil {
		return err
	}
	xt := ctx.XRefTable
	used := inUse(xt)
	old, err := catalogXMP(xt)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(old)) == 0 {
		return errors.New("the PDF has no XMP metadata: it is not PDF/A")
	}
	info := map[string]string{}
	if xt.Info != nil {
		d, err := xt.DereferenceDict(*xt.Info)
		if err != nil {
			return fmt.Errorf("information dictionary: %w", err)
		}
		for k, o := range d {
			if v, ok := infoValue(xt, o); ok {
				info[k] = v
			}
		}
	}
	xmp, err := rewriteXMP(old, info)
	if err != nil {
		return err
	}
	if err := setCatalogXMP(xt, xmp); err != nil {
		return err
	}
	return writeIncrement(ctx, rs, w, used)
}

// catalogXMP is the decoded XMP stream of the catalog's /Metadata; nil
// when it has none.
func catalogXMP(xt *model.XRefTable) ([]byte, error) {
	cat, err := xt.Catalog()
	if err != nil {
		return nil, err
	}
	o, found := cat.Find("Metadata")
	if !found {
		return nil, nil
	}
	sd, _, err := xt.DereferenceStreamDict(o)
	if err != nil {
		return nil, fmt.Errorf("XMP metadata: %w", err)
	}
	if sd == nil {
		return nil, nil
	}
	if err := sd.Decode(); err != nil {
		return nil, fmt.Errorf("XMP metadata: %w", err)
	}
	return sd.Content, nil
}

// setCatalogXMP makes xmp, unfiltered as PDF/A asks, the catalog's
// /Metadata, in a new object.
func setCatalogXMP(xt *model.XRefTable, xmp []byte) error {
	cat, err := xt.Catalog()
	if err != nil {
		return err
	}
	sd := types.StreamDict{Dict: types.Dict{"Type": types.Name("Metadata"), "Subtype": types.Name("XML")}, Content: xmp, Raw: xmp}
	n := int64(len(xmp))
	sd.StreamLength = &n
	sd.Insert("Length", types.Integer(n))
	ir, err := xt.IndRefForNewObject(sd)
	if err != nil {
		return err
	}
	cat["Metadata"] = *ir
	return nil
}

// rewriteXMP returns the packet xmp with its descriptions of the dc, pdf
// and xmp schemas replaced by one holding info's values.
func rewriteXMP(xmp []byte, info map[string]string) ([]byte, error) {
	start := bytes.Index(xmp, []byte("<rdf:RDF"))
	end := bytes.LastIndex(xmp, []byte("</rdf:RDF>"))
	if start < 0 || end < start {
		return nil, errors.New("XMP metadata without rdf:RDF")
	}
	open := bytes.IndexByte(xmp[start:], '>')
	if open < 0 {
		return nil, errors.New("XMP metadata: rdf:RDF not closed")
	}
	body := start + open + 1
	var kept bytes.Buffer
	rest := xmp[body:end]
	for {
		i := bytes.Index(rest, []byte("<rdf:Description"))
		if i < 0 {
			kept.Write(rest)
			break
		}
		kept.Write(rest[:i])
		j := bytes.Index(rest[i:], []byte("</rdf:Description>"))
		k := bytes.Index(rest[i:], []byte("/>"))
		gt := bytes.IndexByte(rest[i:], '>')
		var desc []byte
		switch {
		case k >= 0 && k+1 == gt: // <rdf:Description .../>
			desc = rest[i : i+k+2]
		case j >= 0:
			desc = rest[i : i+j+len("</rdf:Description>")]
		default:
			return nil, errors.New("XMP metadata: rdf:Description not closed")
		}
		if !infoSchemas(desc) {
			kept.Write(desc)
		}
		rest = rest[i+len(desc):]
	}
	var b bytes.Buffer
	b.Write(xmp[:body])
	b.Write(bytes.TrimRight(kept.Bytes(), " \n\r\t"))
	b.WriteString("\n")
	b.WriteString(infoDescription(info))
	b.WriteString(" ")
	b.Write(xmp[end:])
	return b.Bytes(), nil
}

// infoSchemas says whether a description holds properties of the dc,
// pdf or xmp schemas only (as LibreOffice writes them, one schema each).
func infoSchemas(desc []byte) bool {
	props := 0
	for i := 0; i < len(desc); i++ {
		if desc[i] != '<' || i+1 >= len(desc) || desc[i+1] == '/' || desc[i+1] == '?' {
			continue
		}
		name := desc[i+1:]
		if n := bytes.IndexAny(name, " >/\n\t"); n >= 0 {
			name = name[:n]
		}
		prefix, _, ok := strings.Cut(string(name), ":")
		if !ok {
			return false
		}
		switch prefix {
		case "rdf":
			continue
		case "dc", "pdf", "xmp":
			props++
		default:
			return false
		}
	}
	return props > 0
}

// infoDescription is an rdf:Description with info's values in the XMP
// properties infoXMP names.
func infoDescription(info map[string]string) string {
	var b strings.Builder
	b.WriteString(`<rdf:Description rdf:about=""`)
	for _, p := range []string{"dc", "pdf", "xmp"} {
		fmt.Fprintf(&b, ` xmlns:%s="%s"`, p, xmpNamespaces[p])
	}
	b.WriteString(">\n")
	for _, m := range infoXMP {
		v, ok := info[m.key]
		if !ok || v == "" {
			continue
		}
		tag := m.ns + ":" + m.prop
		esc := html.EscapeString(v)
		switch m.kind {
		case 'a':
			fmt.Fprintf(&b, "<%s><rdf:Alt><rdf:li xml:lang=\"x-default\">%s</rdf:li></rdf:Alt></%s>\n", tag, esc, tag)
		case 'q':
			fmt.Fprintf(&b, "<%s><rdf:Seq><rdf:li>%s</rdf:li></rdf:Seq></%s>\n", tag, esc, tag)
		case 'd':
			t, ok := types.DateTime(v, true)
			if !ok {
				continue // not a date: PDF/A's check has nothing to compare
			}
			fmt.Fprintf(&b, "<%s>%s</%s>\n", tag, t.Format(time.RFC3339), tag)
		default:
			fmt.Fprintf(&b, "<%s>%s</%s>\n", tag, esc, tag)
		}
	}
	b.WriteString("</rdf:Description>\n")
	return b.String()
}
