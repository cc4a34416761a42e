package pdu

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// Class is the message class a sender asks for; the zero value asks none.
type Class int

const (
	NoClass Class = iota
	Class0        // flash: shown at once, not stored
	Class1        // stored in the phone
	Class2        // stored on the SIM
	Class3        // passed to terminal equipment
)

// SubmitOptions are the choices of EncodeSubmit beyond address and text.
type SubmitOptions struct {
	SMSC          string        // "" lets the modem use its configured SMSC (field 00)
	Flash         bool          // class 0; wins over Class
	Class         Class         // message class when not Flash
	Report        bool          // ask for a status report (TP-SRR)
	Validity      time.Duration // relative validity, rounded up to the next encodable period; 0 for the network's default
	ValidUntil    time.Time     // absolute validity; exclusive with Validity
	Ref           int           // concatenation reference 1-65535; 0 chooses one at random
	Force16bitRef bool          // a 16-bit reference even when Ref fits 8 bits
	Transliterate bool          // replace characters outside GSM 7-bit (see Transliterate)
	UCS2          bool          // UCS-2 even when the text fits GSM 7-bit
}

// Part is one encoded PDU of a message.
type Part struct {
	Hex        string // SMSC field first, as written after AT+CMGS
	TPDULength int    // octets after the SMSC field: the <length> of AT+CMGS
	Seq, Total int    // 1-based; Total is 1 for a single PDU
	Ref        int    // concatenation reference, 0 for a single PDU
	Text       string // the part of the text this PDU carries ("" for data)
	Encoding   string // "gsm7", "ucs2" or "8bit"
}

// Part sizes (3GPP TS 23.040 §9.2.3.24): the user data of one
// PDU is 140 octets; a concatenation header takes 6 (8-bit reference) or
// 7 (16-bit) of them, with fill bits for GSM 7-bit.
var limits = map[string][3]int{ // single, 8-bit ref, 16-bit ref: septets for gsm7, octets otherwise
	"gsm7": {160, 153, 152},
	"ucs2": {140, 134, 132},
	"8bit": {140, 134, 133},
}

// ErrTooLong is returned for texts that need more than 255 parts.
var ErrTooLong = errors.New("message needs more than 255 parts")

// EncodeSubmit encodes text to the number to as SMS-SUBMIT PDUs: GSM 7-bit
// when every character fits, else UCS-2. The TP-MR is 0 (modems set their
// own). With o.Transliterate, characters outside GSM 7-bit are replaced
// when that makes the whole text fit; the changes are returned. Cost:
// linear in len(text).
func EncodeSubmit(to, text string, o SubmitOptions) ([]Part, []Change, error) {
	if !utf8.ValidString(text) {
		return nil, nil, errors.New("pdu: text is not valid UTF-8")
	}
	var changes []Change
	if o.Transliterate && !FitsGSM(text) {
		if t, ch := Transliterate(text); FitsGSM(t) {
			text, changes = t, ch
		}
	}
	enc, units := textUnits(text, o.UCS2)
	parts, err := encodeSubmit(to, enc, units, o)
	return parts, changes, err
}

// EncodeSubmitData encodes 8-bit data as SMS-SUBMIT PDUs (DCS 8-bit),
// split like text when longer than 140 octets.
func EncodeSubmitData(to string, data []byte, o SubmitOptions) ([]Part, error) {
	units := make([]unit, len(data))
	for i, b := range data {
		units[i] = unit{b: []byte{b}, r: -1}
	}
	return encodeSubmit(to, "8bit", units, o)
}

// unit is what a split may not cut: one character's septets or UTF-16
// code units (an ESC pair, a surrogate pair), or one data octet.
type unit struct {
	b []byte
	r rune // -1 for data
}

func textUnits(text string, ucs2 bool) (string, []unit) {
	units := make([]unit, 0, len(text))
	if !ucs2 && FitsGSM(text) {
		for _, r := range text {
			units = append(units, unit{b: toGSM[r], r: r})
		}
		return "gsm7", units
	}
	for _, r := range text {
		b := []byte{byte(r >> 8), byte(r)}
		if r >= 0x10000 { // a surrogate pair, which no split may cut
			r1, r2 := utf16.EncodeRune(r)
			b = []byte{byte(r1 >> 8), byte(r1), byte(r2 >> 8), byte(r2)}
		}
		units = append(units, unit{b: b, r: r})
	}
	return "ucs2", units
}

