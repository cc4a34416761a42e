package pdf

import (
	"strings"
	"testing"
)

// TestRewriteXMP: the dc, pdf and xmp descriptions of a packet are
// replaced by the Info's values, once each; the PDF/A identification,
// PDF/UA's and Factur-X's descriptions stay as they were.
func TestRewriteXMP(t *testing.T) {
	const libreOffice = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/">
   <pdfaid:part>3</pdfaid:part>
   <pdfaid:conformance>B</pdfaid:conformance>
  </rdf:Description>
  <rdf:Description rdf:about="" xmlns:pdf="http://ns.adobe.com/pdf/1.3/">
   <pdf:Producer>LibreOffice 7.4</pdf:Producer>
  </rdf:Description>
  <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/">
   <xmp:CreatorTool>Writer</xmp:CreatorTool>
   <xmp:CreateDate>2026-11-29T13:36:55Z</xmp:CreateDate>
  </rdf:Description>
  <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">Old</rdf:li></rdf:Alt></dc:title></rdf:Description>
  <rdf:Description rdf:about="" xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/"><pdfuaid:part>1</pdfuaid:part></rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`
	tests := []struct {
		name       string
		info       map[string]string
		want, gone []string
	}{
		{"every key", map[string]string{"Title": "A & B", "Author": "Ada", "Subject": "S", "Keywords": "k1, k2",
			"Producer": "pdfcpu", "Creator": "calq", "CreationDate": "D:20060918162750-04'00'", "ModDate": "D:20260101000000Z", "Trapped": "Unknown"},
			[]string{`<dc:title><rdf:Alt><rdf:li xml:lang="x-default">A &amp; B</rdf:li></rdf:Alt></dc:title>`,
				`<dc:creator><rdf:Seq><rdf:li>Ada</rdf:li></rdf:Seq></dc:creator>`, `<pdf:Keywords>k1, k2</pdf:Keywords>`,
				`<pdf:Producer>pdfcpu</pdf:Producer>`, `<xmp:CreatorTool>calq</xmp:CreatorTool>`,
				`<xmp:CreateDate>2006-09-18T16:27:50-04:00</xmp:CreateDate>`, `<xmp:ModifyDate>2026-01-01T00:00:00Z</xmp:ModifyDate>`,
				`<pdfaid:part>3</pdfaid:part>`, `<pdfuaid:part>1</pdfuaid:part>`, `<?xpacket end="w"?>`},
			[]string{"LibreOffice 7.4", ">Writer<", ">Old<", "2026-11-29"}},
		{"an Info without a title drops the XMP's", map[string]string{"Producer": "pdfcpu"},
			[]string{`<pdf:Producer>pdfcpu</pdf:Producer>`, `<pdfaid:conformance>B</pdfaid:conformance>`},
			[]string{"dc:title", "xmp:CreatorTool"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := rewriteXMP([]byte(libreOffice), tt.info)
			if err != nil {
				t.Fatal(err)
			}
			got := string(b)
			for _, w := range tt.want {
				if n := strings.Count(got, w); n != 1 {
					t.Errorf("got %d of %s, want 1 in\n%s", n, w, got)
				}
			}
			for _, g := range tt.gone {
				if strings.Contains(got, g) {
					t.Errorf("got %s still, want it gone in\n%s", g, got)
				}
			}
		})
	}
	if _, err := rewriteXMP([]byte("<x:xmpmeta/>"), nil); err == nil {
		t.Error("got no error for a packet without rdf:RDF, want one")
	}
}
