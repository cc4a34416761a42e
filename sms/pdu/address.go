package pdu

import (
	"errors"
	"fmt"
	"strings"
)

// Type-of-address octets calq writes (TS 23.040 §9.1.2.5): bit 7 set,
// type of number in bits 6-4, numbering plan in bits 3-0.
const (
	TOAInternational byte = 0x91 // "+4915112345678"
	TOAUnknown       byte = 0x81 // national or short numbers: the network decides
	TOANational      byte = 0xA1
	TOAAlphanumeric  byte = 0xD0 // a sender name of up to 11 GSM characters
)

const tonInternational, tonAlphanumeric = 1, 5

// semiOctets are the characters of a BCD address digit (TS 23.040 §9.1.2.3).
const semiOctets = "0123456789*#abc"

// Address is a phone number or sender name with its type of address.
type Address struct {
	Number string // "+4915112345678" international, "015112345678" national or short, or text
	TOA    byte
}

// ParseAddress chooses the type of address for s: international for a
// leading "+", unknown (national or short) for digits, * and #, and
// alphanumeric when alnum is true and s is other GSM text of up to 11
// characters (only an originator may be alphanumeric).
func ParseAddress(s string, alnum bool) (Address, error) {
	digits, intl := strings.CutPrefix(s, "+")
	switch {
	case s == "":
		return Address{}, errors.New("empty address")
	case isDigits(digits) && len(digits) <= 20:
		if intl {
			return Address{Number: s, TOA: TOAInternational}, nil
		}
		return Address{Number: s, TOA: TOAUnknown}, nil
	case !alnum:
		return Address{}, fmt.Errorf("%q is not a phone number (digits, * and #, with an optional leading +)", s)
	case !FitsGSM(s) || gsmLen(s) > 11:
		return Address{}, fmt.Errorf("%q is not a sender name of up to 11 GSM 7-bit septets", s)
	}
	return Address{Number: s, TOA: TOAAlphanumeric}, nil
}

func isDigits(s string) bool {
	for _, c := range s {
		if c > 0x7F || strings.IndexByte(semiOctets[:12], byte(c)) < 0 {
			return false
		}
	}
	return s != ""
}

func gsmLen(s string) int {
	n := 0
	for _, r := range s {
		n += GSMSeptets(r)
	}
	return n
}

// encode writes an address field: for DA/OA/RA the length is the number of
// digits (useful semi-octets for a name); for the SMSC (smsc true) it is the
// number of octets that follow, including the type of address.
func (a Address) encode(smsc bool) []byte {
	var body []byte
	n := 0
	if a.TOA>>4&7 == tonAlphanumeric {
		var septets []byte
		for _, r := range a.Number {
			septets = append(septets, toGSM[r]...)
		}
		body = packSeptets(septets, 0)
		n = (len(septets)*7 + 3) / 4
	} else {
		digits := strings.TrimPrefix(a.Number, "+")
		body = make([]byte, (len(digits)+1)/2)
		for i := range body {
			body[i] = 0xF0
		}
		for i := 0; i < len(digits); i++ {
			d := byte(strings.IndexByte(semiOctets, digits[i]))
			if i%2 == 0 {
				body[i/2] = body[i/2]&0xF0 | d
			} else {
				body[i/2] = body[i/2]&0x0F | d<<4
			}
		}
		n = len(digits)
	}
	if smsc {
		n = len(body) + 1
	}
	return append([]byte{byte(n), a.TOA}, body...)
}

// address reads a DA, OA or RA field (length in semi-octets).
func (r *reader) address(field string) (Address, error) {
	n, err := r.byte(field)
	if err != nil {
		return Address{}, err
	}
	toa, err := r.byte(field)
	if err != nil {
		return Address{}, err
	}
	body, err := r.bytes(field, (int(n)+1)/2)
	if err != nil {
		return Address{}, err
	}
	if toa>>4&7 == tonAlphanumeric {
		septets := unpackSeptets(body, 0, int(n)*4/7)
		return Address{Number: septetsToText(septets), TOA: toa}, nil
	}
	return Address{Number: bcdAddress(body, int(n), toa), TOA: toa}, nil
}

// smscAddress reads the SMSC field (length in octets, 0 for none).
func (r *reader) smscAddress() (Address, error) {
	n, err := r.byte("smsc")
	if err != nil || n == 0 {
		return Address{}, err
	}
	toa, err := r.byte("smsc")
	if err != nil {
		return Address{}, err
	}
	body, err := r.bytes("smsc", int(n)-1)
	if err != nil {
		return Address{}, err
	}
	return Address{Number: bcdAddress(body, 2*len(body), toa), TOA: toa}, nil
}

// bcdAddress reads up to n digits in swapped BCD; F marks padding.
func bcdAddress(body []byte, n int, toa byte) string {
	var b strings.Builder
	if toa>>4&7 == tonInternational {
		b.WriteByte('+')
	}
	for i := 0; i < n && i/2 < len(body); i++ {
		d := body[i/2] & 0x0F
		if i%2 == 1 {
			d = body[i/2] >> 4
		}
		if d < 0x0F {
			b.WriteByte(semiOctets[d])
		}
	}
	return b.String()
}
