package pdf

import (
	"context"
	"path/filepath"
	"testing"
)

func TestParseXMP(t *testing.T) {
	const head = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">`
	const tail = `</rdf:RDF></x:xmpmeta><?xpacket end="w"?>`
	tests := []struct {
		name string
		xmp  string
		want Conformance
		bad  bool
	}{
		{"element form, as LibreOffice writes it", head + `<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/"><pdfaid:part>2</pdfaid:part><pdfaid:conformance>B</pdfaid:conformance></rdf:Description>` + tail, Conformance{Part: 2, Level: "B"}, false},
		{"attribute form", head + `<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/" pdfaid:part="1" pdfaid:conformance="a"/>` + tail, Conformance{Part: 1, Level: "A"}, false},
		{"another prefix", head + `<rdf:Description xmlns:id="http://www.aiim.org/pdfa/ns/id/" id:part="3" id:conformance="U"/>` + tail, Conformance{Part: 3, Level: "U"}, false},
		{"a part in another namespace does not count", head + `<rdf:Description xmlns:pdfaid="http://example.com/not-pdfa/" pdfaid:part="2"/>` + tail, Conformance{}, false},
		{"no identification", head + `<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>x</dc:title></rdf:Description>` + tail, Conformance{}, false},
		{"empty", "", Conformance{}, false},
		{"PDF/UA-1 with PDF/A-1a", head + `<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/" xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/"><pdfaid:part>1</pdfaid:part><pdfaid:conformance>A</pdfaid:conformance><pdfuaid:part>1</pdfuaid:part></rdf:Description>` + tail, Conformance{Part: 1, Level: "A", UA: 1}, false},
		{"PDF/UA-1 alone, attribute form", head + `<rdf:Description xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/" pdfuaid:part="1"/>` + tail, Conformance{UA: 1}, false},
		{"PDF/UA part out of range", head + `<rdf:Description xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/" pdfuaid:part="7"/>` + tail, Conformance{}, true},
		{"part out of range", head + `<rdf:Description xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/" pdfaid:part="9"/>` + tail, Conformance{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseXMP([]byte(tc.xmp))
			if (err != nil) != tc.bad {
				t.Fatalf("parseXMP: error %v, want error %v", err, tc.bad)
			}
			if !tc.bad && got != tc.want {
				t.Errorf("parseXMP = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestPDFANone: a PDF without XMP metadata is part 0, not an error.
func TestPDFANone(t *testing.T) {
	c, err := PDFA(context.Background(), filepath.Join("..", "..", "testdata", "convert", "pages_3.pdf"))
	if err != nil || c.Part != 0 {
		t.Errorf("PDFA of a plain PDF = %+v, %v; want part 0", c, err)
	}
}

func FuzzParseXMP(f *testing.F) {
	f.Add([]byte(`<x xmlns:p="http://www.aiim.org/pdfa/ns/id/" p:part="2"><p:conformance>B</p:conformance></x>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parseXMP(b)
		if err == nil && (c.Part < 0 || c.Part > 4) {
			t.Errorf("part %d out of range without an error", c.Part)
		}
	})
}
