package kannel

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/ianaindex"
)

// Coding values of sendsms's coding parameter.
const (
	CodingNone = -1 // not given: calq chooses (GSM 7-bit when the text fits, else UCS-2)
	Coding7Bit = 0  // GSM 7-bit
	Coding8Bit = 1  // 8-bit data: the text's bytes as they are
	CodingUCS2 = 2  // UCS-2
)

// Decode returns text, a sendsms text in charset, as UTF-8. As Kannel
// does, an empty charset is UTF-8, or UTF-16BE when coding is UCS-2, and
// 8-bit data (Coding8Bit) is not decoded: its bytes are returned as they
// are. Charset names are IANA's, any case ("UTF-8", "ISO-8859-1" or
// "latin1", "windows-1252", "UTF-16BE"), plus "UCS-2" (UTF-16BE) and
// "UTF-16" (big-endian unless a byte-order mark says otherwise). A text
// that is not valid in charset is an error: bytes a charset leaves
// undefined, a lone surrogate, an odd length in UTF-16.
func Decode(text, charset string, coding int) (string, error) {
	if coding == Coding8Bit {
		return text, nil
	}
	if charset == "" {
		charset = "UTF-8"
		if coding == CodingUCS2 {
			charset = "UTF-16BE"
		}
	}
	switch strings.ToUpper(charset) {
	case "UTF-8", "UTF8":
		if i := invalidUTF8(text); i >= 0 {
			return "", fmt.Errorf("byte 0x%02X at %d is not UTF-8", text[i], i)
		}
		return text, nil
	case "UTF-16BE", "UCS-2", "UCS2", "UCS-2BE", "ISO-10646-UCS-2", "UNICODEFFFE":
		return fromUTF16(text, false)
	case "UTF-16LE", "UCS-2LE":
		return fromUTF16(text, true)
	case "UTF-16":
		return fromBOM(text)
	}
	enc, err := lookup(charset)
	if err != nil {
		return "", err
	}
	return decodeWith(text, enc)
}

func invalidUTF8(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return i
			}
		}
	}
	return -1
}

// fromBOM decodes UTF-16 after its byte-order mark, big-endian without.
func fromBOM(s string) (string, error) {
	switch {
	case strings.HasPrefix(s, "\xFE\xFF"):
		return fromUTF16(s[2:], false)
	case strings.HasPrefix(s, "\xFF\xFE"):
		return fromUTF16(s[2:], true)
	}
	return fromUTF16(s, false)
}

func fromUTF16(s string, little bool) (string, error) {
	if len(s)%2 != 0 {
		return "", fmt.Errorf("%d bytes, an odd number: UTF-16 takes two per unit", len(s))
	}
	units := make([]uint16, len(s)/2)
	for i := range units {
		hi, lo := s[2*i], s[2*i+1]
		if little {
			hi, lo = lo, hi
		}
		units[i] = uint16(hi)<<8 | uint16(lo)
	}
	for i := 0; i < len(units); i++ {
		switch u := units[i]; {
		case utf16.IsSurrogate(rune(u)) && u < 0xDC00 && i+1 < len(units) && units[i+1] >= 0xDC00 && units[i+1] <= 0xDFFF:
			i++
		case utf16.IsSurrogate(rune(u)):
			return "", fmt.Errorf("a lone surrogate 0x%04X at byte %d", u, 2*i)
		}
	}
	return string(utf16.Decode(units)), nil
}

// lookup finds charset by IANA's names, then by the WHATWG's (which
// adds names such as "cp1252" but reads ISO-8859-1 as windows-1252, so
// it comes second).
func lookup(charset string) (encoding.Encoding, error) {
	enc, err := ianaindex.IANA.Encoding(charset)
	if err != nil || enc == nil {
		if enc, err = htmlindex.Get(charset); err != nil {
			return nil, fmt.Errorf("%q is not a charset calq knows (UTF-8, ISO-8859-1, windows-1252, UTF-16BE, UCS-2 and IANA's others)", charset)
		}
	}
	return enc, nil
}

var errUndefined = errors.New("undefined in the charset")

// decodeWith decodes s with enc, refusing what enc leaves undefined
// (which its decoder would turn into U+FFFD).
func decodeWith(s string, enc encoding.Encoding) (string, error) {
	if cm, ok := enc.(*charmap.Charmap); ok {
		for i := 0; i < len(s); i++ {
			if cm.DecodeByte(s[i]) == utf8.RuneError {
				return "", fmt.Errorf("byte 0x%02X at %d: %w", s[i], i, errUndefined)
			}
		}
	}
	out, err := enc.NewDecoder().String(s)
	if err != nil {
		return "", fmt.Errorf("does not decode: %w", err)
	}
	if i := strings.IndexRune(out, utf8.RuneError); i >= 0 {
		return "", fmt.Errorf("character %d: %w", utf8.RuneCountInString(out[:i])+1, errUndefined)
	}
	return out, nil
}
