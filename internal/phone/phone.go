// Package phone reads phone numbers as people write them. Normalize is
// the one rule for what calq takes as a number: the SMS outbox
// (sms.NormalizeNumber) and the address book (calq/convert/contacts)
// both use it, so that a number stored in a contact is one the modems
// accept. It is pure and safe for concurrent use.
package phone

import (
	"fmt"
	"strings"
)

// Normalize returns the phone number s as the network takes it: an
// optional leading "+" and 3 to 20 digits. The separators people write
// ("+49 151 2345-678", "(0151) 234.56.78", "0151/2345678") are dropped;
// anything else is an error naming s.
func Normalize(s string) (string, error) {
	t := strings.TrimSpace(s)
	intl := strings.HasPrefix(t, "+")
	var b strings.Builder
	if intl {
		b.WriteByte('+')
		t = t[1:]
	}
	n := 0
	for _, r := range t {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
			n++
		case r == ' ' || r == '-' || r == '.' || r == '(' || r == ')' || r == '/' || r == '\u00a0':
		default:
			return "", fmt.Errorf("%q is not a phone number: %q is not a digit", s, r)
		}
	}
	if n < 3 || n > 20 {
		return "", fmt.Errorf("%q is not a phone number: %d digits, want 3 to 20", s, n)
	}
	return b.String(), nil
}
