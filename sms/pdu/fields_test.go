package pdu

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestValidity: the four ranges of relative validity, rounding up, and
// what each octet means; absolute validity round trips with its zone.
func TestValidity(t *testing.T) {
	const min, h, day, week = time.Minute, time.Hour, 24 * time.Hour, 7 * 24 * time.Hour
	for _, c := range []struct {
		name string
		d    time.Duration
		vp   byte
		back time.Duration
	}{
		{"1 minute rounds up to 5", 1 * min, 0, 5 * min},
		{"5 minutes", 5 * min, 0, 5 * min},
		{"6 minutes rounds up to 10", 6 * min, 1, 10 * min},
		{"12 hours", 12 * h, 143, 12 * h},
		{"12h30", 12*h + 30*min, 144, 12*h + 30*min},
		{"24 hours", 24 * h, 167, 24 * h},
		{"25 hours rounds up to 2 days", 25 * h, 168, 2 * day},
		{"3 days", 3 * day, 169, 3 * day},
		{"30 days", 30 * day, 196, 30 * day},
		{"31 days rounds up to 5 weeks", 31 * day, 197, 5 * week},
		{"52 weeks", 52 * week, 244, 52 * week},
		{"63 weeks", 63 * week, 255, 63 * week},
	} {
		t.Run(c.name, func(t *testing.T) {
			vp, err := ValidityPeriod(c.d)
			if err != nil || vp != c.vp {
				t.Fatalf("ValidityPeriod(%v) = %d, %v; want %d", c.d, vp, err, c.vp)
			}
			if got := ValidityDuration(vp); got != c.back {
				t.Errorf("ValidityDuration(%d) = %v, want %v", vp, got, c.back)
			}
			parts, _, err := EncodeSubmit("+491511", "x", SubmitOptions{Validity: c.d})
			if err != nil {
				t.Fatal(err)
			}
			m, _ := Decode(parts[0].Hex, MO)
			if time.Duration(m.VPSeconds)*time.Second != c.back || m.FirstOctet&0x18 != 0x10 {
				t.Errorf("decoded vp_seconds %d, first octet %02X", m.VPSeconds, m.FirstOctet)
			}
		})
	}
	for _, bad := range []time.Duration{-time.Second, 64 * week} {
		if _, err := ValidityPeriod(bad); err == nil {
			t.Errorf("ValidityPeriod(%v) accepted", bad)
		}
	}
	until := mustTime(t, "2031-05-06T07:08:09-02:45")
	parts, _, err := EncodeSubmit("+491511", "x", SubmitOptions{ValidUntil: until})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := Decode(parts[0].Hex, MO)
	if !m.VPAbsolute.Equal(until) || m.VPAbsolute.Format(TimeLayout) != "2031-05-06T07:08:09-02:45" {
		t.Errorf("absolute validity %v, want %v", m.VPAbsolute, until)
	}
	if _, _, err := EncodeSubmit("+491511", "x", SubmitOptions{ValidUntil: until, Validity: time.Hour}); err == nil {
		t.Error("both validities accepted")
	}
}

// TestAddresses: type of address and field length for each kind, and
// their decoding.
func TestAddresses(t *testing.T) {
	for _, c := range []struct {
		name, in string
		alnum    bool
		hex      string // length, TOA, digits
		out      string
	}{
		{"international", "+4915112345678", false, "0D91945111325476F8", "+4915112345678"},
		{"international odd", "+491511234567", false, "0C91945111325476", "+491511234567"},
		{"national", "015112345678", false, "0C81101521436587", "015112345678"},
		{"short", "22020", false, "05812220F0", "22020"},
		{"star and hash", "*100#", false, "05811A00FB", "*100#"},
		{"alphanumeric", "InternetSMS", true, "14D04937BD2C7797E9D3E614", "InternetSMS"},
		{"alphanumeric 7", "Megafon", true, "0DD0CDF2396C7EBB01", "Megafon"},
		{"alphanumeric with extension", "a€", true, "06D0E14D19", "a€"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := ParseAddress(c.in, c.alnum)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.ToUpper(hexString(a.encode(false)))
			if got != c.hex {
				t.Errorf("encoded %s, want %s", got, c.hex)
			}
			r := &reader{b: a.encode(false)}
			back, err := r.address("da")
			if err != nil || back.Number != c.out || back.TOA != a.TOA {
				t.Errorf("decoded %q TOA %02X, %v; want %q TOA %02X", back.Number, back.TOA, err, c.out, a.TOA)
			}
		})
	}
	for _, bad := range []string{"", "+", "abc", "+49 151", "0151-123"} {
		if _, err := ParseAddress(bad, false); err == nil {
			t.Errorf("ParseAddress(%q) accepted", bad)
		}
	}
	if _, err := ParseAddress("TwelveChars!", true); err == nil {
		t.Error("a 12-character name was accepted")
	}
	smsc, _ := smscField("+491722270142")
	if got := strings.ToUpper(hexString(smsc)); got != "0791947122721024" {
		t.Errorf("SMSC field %s, want 0791947122721024 (length in octets)", got)
	}
}

