package pgqueue

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// storable makes s fit a text column: PostgreSQL's text takes no NUL and
// only UTF-8, and an error may quote a file name or a command line, which
// are bytes. Such a byte becomes \xNN, as calq prints them, instead of
// failing the statement that records the attempt (and with it the
// attempt). Text that fits is returned as it is.
func storable(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c, w := utf8.DecodeRuneInString(s[i:])
		if c == 0 || c == utf8.RuneError && w == 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
		} else {
			b.WriteString(s[i : i+w])
		}
		i += w
	}
	return b.String()
}
