package pdf

import (
	"strings"
	"testing"
)

// contentText runs a content stream without resources (every font is a
// simple font without ToUnicode).
func contentText(content string) string {
	var b strings.Builder
	t := &textRun{out: &b, seen: map[int]bool{}}
	t.run([]byte(content), nil, 0)
	return b.String()
}

func TestContentText(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"Tj", "BT /F1 12 Tf 10 10 Td (Hello) Tj ET", "Hello"},
		{"escapes", `BT (a\(b\)c\\d\101\n) Tj ET`, "a(b)c\\dA\n"},
		{"nested parens", "BT (f(o)o) Tj ET", "f(o)o"},
		{"line continuation", "BT (ab\\\ncd) Tj ET", "abcd"},
		{"hex", "BT <48656c6c6f2> Tj ET", "Hello "},
		{"TJ spacing", "BT [(Page)-278(1)] TJ [(Ke)20(rn)] TJ ET", "Page 1Kern"},
		{"new line by Td", "BT 0 0 Td (one) Tj 0 -14 Td (two) Tj 30 0 Td (three) Tj ET", "one\ntwothree"},
		{"new line by Tm", "BT 1 0 0 1 10 700 Tm (a) Tj 1 0 0 1 20 700 Tm (b) Tj 1 0 0 1 10 680 Tm (c) Tj ET", "ab\nc"},
		{"quote operators", "BT (x) Tj (y) ' 1 2 (z) \" ET", "x\ny\nz"},
		{"winansi", "BT <93e98094> Tj ET", "“é€”"},
		{"inline image", "BI /W 1 /H 1 /BPC 8 ID \x00(Tj)\xff EI BT (after) Tj ET", "after"},
		{"comment", "% (hidden) Tj\nBT (shown) Tj ET", "shown"},
		{"junk", "Tj TJ ' \" ] >> ) } (unterminated", ""},
		{"deep array", strings.Repeat("[", 1000) + "(x) Tj", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := contentText(tt.content); got != tt.want {
				t.Errorf("text = %q, want %q", got, tt.want)
			}
		})
	}
}

const toUnicode = `/CIDInit /ProcSet findresource begin 12 dict begin begincmap
/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def
/CMapName /Adobe-Identity-UCS def /CMapType 2 def
1 begincodespacerange <0000> <FFFF> endcodespacerange
2 beginbfchar <0003> <0020> <0011> <00660069> endbfchar
2 beginbfrange <0024> <0026> <0041> <0030> <0031> [<03B1> <D83DDE00>] endbfrange
endcmap CMapName currentdict /CMap defineresource pop end end`

func TestFontDecoder(t *testing.T) {
	tests := []struct {
		name string
		f    *fontDecoder
		in   []byte
		want string
	}{
		{"composite with ToUnicode", &fontDecoder{composite: true, cmap: parseCMap([]byte(toUnicode))},
			[]byte{0, 0x24, 0, 0x25, 0, 0x26, 0, 3, 0, 0x11, 0, 0x30, 0, 0x31}, "ABC fiα😀"},
		{"composite unmapped code", &fontDecoder{composite: true, cmap: parseCMap([]byte(toUnicode))},
			[]byte{0, 0x24, 0x12, 0x34, 0, 0x26}, "AC"},
		{"composite without ToUnicode", &fontDecoder{composite: true}, []byte{0, 1, 0, 2}, ""},
		{"simple with ToUnicode", &fontDecoder{cmap: parseCMap([]byte("1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfchar <01> <004C> endbfchar"))},
			[]byte{1, 'o'}, "Lo"},
		{"simple without ToUnicode", &fontDecoder{}, []byte("Lorem \xe9"), "Lorem é"},
		{"nil font", nil, []byte("x"), "x"},
		{"odd byte in composite", &fontDecoder{composite: true, cmap: parseCMap([]byte(toUnicode))}, []byte{0, 0x24, 0}, "A"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.decode(tt.in); got != tt.want {
				t.Errorf("decode = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseCMapRanges(t *testing.T) {
	m := parseCMap([]byte(`2 begincodespacerange <00> <80> <8140> <FEFE> endcodespacerange
1 beginbfrange <8140> <8142> <3042> endbfrange 1 beginbfchar <41> <0041> endbfchar`))
	got := (&fontDecoder{cmap: m, composite: true}).decode([]byte{0x41, 0x81, 0x41, 0x81, 0x42})
	if want := "Aぃい"; got != want {
		t.Errorf("mixed-length codes decode to %q, want %q", got, want)
	}
}

func FuzzContentText(f *testing.F) {
	f.Add([]byte("BT /F1 12 Tf [(Page)-278(1)] TJ ET"), []byte(toUnicode))
	f.Add([]byte("BI ID \x00 EI (x) Tj <41> Tj (\\101\\\n) '"), []byte("1 beginbfrange <00> <FF> <0000> endbfrange"))
	f.Fuzz(func(t *testing.T, content, cmapData []byte) {
		contentText(string(content))
		f := &fontDecoder{composite: len(cmapData)%2 == 0, cmap: parseCMap(cmapData)}
		f.decode(content)
	})
}

func TestContentTextActualText(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"utf-16", "BT <01> Tj /Span<</ActualText<FEFF30EB>>>BDC <01> Tj EMC <02> Tj ET", "\x01ル\x02"},
		{"nested", "/Span<</ActualText(ab)>>BDC /X BMC (hidden) Tj EMC EMC (c) Tj", "abc"},
		{"properties by name", "/OC /oc1 BDC (shown) Tj EMC", "shown"},
		{"unbalanced EMC", "EMC EMC (x) Tj", "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := contentText(tt.content); got != tt.want {
				t.Errorf("text = %q, want %q", got, tt.want)
			}
		})
	}
}
