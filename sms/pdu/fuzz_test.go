package pdu

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecode: Decode never panics, in either direction, and every error
// is a *DecodeError whose offset lies within the PDU; what decodes also
// marshals to JSON.
func FuzzDecode(f *testing.F) {
	for _, v := range readVectors(f) {
		f.Add(v.hex)
	}
	f.Add("0041000391214300000309")
	f.Add("00")
	f.Fuzz(func(t *testing.T, h string) {
		for _, dir := range []Direction{Auto, MO, MT} {
			m, err := Decode(h, dir)
			if err != nil {
				var de *DecodeError
				if !errors.As(err, &de) || de.Field == "" || de.Offset < 0 || de.Offset > len(h)/2+1 {
					t.Fatalf("Decode(%q, %v): %v is not a *DecodeError with a field and an offset in the PDU", h, dir, err)
				}
				continue
			}
			if _, err := json.Marshal(m); err != nil {
				t.Fatalf("Decode(%q, %v) gives a message that does not marshal: %v", h, dir, err)
			}
		}
	})
}

// FuzzRoundTrip: any valid UTF-8 text encoded with EncodeSubmit decodes
// back to itself, with 8-bit or 16-bit references; parts never exceed
// one PDU's 140 octets of user data.
func FuzzRoundTrip(f *testing.F) {
	f.Add("Hello World!", false)
	f.Add("€uro [x] {y} "+strings.Repeat("€", 100), true)
	f.Add(strings.Repeat("ж😀", 60), false)
	f.Add("\x00\r\n@", false)
	f.Fuzz(func(t *testing.T, text string, ref16 bool) {
		if !utf8.ValidString(text) {
			if _, _, err := EncodeSubmit("+491511", text, SubmitOptions{}); err == nil {
				t.Fatalf("invalid UTF-8 %q accepted", text)
			}
			return
		}
		parts, _, err := EncodeSubmit("+491511", text, SubmitOptions{Ref: 42, Force16bitRef: ref16})
		if errors.Is(err, ErrTooLong) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		for _, p := range parts {
			m, err := Decode(p.Hex, MO)
			if err != nil {
				t.Fatalf("part %d of %q: %v", p.Seq, text, err)
			}
			if m.Text != p.Text {
				t.Fatalf("part %d: decoded %q, Part.Text %q", p.Seq, m.Text, p.Text)
			}
			got.WriteString(m.Text)
		}
		if got.String() != text {
			t.Fatalf("got %q, want %q", got.String(), text)
		}
	})
}
