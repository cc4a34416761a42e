package pdu

import (
	"fmt"
	"time"
	"unicode/utf16"
)

// interpretDCS reads the message class (-1 for none) and the alphabet
// from a data coding scheme (TS 23.038 §4). Reserved alphabets read as
// GSM 7-bit, as the standard asks.
func interpretDCS(dcs byte) (class int, encoding string) {
	alphabets := [4]string{"gsm7", "8bit", "ucs2", "gsm7"}
	switch dcs >> 4 {
	case 0, 1, 2, 3, 4, 5, 6, 7: // general data coding, with or without automatic deletion
		class = -1
		if dcs&0x10 != 0 {
			class = int(dcs & 3)
		}
		if dcs&0x20 != 0 {
			return class, "compressed"
		}
		return class, alphabets[dcs>>2&3]
	case 0xE: // message waiting indication, UCS-2
		return -1, "ucs2"
	case 0xF: // data coding / message class
		if dcs&0x04 != 0 {
			return int(dcs & 3), "8bit"
		}
		return int(dcs & 3), "gsm7"
	}
	return -1, "gsm7"
}

func (r *reader) pidDCS(m *Message) error {
	var err error
	if m.PID, err = r.byte("pid"); err != nil {
		return err
	}
	if m.DCS, err = r.byte("dcs"); err != nil {
		return err
	}
	m.Class, m.Encoding = interpretDCS(m.DCS)
	return nil
}

// validity reads TP-VP in the format vpf gives: 0 none, 2 relative,
// 3 absolute, 1 enhanced (TS 23.040 §9.2.3.12).
func (r *reader) validity(m *Message, vpf byte) error {
	switch vpf {
	case 2:
		vp, err := r.byte("vp")
		m.VPSeconds = int(ValidityDuration(vp) / time.Second)
		return err
	case 3:
		t, err := r.timestamp("vp")
		m.VPAbsolute = t
		return err
	case 1:
		start := r.off
		b, err := r.bytes("vp", 7)
		if err != nil {
			return err
		}
		switch b[0] & 7 {
		case 1:
			m.VPSeconds = int(ValidityDuration(b[1]) / time.Second)
		case 2:
			m.VPSeconds = int(b[1])
		case 3:
			var v [3]int
			for i := range v {
				lo, hi := int(b[1+i]&0x0F), int(b[1+i]>>4)
				if lo > 9 || hi > 9 {
					return &DecodeError{Field: "vp", Offset: start + 1 + i, Err: fmt.Errorf("%w: %02X", errBCD, b[1+i])}
				}
				v[i] = lo*10 + hi
			}
			m.VPSeconds = v[0]*3600 + v[1]*60 + v[2]
		}
	}
	return nil
}

// userData reads TP-UDL and TP-UD: the header when udhi, then the text or
// data in the alphabet that the DCS named.
func (r *reader) userData(m *Message, udhi bool) error {
	udlOff := r.off
	udl, err := r.byte("udl")
	if err != nil {
		return err
	}
	n := int(udl) // septets for GSM 7-bit, octets otherwise
	if m.Encoding == "gsm7" {
		if udl > 160 {
			return &DecodeError{Field: "udl", Offset: udlOff, Err: fmt.Errorf("%d septets is more than 160", udl)}
		}
		n = (int(udl)*7 + 7) / 8
	} else if udl > 140 {
		return &DecodeError{Field: "udl", Offset: udlOff, Err: fmt.Errorf("%d octets is more than 140", udl)}
	}
	udOff := r.off
	ud, err := r.bytes("ud", n)
	if err != nil {
		return err
	}
	hdr := 0 // octets taken by the header, its length octet included
	if udhi {
		if hdr, err = m.parseUDH(ud, udOff); err != nil {
			return err
		}
	}
	switch m.Encoding {
	case "gsm7":
		skip := (hdr*8 + fillBits(hdr-1)) / 7
		if hdr == 0 {
			skip = 0
		}
		if skip > int(udl) {
			return &DecodeError{Field: "udh", Offset: udOff, Err: fmt.Errorf("header of %d septets is longer than the user data (%d septets)", skip, udl)}
		}
		m.Text = septetsToText(unpackSeptets(ud, skip*7, int(udl)-skip))
	case "ucs2":
		body := ud[hdr:]
		if len(body)%2 != 0 {
			return &DecodeError{Field: "ud", Offset: udOff + len(ud) - 1, Err: fmt.Errorf("UCS-2 text of odd length %d", len(body))}
		}
		units := make([]uint16, len(body)/2)
		for i := range units {
			units[i] = uint16(body[2*i])<<8 | uint16(body[2*i+1])
		}
		m.Text = string(utf16.Decode(units))
	default:
		m.Data = append([]byte(nil), ud[hdr:]...)
	}
	return nil
}

// parseUDH reads the user data header at the start of ud and returns the
// octets it takes with its length octet. Concatenation elements (IEI 00,
// 8-bit reference; 08, 16-bit) fill m.Concat; others are kept in m.UDH.
func (m *Message) parseUDH(ud []byte, off int) (int, error) {
	if len(ud) == 0 {
		return 0, &DecodeError{Field: "udh", Offset: off, Err: fmt.Errorf("%w: no header length", ErrTruncated)}
	}
	udhl := int(ud[0])
	if 1+udhl > len(ud) {
		return 0, &DecodeError{Field: "udh", Offset: off, Err: fmt.Errorf("header length %d is longer than the user data (%d octets)", udhl, len(ud)-1)}
	}
	h := ud[1 : 1+udhl]
	m.UDH = append([]byte(nil), h...)
	for i := 0; i < len(h); {
		if i+2 > len(h) || i+2+int(h[i+1]) > len(h) {
			return 0, &DecodeError{Field: "udh", Offset: off + 1 + i, Err: fmt.Errorf("information element runs past the header")}
		}
		iei, ie := h[i], h[i+2:i+2+int(h[i+1])]
		switch {
		case iei == 0x00 && len(ie) == 3:
			// 23.040 9.2.3.24.1: an element with total 0, or a part number
			// of 0 or above the total, is ignored.
			if ie[1] > 0 && ie[2] > 0 && ie[2] <= ie[1] {
				m.Concat = &Concat{Ref: int(ie[0]), Total: int(ie[1]), Seq: int(ie[2]), Bits: 8}
			}
		case iei == 0x08 && len(ie) == 4:
			if ie[2] > 0 && ie[3] > 0 && ie[3] <= ie[2] {
				m.Concat = &Concat{Ref: int(ie[0])<<8 | int(ie[1]), Total: int(ie[2]), Seq: int(ie[3]), Bits: 16}
			}
		case iei == 0x00 || iei == 0x08:
			return 0, &DecodeError{Field: "udh", Offset: off + 1 + i, Err: fmt.Errorf("concatenation element of length %d", len(ie))}
		}
		i += 2 + len(ie)
	}
	return 1 + udhl, nil
}