// TestTimestampZones: SCTS time zones in quarter-hours, negative ones with
// bit 3 set, round trip through encode and decode.
func TestTimestampZones(t *testing.T) {
	for _, c := range []struct{ in, tz string }{
		{"2013-03-26T13:35:25+02:00", "80"},
		{"2011-02-28T11:50:50-05:00", "0A"},
		{"2020-01-01T00:00:00+00:00", "00"},
		{"2020-06-15T12:00:00+05:45", "32"},
		{"2020-06-15T12:00:00-03:30", "49"},
		{"2020-06-15T12:00:00+14:00", "65"},
		{"2020-06-15T12:00:00-12:00", "8C"},
		{"2099-12-31T23:59:59-00:15", "18"},
	} {
		t.Run(c.in, func(t *testing.T) {
			ts := encodeTimestamp(mustTime(t, c.in))
			if got := strings.ToUpper(hexString(ts[6:])); got != c.tz {
				t.Errorf("zone octet %s, want %s", got, c.tz)
			}
			got, err := (&reader{b: ts}).timestamp("scts")
			if err != nil {
				t.Fatal(err)
			}
			if got.Format(TimeLayout) != c.in {
				t.Errorf("got %s, want %s", got.Format(TimeLayout), c.in)
			}
		})
	}
}

// TestDecodeErrors: malformed PDUs name the field and the octet offset.
func TestDecodeErrors(t *testing.T) {
	for _, c := range []struct {
		name, hex, field string
		offset           int
	}{
		{"empty", "", "smsc", 0},
		{"odd hex", "000", "hex", 1},
		{"not hex", "00G1", "hex", 1},
		{"smsc too long", "0791", "smsc", 2},
		{"no first octet", "00", "first octet", 1},
		{"reserved mti", "0003", "first octet", 1},
		{"no mr", "0001", "mr", 2},
		{"da truncated", "0001000B9172", "da", 5},
		{"no dcs", "0001000391214300", "dcs", 8},
		{"no udl", "000100039121430000", "udl", 9},
		{"ud truncated", "0001000391214300000CC832", "ud", 10},
		{"bad scts digit", "000403912143000031F0622153428000", "scts", 9},
		{"bad month", "0004039121430000311362215342800100", "scts", 8},
		{"udh past ud", "00410003912143000403090000", "udh", 10},
		{"ie past udh", "004100039121430004080400030102000000", "udh", 11},
		{"odd ucs2", "0001000391214300080300410042", "ud", 12},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(c.hex, Auto)
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("got %v, want a *DecodeError", err)
			}
			if de.Field != c.field || de.Offset != c.offset {
				t.Errorf("got field %q offset %d (%v), want %q offset %d", de.Field, de.Offset, err, c.field, c.offset)
			}
			if !strings.Contains(err.Error(), c.field) {
				t.Errorf("message %q does not name the field", err)
			}
		})
	}
}

// TestDirection: the same MTI reads differently per direction.
func TestDirection(t *testing.T) {
	deliverish := "0004039121430000311062215342800100"
	for _, c := range []struct {
		hex  string
		dir  Direction
		want string
	}{
		{deliverish, MT, "DELIVER"},
		{deliverish, Auto, "DELIVER"},
		{"000000", MO, "DELIVER-REPORT"},
		{"0001000391214300000100", Auto, "SUBMIT"},
		{"0001000391214300000100", MO, "SUBMIT"},
		{"00010031106221534280", MT, "SUBMIT-REPORT"},
		{"0002000000000391214300", MO, "COMMAND"},
	} {
		m, err := Decode(c.hex, c.dir)
		if err != nil || m.Type != c.want {
			t.Errorf("%s as %v: got %q, %v; want %q", c.hex, c.dir, m.Type, err, c.want)
		}
	}
}
