package pdf

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"calq/internal/tooltest"
)

// pdfA3 writes pages_3.pdf with XMP metadata that claims PDF/A-3b, the
// extension schemas property present or not.
func pdfA3(t *testing.T, dir string, withSchemas bool) string {
	t.Helper()
	desc := `<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/"><pdfaid:part>3</pdfaid:part><pdfaid:conformance>B</pdfaid:conformance></rdf:Description>`
	if withSchemas {
		desc += `<rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/"><pdfaExtension:schemas><rdf:Bag><rdf:li>other</rdf:li></rdf:Bag></pdfaExtension:schemas></rdf:Description>`
	}
	xmp := `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">` +
		desc + `</rdf:RDF></x:xmpmeta><?xpacket end="w"?>`
	ctx, err := readContext(testFile(t, "pages_3.pdf"), "", model.VALIDATE)
	if err != nil {
		t.Fatal(err)
	}
	sd := types.StreamDict{Dict: types.Dict{"Type": types.Name("Metadata"), "Subtype": types.Name("XML")}, Content: []byte(xmp), Raw: []byte(xmp)}
	n := int64(len(xmp))
	sd.StreamLength = &n
	sd.Insert("Length", types.Integer(n))
	ir, err := ctx.IndRefForNewObject(sd)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := ctx.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	cat["Metadata"] = *ir
	out := filepath.Join(dir, "a3.pdf")
	if err := api.WriteContextFile(ctx, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestFacturX(t *testing.T) {
	for _, withSchemas := range []bool{false, true} {
		t.Run(map[bool]string{false: "no extension schemas", true: "extension schemas present"}[withSchemas], func(t *testing.T) {
			dir := t.TempDir()
			in := pdfA3(t, dir, withSchemas)
			invoice := filepath.Join(dir, "0002.xml")
			if err := os.WriteFile(invoice, []byte("<rsm:CrossIndustryInvoice/>"), 0o600); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out.pdf")
			if err := Apply(context.Background(), in, out, Post{FacturX: &FacturX{XML: invoice, Level: "EN 16931"}}); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(in)
			after, _ := os.ReadFile(out)
			if !bytes.HasPrefix(after, before) {
				t.Error("the input's bytes are not kept: want an incremental update")
			}
			if got, want := associated(t, out), []string{"factur-x.xml Alternative text/xml"}; !reflect.DeepEqual(got, want) {
				t.Errorf("got /AF %q, want %q", got, want)
			}
			if got := attachments(t, out); !reflect.DeepEqual(got, []string{"factur-x.xml"}) {
				t.Errorf("got attachments %q, want factur-x.xml", got)
			}
			xmp, err := metadataStream(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{facturxNS, "<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>", "<fx:DocumentType>INVOICE</fx:DocumentType>",
				"<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>", "<fx:Version>1.0</fx:Version>", "<pdfaSchema:prefix>fx</pdfaSchema:prefix>"} {
				if !bytes.Contains(xmp, []byte(want)) {
					t.Errorf("XMP without %s:\n%s", want, xmp)
				}
			}
			if n := bytes.Count(xmp, []byte("<pdfaExtension:schemas>")); n != 1 {
				t.Errorf("XMP holds %d pdfaExtension:schemas properties, want 1", n)
			}
			if c, err := PDFA(context.Background(), out); err != nil || c.Part != 3 {
				t.Errorf("got PDF/A %+v (%v), want part 3 still", c, err)
			}
			if withSchemas && !bytes.Contains(xmp, []byte("<rdf:li>other</rdf:li>")) {
				t.Error("the other extension schema is lost")
			}
			qpdf := tooltest.Require(t, "qpdf")
			if b, err := exec.Command(qpdf, "--check", out).CombinedOutput(); err != nil {
				t.Errorf("qpdf --check: %v\n%s", err, b)
			}
		})
	}
}

func TestFacturXRefused(t *testing.T) {
	dir := t.TempDir()
	invoice := filepath.Join(dir, "i.xml")
	if err := os.WriteFile(invoice, []byte("<i/>"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		post  Post
		field string // the FieldError's; "" for another error
		want  string
	}{
		{"no XML", Post{FacturX: &FacturX{Level: "BASIC"}}, "facturxXml", "required"},
		{"bad level", Post{FacturX: &FacturX{XML: invoice, Level: "GOLD"}}, "facturxConformanceLevel", "want one of MINIMUM"},
		{"bad type", Post{FacturX: &FacturX{XML: invoice, Level: "BASIC", DocumentType: "RECEIPT"}}, "facturxDocumentType", "want one of INVOICE"},
		{"bad version", Post{FacturX: &FacturX{XML: invoice, Level: "BASIC", Version: "1.0\n"}}, "facturxVersion", "version"},
		{"with a watermark", Post{FacturX: &FacturX{XML: invoice, Level: "BASIC"}, Watermark: &Watermark{Text: "X"}}, "", "goes alone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.post.Check()
			var fe *FieldError
			if err == nil || !strings.Contains(err.Error(), tt.want) || errors.As(err, &fe) != (tt.field != "") || (fe != nil && fe.Field != tt.field) {
				t.Errorf("Check() = %v, want an error for %q saying %q", err, tt.field, tt.want)
			}
		})
	}
	// A PDF without XMP is not PDF/A-3: refused, nothing written.
	out := filepath.Join(dir, "out.pdf")
	err := Apply(context.Background(), testFile(t, "pages_3.pdf"), out, Post{FacturX: &FacturX{XML: invoice, Level: "BASIC"}})
	if err == nil || !strings.Contains(err.Error(), "not PDF/A-3") {
		t.Errorf("Apply on a plain PDF = %v, want refused as not PDF/A-3", err)
	}
	mustNotExist(t, out)
}
