package pdu

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestAlphabetRoundTrip encodes every character of the default table and
// of the extension table alone and in a text, and decodes it back; the
// extension characters cost two septets.
func TestAlphabetRoundTrip(t *testing.T) {
	var all strings.Builder
	for i, r := range gsmDefault {
		if i == esc {
			continue
		}
		all.WriteRune(r)
		checkRoundTrip(t, string(r), "gsm7", 1)
	}
	for _, r := range gsmExtension {
		all.WriteRune(r)
		checkRoundTrip(t, string(r), "gsm7", 2)
	}
	if got, want := utf8.RuneCountInString(all.String()), 127+10; got != want {
		t.Fatalf("alphabet has %d characters, want %d", got, want)
	}
	parts, _, err := EncodeSubmit("+491511", all.String(), SubmitOptions{Ref: 7})
	if err != nil {
		t.Fatal(err)
	}
	if got := decodeParts(t, parts); got != all.String() {
		t.Errorf("all characters: got %q, want %q", got, all.String())
	}
}

func checkRoundTrip(t *testing.T, text, enc string, septets int) {
	t.Helper()
	parts, _, err := EncodeSubmit("+491511", text, SubmitOptions{})
	if err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	m, err := Decode(parts[0].Hex, MO)
	if err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	if m.Text != text || m.Encoding != enc {
		t.Errorf("got %q (%s), want %q (%s)", m.Text, m.Encoding, text, enc)
	}
	if enc == "gsm7" && utf8.RuneCountInString(text) == 1 && GSMSeptets([]rune(text)[0]) != septets {
		t.Errorf("%q costs %d septets, want %d", text, GSMSeptets([]rune(text)[0]), septets)
	}
}

// decodeParts decodes SUBMIT parts and joins their texts in order,
// checking the concatenation header of each.
func decodeParts(t *testing.T, parts []Part) string {
	t.Helper()
	var b strings.Builder
	for i, p := range parts {
		m, err := Decode(p.Hex, MO)
		if err != nil {
			t.Fatalf("part %d: %v", i+1, err)
		}
		if len(parts) > 1 && (m.Concat == nil || m.Concat.Seq != i+1 || m.Concat.Total != len(parts)) {
			t.Fatalf("part %d: concat %+v, want seq %d of %d", i+1, m.Concat, i+1, len(parts))
		}
		b.WriteString(m.Text)
	}
	return b.String()
}

// TestEncodingChoice: GSM 7-bit when every character fits, else UCS-2,
// with no silent transliteration.
func TestEncodingChoice(t *testing.T) {
	for _, c := range []struct{ name, text, enc string }{
		{"ascii", "disk full on db1", "gsm7"},
		{"extension", "€5 [x] {y} ~^\\|", "gsm7"},
		{"greek capitals", "ΔΦΓΛΩΠΨΣΘΞ", "gsm7"},
		{"lower c cedilla", "garçon", "ucs2"},
		{"smart quotes", "“quoted”", "ucs2"},
		{"emoji", "ok 👍", "ucs2"},
		{"cjk", "世界", "ucs2"},
		{"tab", "a\tb", "ucs2"},
	} {
		t.Run(c.name, func(t *testing.T) { checkRoundTrip(t, c.text, c.enc, 1) })
	}
}

// TestTransliterate: opt-in, every change reported, and only applied when
// the whole text then fits GSM 7-bit.
func TestTransliterate(t *testing.T) {
	for _, c := range []struct {
		name, text, want, enc string
		changes               int
	}{
		{"smart quotes", "“smart quotes” – it’s…", `"smart quotes" - it's...`, "gsm7", 5},
		{"accents", "São Paulo ç é", "Sao Paulo Ç é", "gsm7", 2},
		{"nothing to do", "plain", "plain", "gsm7", 0},
		{"emoji stays", "“hi” 👍", "“hi” 👍", "ucs2", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			parts, changes, err := EncodeSubmit("+491511", c.text, SubmitOptions{Transliterate: true})
			if err != nil {
				t.Fatal(err)
			}
			m, err := Decode(parts[0].Hex, MO)
			if err != nil {
				t.Fatal(err)
			}
			if m.Text != c.want || m.Encoding != c.enc {
				t.Errorf("got %q (%s), want %q (%s)", m.Text, m.Encoding, c.want, c.enc)
			}
			if len(changes) != c.changes {
				t.Errorf("got %d kinds of change %v, want %d", len(changes), changes, c.changes)
			}
		})
	}
	_, ch := Transliterate("“a” “b”")
	if len(ch) != 2 || ch[0] != (Change{From: "“", To: `"`, Count: 2}) {
		t.Errorf("got %+v, want “ → \" twice first", ch)
	}
}

// TestSeptetPacking: packing and unpacking after every fill width.
func TestSeptetPacking(t *testing.T) {
	septets := []byte{0x48, 0x65, 0x6C, 0x6C, 0x6F, 0x7F, 0x00, 0x1B, 0x65}
	for fill := 0; fill < 7; fill++ {
		for n := 0; n <= len(septets); n++ {
			b := packSeptets(septets[:n], fill)
			if got := unpackSeptets(b, fill, n); string(got) != string(septets[:n]) {
				t.Errorf("fill %d, n %d: got % X, want % X", fill, n, got, septets[:n])
			}
		}
	}
	// "hellohello" packed, from TS 23.038's example.
	if got := strings.ToUpper(hexString(packSeptets([]byte("hellohello"), 0))); got != "E8329BFD4697D9EC37" {
		t.Errorf("got %s, want E8329BFD4697D9EC37", got)
	}
}
