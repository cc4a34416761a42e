package pdf

import (
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// fontDecoder turns the bytes of a shown string into text for one font.
type fontDecoder struct {
	cmap      *cmap // ToUnicode, if the font has one
	composite bool  // Type0: two-byte codes unless the CMap says otherwise
}

// font builds the decoder for the font resource name. An unknown font is
// read as a simple font.
func (t *textRun) font(res types.Dict, name string) *fontDecoder {
	f := &fontDecoder{}
	o := t.entry(res, "Font", name)
	if o == nil {
		return f
	}
	d, err := t.x.DereferenceDict(o)
	if err != nil || d == nil {
		return f
	}
	if st := d.NameEntry("Subtype"); st != nil && *st == "Type0" {
		f.composite = true
	}
	if o, ok := d.Find("ToUnicode"); ok {
		if sd := t.stream(o); sd != nil && decodeStream(sd) == nil {
			f.cmap = parseCMap(sd.Content)
		}
	}
	return f
}

func (f *fontDecoder) decode(b []byte) string {
	if f == nil {
		f = &fontDecoder{}
	}
	codeLen := 1
	if f.composite {
		codeLen = 2
	}
	var sb strings.Builder
	for len(b) > 0 {
		n := min(codeLen, len(b))
		if f.cmap != nil {
			var s string
			var ok bool
			if s, ok, n = f.cmap.next(b, codeLen); ok {
				sb.WriteString(s)
				b = b[n:]
				continue
			}
		}
		if !f.composite { // without a mapping, a simple font's code is WinAnsi
			sb.WriteRune(winAnsi(b[0]))
			n = 1
		}
		b = b[max(n, 1):]
	}
	return sb.String()
}

// winAnsi maps a WinAnsiEncoding code to its character (ISO 32000 D.2);
// it is Latin-1 except for 0x80-0x9F.
func winAnsi(c byte) rune {
	if c >= 0x80 && c <= 0x9F {
		if r := winAnsiHigh[c-0x80]; r != 0 {
			return r
		}
		return '\uFFFD'
	}
	return rune(c)
}

var winAnsiHigh = [32]rune{
	'€', 0, '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', 0, 'Ž', 0,
	0, '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', 0, 'ž', 'Ÿ',
}
