package pdu

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Change is one kind of replacement Transliterate made.
type Change struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Count int    `json:"count"`
}

// translitTable holds replacements that are not just an accent removed.
var translitTable = map[rune]string{
	'“': `"`, '”': `"`, '„': `"`, '‟': `"`, '«': `"`, '»': `"`, '″': `"`,
	'‘': "'", '’': "'", '‚': "'", '‛': "'", '‹': "'", '›': "'", '′': "'", '`': "'", '´': "'",
	'–': "-", '—': "-", '‐': "-", '‑': "-", '‒': "-", '−': "-", '―': "-",
	'…': "...", '•': "*", '·': ".", '\u00A0': " ", '\u2009': " ", '\u202F': " ", '\u200B': "",
	'\t': " ", 'ç': "Ç", 'Œ': "OE", 'œ': "oe", 'ł': "l", 'Ł': "L", 'đ': "d", 'Đ': "D", 'ı': "i",
	'×': "x", '÷': "/", '©': "(c)", '®': "(R)", '™': "TM", '₤': "£", '¢': "c",
}

// Transliterate replaces each character outside the GSM 7-bit alphabet by
// a close one that is inside it (smart quotes → straight ones, dashes →
// "-", "…" → "...", accented letters the alphabet lacks → without the
// accent) and reports every kind of change with its count, in order of
// first appearance. Characters with no replacement are kept, so the
// result may still need UCS-2.
func Transliterate(s string) (string, []Change) {
	s = norm.NFC.String(s) // "e" + U+0301, as pasted from some systems, is "é", which GSM has
	var b strings.Builder
	var changes []Change
	index := map[rune]int{}
	for _, r := range s {
		if toGSM[r] != nil {
			b.WriteRune(r)
			continue
		}
		to, ok := replacement(r)
		if !ok {
			b.WriteRune(r)
			continue
		}
		b.WriteString(to)
		if i, seen := index[r]; seen {
			changes[i].Count++
		} else {
			index[r] = len(changes)
			changes = append(changes, Change{From: string(r), To: to, Count: 1})
		}
	}
	return b.String(), changes
}

// replacement looks r up in the table, then tries r without its accents.
func replacement(r rune) (string, bool) {
	if to, ok := translitTable[r]; ok {
		return to, true
	}
	var base []rune
	for _, c := range norm.NFD.String(string(r)) {
		if !unicode.Is(unicode.Mn, c) {
			base = append(base, c)
		}
	}
	if len(base) == 0 || string(base) == string(r) || !FitsGSM(string(base)) {
		return "", false
	}
	return string(base), true
}
