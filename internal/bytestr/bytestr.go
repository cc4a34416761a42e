// Package bytestr carries strings that may hold any bytes (a command line,
// a file name) through JSON exactly. encoding/json turns bytes that are not
// UTF-8 into U+FFFD, so a job recorded in the shared queue would run, or
// open, something else than what was submitted.
//
// A String that is valid UTF-8 is written as the JSON string it always
// was, so older payloads and older readers see no change; any other is
// written as {"base64":"..."}, which a reader that predates this package
// refuses rather than runs mangled. Both forms decode. Text escapes what a
// text column cannot hold in a message that is only shown. All is safe for
// concurrent use; each call costs one pass over the string.
package bytestr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// String is a string of bytes that survives JSON unchanged.
type String string

// raw is the form of a String that is not valid UTF-8.
type raw struct {
	Base64 []byte `json:"base64"`
}

// MarshalJSON writes s as a JSON string when it is UTF-8, else as
// {"base64":"..."}.
func (s String) MarshalJSON() ([]byte, error) {
	if utf8.ValidString(string(s)) {
		return json.Marshal(string(s))
	}
	return json.Marshal(raw{Base64: []byte(s)})
}

// UnmarshalJSON reads either form that MarshalJSON writes.
func (s *String) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '{' {
		var r raw
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("bytes in JSON: %w", err)
		}
		if r.Base64 == nil {
			return fmt.Errorf("bytes in JSON: an object without base64")
		}
		*s = String(r.Base64)
		return nil
	}
	var t string
	if err := json.Unmarshal(b, &t); err != nil {
		return err
	}
	*s = String(t)
	return nil
}

// Text makes s fit a text column: PostgreSQL's text takes no NUL and only
// UTF-8, and a message may quote a file name, a command line or what a
// modem said, which are bytes. Such a byte becomes \xNN, as calq prints
// them, instead of failing the statement that records it. Text that fits
// is returned as it is.
func Text(s string) string {
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
