package pdu

import (
	"encoding/hex"
	"strings"
	"testing"
	"unicode/utf8"
)

func hexString(b []byte) string { return hex.EncodeToString(b) }

// TestSplitBoundaries: 160/153/152 septets and 70/67/66 UCS-2 characters,
// and an ESC pair or surrogate pair at a boundary moves whole to the next
// part.
func TestSplitBoundaries(t *testing.T) {
	a, e, u, emoji := "a", "€", "ж", "😀"
	for _, c := range []struct {
		name    string
		text    string
		force16 bool
		want    []int // characters per part
	}{
		{"gsm7 160 fits", strings.Repeat(a, 160), false, []int{160}},
		{"gsm7 161 splits at 153", strings.Repeat(a, 161), false, []int{153, 8}},
		{"gsm7 306 is two", strings.Repeat(a, 306), false, []int{153, 153}},
		{"gsm7 16-bit ref 152", strings.Repeat(a, 161), true, []int{152, 9}},
		{"esc pair at 153 moves", strings.Repeat(a, 152) + e + strings.Repeat(a, 10), false, []int{152, 11}},
		{"esc pair ending at 153 stays", strings.Repeat(a, 151) + e + strings.Repeat(a, 10), false, []int{152, 10}},
		{"esc pair at 152 moves (16-bit)", strings.Repeat(a, 151) + e + strings.Repeat(a, 10), true, []int{151, 11}},
		{"esc pairs 80 fit in 160", strings.Repeat(e, 80), false, []int{80}},
		{"ucs2 70 fits", strings.Repeat(u, 70), false, []int{70}},
		{"ucs2 71 splits at 67", strings.Repeat(u, 71), false, []int{67, 4}},
		{"ucs2 16-bit ref 66", strings.Repeat(u, 71), true, []int{66, 5}},
		{"surrogate at 67 moves", strings.Repeat(u, 66) + emoji + strings.Repeat(u, 5), false, []int{66, 6}},
		{"surrogate ending at 67 stays", strings.Repeat(u, 65) + emoji + strings.Repeat(u, 5), false, []int{66, 5}},
		{"surrogate at 66 moves (16-bit)", strings.Repeat(u, 65) + emoji + strings.Repeat(u, 5), true, []int{65, 6}},
		{"35 emoji fit in 70", strings.Repeat(emoji, 35), false, []int{35}},
	} {
		t.Run(c.name, func(t *testing.T) {
			parts, _, err := EncodeSubmit("+491511", c.text, SubmitOptions{Ref: 200, Force16bitRef: c.force16})
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, p := range parts {
				got = append(got, utf8.RuneCountInString(p.Text))
				if p.TPDULength > 140+12+2+1+1+1+1 {
					t.Errorf("part %d: TPDU of %d octets", p.Seq, p.TPDULength)
				}
			}
			if !equalInts(got, c.want) {
				t.Errorf("got parts of %v characters, want %v", got, c.want)
			}
			if text := decodeParts(t, parts); text != c.text {
				t.Errorf("decoded %q, want %q", text, c.text)
			}
			for _, p := range parts {
				m, _ := Decode(p.Hex, MO)
				if m.Text != p.Text {
					t.Errorf("part %d decodes to %q, its Text is %q", p.Seq, m.Text, p.Text)
				}
				if len(parts) > 1 && (m.Concat.Ref != 200 || m.Concat.Bits != map[bool]int{false: 8, true: 16}[c.force16]) {
					t.Errorf("part %d: concat %+v", p.Seq, m.Concat)
				}
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestFillBits: UDHL 5 (8-bit ref) needs 1 fill bit, UDHL 6 (16-bit) 0;
// checked on the exact octets of a two-part message.
func TestFillBits(t *testing.T) {
	if fillBits(5) != 1 || fillBits(6) != 0 || fillBits(0) != 6 || fillBits(4) != 2 {
		t.Fatalf("fillBits(5, 6, 0, 4) = %d %d %d %d, want 1 0 6 2", fillBits(5), fillBits(6), fillBits(0), fillBits(4))
	}
	text := strings.Repeat("A", 161)
	for _, c := range []struct {
		name    string
		force16 bool
		udh     string
		first   string // first octet of text after the header
		udl     int
	}{
		// 'A' = 0x41 after one fill bit: 0x41<<1 = 0x82.
		{"udhl 5", false, "050003010201", "82", 160},
		// No fill bit: 'A' then 'A'<<7 in the first octet = 0xC1.
		{"udhl 6", true, "06080400010201", "C1", 160},
	} {
		t.Run(c.name, func(t *testing.T) {
			parts, _, err := EncodeSubmit("+491511", text, SubmitOptions{Ref: 1, Force16bitRef: c.force16})
			if err != nil {
				t.Fatal(err)
			}
			h := parts[0].Hex
			i := strings.Index(h, c.udh)
			if i < 0 {
				t.Fatalf("%s has no header %s", h, c.udh)
			}
			if got := h[i+len(c.udh) : i+len(c.udh)+2]; got != c.first {
				t.Errorf("first text octet %s, want %s", got, c.first)
			}
			if got := h[i-2 : i]; got != strings.ToUpper(hexString([]byte{byte(c.udl)})) {
				t.Errorf("UDL %s, want %d", got, c.udl)
			}
		})
	}
}

// TestEncodeDeliver: DELIVER PDUs from numbers and names decode back to
// their sender, time stamp (with its zone) and text, concatenated too.
func TestEncodeDeliver(t *testing.T) {
	scts := mustTime(t, "2024-12-31T23:59:58-03:30")
	for _, c := range []struct{ name, from, text string }{
		{"international", "+4915112345678", "hello"},
		{"national", "015112345678", "grüße"},
		{"short", "12220", "€ {x}"},
		{"alphanumeric", "InternetSMS", "тест"},
		{"long", "Megafon", strings.Repeat("long text ", 40)},
	} {
		t.Run(c.name, func(t *testing.T) {
			pdus, err := EncodeDeliver(c.from, c.text, scts, DeliverOptions{SMSC: "+4917", Ref: 300})
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			for i, h := range pdus {
				m, err := Decode(h, MT)
				if err != nil {
					t.Fatal(err)
				}
				if m.Type != "DELIVER" || m.OA != c.from || m.SMSC != "+4917" || !m.SCTS.Equal(scts) || m.SCTS.Format(TimeLayout) != "2024-12-31T23:59:58-03:30" {
					t.Errorf("got %s from %q via %q at %v", m.Type, m.OA, m.SMSC, m.SCTS)
				}
				if len(pdus) > 1 && (m.Concat == nil || m.Concat.Seq != i+1 || m.Concat.Ref != 300 || m.Concat.Bits != 16) {
					t.Errorf("part %d: concat %+v", i+1, m.Concat)
				}
				text.WriteString(m.Text)
			}
			if text.String() != c.text {
				t.Errorf("got %q, want %q", text.String(), c.text)
			}
		})
	}
	if _, err := EncodeDeliver("Too long a name", "x", scts, DeliverOptions{}); err == nil {
		t.Error("a 15-character sender name was accepted")
	}
}

// TestEncodeSubmitData: 8-bit data, 140 octets in one PDU, else parts of
// 134 (8-bit reference) or 133 (16-bit) octets, decoded back in order.
func TestEncodeSubmitData(t *testing.T) {
	for _, c := range []struct {
		name    string
		n       int
		force16 bool
		want    []int
	}{
		{"140 fits", 140, false, []int{140}},
		{"141 splits at 134", 141, false, []int{134, 7}},
		{"141 splits at 133 (16-bit)", 141, true, []int{133, 8}},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := make([]byte, c.n)
			for i := range data {
				data[i] = byte(i * 7)
			}
			parts, err := EncodeSubmitData("+491511", data, SubmitOptions{Ref: 9, Force16bitRef: c.force16})
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			var back []byte
			for _, p := range parts {
				m, err := Decode(p.Hex, MO)
				if err != nil || m.Encoding != "8bit" || m.DCS != 0x04 {
					t.Fatalf("part %d: %s DCS %02X, %v", p.Seq, m.Encoding, m.DCS, err)
				}
				got = append(got, len(m.Data))
				back = append(back, m.Data...)
			}
			if !equalInts(got, c.want) || string(back) != string(data) {
				t.Errorf("got parts of %v octets, want %v; data equal: %v", got, c.want, string(back) == string(data))
			}
		})
	}
}