// segment is the payload of one part: septets or octets, and its text.
type segment struct {
	payload []byte
	text    string
}

// split cuts units into segments of at most max payload octets (septets),
// never inside a unit; one segment if everything fits in single.
func split(units []unit, single, max int) []segment {
	var all []byte
	for _, u := range units {
		all = append(all, u.b...)
	}
	if len(all) <= single {
		return []segment{{payload: all, text: unitsText(units)}}
	}
	var segs []segment
	start, size := 0, 0
	for i, u := range units {
		if size+len(u.b) > max {
			segs = append(segs, makeSegment(units[start:i]))
			start, size = i, 0
		}
		size += len(u.b)
	}
	return append(segs, makeSegment(units[start:]))
}

func makeSegment(units []unit) segment {
	var s segment
	for _, u := range units {
		s.payload = append(s.payload, u.b...)
	}
	s.text = unitsText(units)
	return s
}

func unitsText(units []unit) string {
	var b strings.Builder
	for _, u := range units {
		if u.r >= 0 {
			b.WriteRune(u.r)
		}
	}
	return b.String()
}

// dcsFor is the data coding scheme for an alphabet and class.
func dcsFor(enc string, c Class) byte {
	d := map[string]byte{"gsm7": 0x00, "8bit": 0x04, "ucs2": 0x08}[enc]
	if c != NoClass {
		d |= 0x10 | byte(c-Class0)
	}
	return d
}

// plan splits units for enc and chooses the concatenation reference.
func plan(enc string, units []unit, ref int, force16 bool) ([]segment, *Concat, error) {
	lim := limits[enc]
	if ref < 0 || ref > 0xFFFF {
		return nil, nil, fmt.Errorf("pdu: concatenation reference %d is not between 1 and 65535", ref)
	}
	bits := 8
	if force16 || ref > 0xFF {
		bits = 16
	}
	max := lim[1]
	if bits == 16 {
		max = lim[2]
	}
	segs := split(units, lim[0], max)
	if len(segs) == 1 {
		return segs, nil, nil
	}
	if len(segs) > 255 {
		return nil, nil, fmt.Errorf("pdu: %w (%d)", ErrTooLong, len(segs))
	}
	if ref == 0 {
		ref = 1 + rand.IntN(1<<bits-1)
	}
	return segs, &Concat{Ref: ref, Total: len(segs), Bits: bits}, nil
}

// userData builds TP-UDL and TP-UD for one segment.
func userData(enc string, s segment, c *Concat) (byte, []byte) {
	var hdr []byte
	switch {
	case c == nil:
	case c.Bits == 8:
		hdr = []byte{5, 0x00, 3, byte(c.Ref), byte(c.Total), byte(c.Seq)}
	default:
		hdr = []byte{6, 0x08, 4, byte(c.Ref >> 8), byte(c.Ref), byte(c.Total), byte(c.Seq)}
	}
	if enc != "gsm7" {
		ud := append(hdr, s.payload...)
		return byte(len(ud)), ud
	}
	fill, hdrSeptets := 0, 0
	if hdr != nil {
		fill = fillBits(len(hdr) - 1)
		hdrSeptets = (len(hdr)*8 + fill) / 7
	}
	return byte(hdrSeptets + len(s.payload)), append(hdr, packSeptets(s.payload, fill)...)
}

func encodeSubmit(to, enc string, units []unit, o SubmitOptions) ([]Part, error) {
	da, err := ParseAddress(to, false)
	if err != nil {
		return nil, fmt.Errorf("pdu: destination: %w", err)
	}
	smsc, err := smscField(o.SMSC)
	if err != nil {
		return nil, err
	}
	fo, vp, err := validityField(o)
	if err != nil {
		return nil, err
	}
	if o.Report {
		fo |= 0x20
	}
	class := o.Class
	if o.Flash {
		class = Class0
	}
	if class < NoClass || class > Class3 {
		return nil, fmt.Errorf("pdu: message class value %d is out of range", int(class))
	}
	segs, concat, err := plan(enc, units, o.Ref, o.Force16bitRef)
	if err != nil {
		return nil, err
	}
	parts := make([]Part, len(segs))
	for i, s := range segs {
		tpdu := []byte{fo}
		if concat != nil {
			tpdu[0] |= 0x40
			concat.Seq = i + 1
		}
		tpdu = append(tpdu, 0) // TP-MR: the modem sets it
		tpdu = append(tpdu, da.encode(false)...)
		tpdu = append(tpdu, 0, dcsFor(enc, class))
		tpdu = append(tpdu, vp...)
		udl, ud := userData(enc, s, concat)
		tpdu = append(append(tpdu, udl), ud...)
		parts[i] = newPart(smsc, tpdu, i, len(segs), concat, s.text)
		parts[i].Encoding = enc
	}
	return parts, nil
}

