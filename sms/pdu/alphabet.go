package pdu

// The GSM 7-bit default alphabet and its extension table (TS 23.038 §6.2.1).
// esc is the septet that selects the extension table for the next septet.
const esc = 0x1B

var gsmDefault = [128]rune{
	'@', '£', '$', '¥', 'è', 'é', 'ù', 'ì', 'ò', 'Ç', '\n', 'Ø', 'ø', '\r', 'Å', 'å',
	'Δ', '_', 'Φ', 'Γ', 'Λ', 'Ω', 'Π', 'Ψ', 'Σ', 'Θ', 'Ξ', ' ' /* ESC, shown as a space when alone */, 'Æ', 'æ', 'ß', 'É',
	' ', '!', '"', '#', '¤', '%', '&', '\'', '(', ')', '*', '+', ',', '-', '.', '/',
	'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', ':', ';', '<', '=', '>', '?',
	'¡', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M', 'N', 'O',
	'P', 'Q', 'R', 'S', 'T', 'U', 'V', 'W', 'X', 'Y', 'Z', 'Ä', 'Ö', 'Ñ', 'Ü', '§',
	'¿', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o',
	'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z', 'ä', 'ö', 'ñ', 'ü', 'à',
}

// gsmExtension maps the septet after ESC to its character.
var gsmExtension = map[byte]rune{
	0x0A: '\f', 0x14: '^', 0x28: '{', 0x29: '}', 0x2F: '\\',
	0x3C: '[', 0x3D: '~', 0x3E: ']', 0x40: '|', 0x65: '€',
}

// toGSM maps a character to its septets: one from the default table, or
// ESC and one from the extension table.
var toGSM = func() map[rune][]byte {
	m := make(map[rune][]byte, 140)
	for i, r := range gsmDefault {
		if i != esc {
			m[r] = []byte{byte(i)}
		}
	}
	for s, r := range gsmExtension {
		m[r] = []byte{esc, s}
	}
	return m
}()

// GSMSeptets reports how many septets r costs in the GSM 7-bit default
// alphabet: 1, 2 for the extension table (€ [ ] { } ~ ^ \ | and form feed),
// or 0 if r is not in the alphabet.
func GSMSeptets(r rune) int { return len(toGSM[r]) }

// FitsGSM reports whether every character of s is in the GSM 7-bit default
// alphabet or its extension table.
func FitsGSM(s string) bool {
	for _, r := range s {
		if toGSM[r] == nil {
			return false
		}
	}
	return true
}

// septetsToText decodes unpacked septets. ESC followed by a septet not in
// the extension table shows that septet from the default table, as TS
// 23.038 asks; a lone ESC at the end shows as a space.
func septetsToText(s []byte) string {
	out := make([]rune, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i] & 0x7F
		if c == esc && i+1 < len(s) {
			i++
			if r, ok := gsmExtension[s[i]&0x7F]; ok {
				out = append(out, r)
			} else {
				out = append(out, gsmDefault[s[i]&0x7F])
			}
			continue
		}
		out = append(out, gsmDefault[c])
	}
	return string(out)
}

// packSeptets packs septets into octets, least significant bit first,
// after fill zero bits (the padding that aligns text after a UDH).
func packSeptets(septets []byte, fill int) []byte {
	bits := fill + 7*len(septets)
	out := make([]byte, (bits+7)/8)
	for i, s := range septets {
		pos := fill + 7*i
		idx, shift := pos/8, pos%8
		out[idx] |= (s & 0x7F) << shift
		if shift > 1 {
			out[idx+1] |= (s & 0x7F) >> (8 - shift)
		}
	}
	return out
}

// unpackSeptets reads n septets from data after fill bits; data must hold
// at least (fill+7n+7)/8 octets.
func unpackSeptets(data []byte, fill, n int) []byte {
	out := make([]byte, n)
	for i := range out {
		pos := fill + 7*i
		idx, shift := pos/8, pos%8
		v := data[idx] >> shift
		if shift > 1 && idx+1 < len(data) {
			v |= data[idx+1] << (8 - shift)
		}
		out[i] = v & 0x7F
	}
	return out
}

// fillBits is the padding between a UDH of udhl octets (plus its length
// octet) and the first septet of text: (7 - ((UDHL+1)*8) % 7) % 7.
func fillBits(udhl int) int { return (7 - ((udhl+1)*8)%7) % 7 }
