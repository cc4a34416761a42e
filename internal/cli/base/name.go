package base

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// CheckText refuses a name calq stores as text (a label, a worker's name,
// a filter on them) when it holds a NUL or bytes that are not UTF-8:
// PostgreSQL's text takes neither, and SQLite would keep what PostgreSQL
// refuses with a raw SQL error. what names the input: "--label".
// Command lines and file names are bytes, and travel as such; names are
// not.
func CheckText(what, s string) error {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return fmt.Errorf("%s %s: a NUL (U+0000) at offset %d, which a name stored as text cannot hold", what, QuoteName(s), i)
	}
	if !utf8.ValidString(s) {
		i := invalidAt(s)
		return fmt.Errorf("%s %s: byte 0x%02x at offset %d is not UTF-8, and a name is stored as text", what, QuoteName(s), s[i], i)
	}
	return nil
}

// invalidAt returns the offset of the first byte of s that is not UTF-8,
// or -1.
func invalidAt(s string) int {
	for i, c := range s {
		if c == utf8.RuneError {
			if _, w := utf8.DecodeRuneInString(s[i:]); w == 1 {
				return i
			}
		}
	}
	return -1
}