func newPart(smsc, tpdu []byte, i, total int, c *Concat, text string) Part {
	p := Part{Hex: strings.ToUpper(hex.EncodeToString(append(append([]byte(nil), smsc...), tpdu...))),
		TPDULength: len(tpdu), Seq: i + 1, Total: total, Text: text}
	if c != nil {
		p.Ref = c.Ref
	}
	return p
}

// smscField encodes the SMSC address field; "" gives 00, the modem's own.
func smscField(s string) ([]byte, error) {
	if s == "" {
		return []byte{0}, nil
	}
	a, err := ParseAddress(s, false)
	if err != nil {
		return nil, fmt.Errorf("pdu: smsc: %w", err)
	}
	return a.encode(true), nil
}

// validityField returns the first octet with its VPF bits and TP-VP.
func validityField(o SubmitOptions) (byte, []byte, error) {
	switch {
	case o.Validity != 0 && !o.ValidUntil.IsZero():
		return 0, nil, errors.New("pdu: both a relative and an absolute validity")
	case o.Validity != 0:
		vp, err := ValidityPeriod(o.Validity)
		if err != nil {
			return 0, nil, fmt.Errorf("pdu: %w", err)
		}
		return 0x01 | 0x10, []byte{vp}, nil
	case !o.ValidUntil.IsZero():
		if y := o.ValidUntil.Year(); y < 2000 || y > 2099 {
			return 0, nil, fmt.Errorf("pdu: validity time %v is not in 2000-2099", o.ValidUntil)
		}
		return 0x01 | 0x18, encodeTimestamp(o.ValidUntil), nil
	}
	return 0x01, nil, nil
}

// DeliverOptions are the choices of EncodeDeliver.
type DeliverOptions struct {
	SMSC          string // the service centre that delivered it; "" writes 00
	Flash         bool
	Ref           int // concatenation reference; 0 chooses one at random
	Force16bitRef bool
}

// EncodeDeliver builds the SMS-DELIVER PDUs a phone would receive for text
// from the sender from (a number or a name of up to 11 characters), as a
// modem lists them with AT+CMGL: for emulators and tests. scts must fall
// in 2000-2099; its zone is kept in quarter-hours.
func EncodeDeliver(from, text string, scts time.Time, o DeliverOptions) ([]string, error) {
	if !utf8.ValidString(text) {
		return nil, errors.New("pdu: text is not valid UTF-8")
	}
	oa, err := ParseAddress(from, true)
	if err != nil {
		return nil, fmt.Errorf("pdu: originator: %w", err)
	}
	if y := scts.Year(); y < 2000 || y > 2099 {
		return nil, fmt.Errorf("pdu: time stamp %v is not in 2000-2099", scts)
	}
	smsc, err := smscField(o.SMSC)
	if err != nil {
		return nil, err
	}
	class := NoClass
	if o.Flash {
		class = Class0
	}
	enc, units := textUnits(text, false)
	segs, concat, err := plan(enc, units, o.Ref, o.Force16bitRef)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(segs))
	for i, s := range segs {
		tpdu := []byte{0x04} // MTI 0, TP-MMS: no more messages waiting
		if concat != nil {
			tpdu[0] |= 0x40
			concat.Seq = i + 1
		}
		tpdu = append(tpdu, oa.encode(false)...)
		tpdu = append(tpdu, 0, dcsFor(enc, class))
		tpdu = append(tpdu, encodeTimestamp(scts)...)
		udl, ud := userData(enc, s, concat)
		tpdu = append(append(tpdu, udl), ud...)
		out[i] = newPart(smsc, tpdu, i, len(segs), concat, "").Hex
	}
	return out, nil
}
