package pdu

import (
	"errors"
	"strings"
	"testing"
)

// TestDecodeEdges: inputs at the edges of 23.040 that an earlier version
// got wrong.
func TestDecodeEdges(t *testing.T) {
	// A 7-bit user data length over 160 septets is malformed.
	long := "0004039121F3000021100101000000FF" + strings.Repeat("00", 224)
	var de *DecodeError
	if _, err := Decode(long, MT); !errors.As(err, &de) || de.Field != "udl" {
		t.Errorf("UDL 255 septets: got %v, want a DecodeError for udl", err)
	}
	// A concatenation element with part number 0 is ignored (9.2.3.24.1).
	m, err := Decode("0044039121F30000211001010000000A050003070200D06A00", MT)
	if err != nil || m.Concat != nil {
		t.Errorf("part 0 of 2: got concat %+v, %v; want none", m.Concat, err)
	}
}

// TestEncodeClassRange: a class outside none and 0-3 is an error, not
// bits spilling into the alphabet of the DCS.
func TestEncodeClassRange(t *testing.T) {
	for _, c := range []Class{-1, Class3 + 1} {
		if _, _, err := EncodeSubmit("+4915", "hi", SubmitOptions{Class: c}); err == nil {
			t.Errorf("class %d: no error", c)
		}
	}
	if _, _, err := EncodeSubmit("+4915", "hi", SubmitOptions{Class: Class3}); err != nil {
		t.Errorf("class 3: %v", err)
	}
}

// TestTransliterateDecomposed: a decomposed accent (e + U+0301) is
// composed first, so "Café" fits GSM 7-bit.
func TestTransliterateDecomposed(t *testing.T) {
	parts, _, err := EncodeSubmit("+4915", "Cafe\u0301", SubmitOptions{Transliterate: true})
	if err != nil || parts[0].Encoding != "gsm7" {
		t.Fatalf("got %+v, %v; want GSM 7-bit", parts, err)
	}
}
