package kannel

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxURL is the longest dlr-url CheckURL takes, in bytes.
const MaxURL = 4096

// Codes are the escape codes of a dlr-url that calq knows, as Kannel's
// user guide lists them. Those calq has no value for (%M mwi, %u udh,
// %B billing, %o account, %O DCS, %f originating SMSC, %D meta-data, %x
// smsbox id) become the empty string; %R is not among them.
const Codes = "ksSrabtTpPqQiIdAFncmMCuBoOfDx"

// Expand returns tmpl with its escape codes replaced by d's values,
// URL-escaped as Kannel does (query escaping: a space is "+"), and each
// "%%" replaced by "%". %t is the time as "YYYY-MM-DD HH:MM" in UTC, %T
// in UNIX seconds; both are empty for a zero Time. The words of %k, %s,
// %S, %r and %a are d.Text's, split at white space: %k the first, each
// %s (or %S) the next one after it, %r those no %s took yet, %a all of
// them. %S is not escaped but for what no URL may hold (controls,
// spaces, bytes beyond ASCII, a % that starts no escape), and turns "*"
// into "~" as Kannel's does. tmpl has passed CheckURL: then so does the
// result's scheme and host, which no code may change.
func Expand(tmpl string, d DLR) string {
	var b strings.Builder
	w := words{list: strings.Fields(d.Text), next: 1}
	for i := 0; i < len(tmpl); i++ {
		c := tmpl[i]
		if c != '%' || i+1 == len(tmpl) {
			b.WriteByte(c)
			continue
		}
		i++
		switch code := tmpl[i]; code {
		case '%':
			b.WriteByte('%')
		case 'S':
			b.WriteString(rawWord(w.take()))
		default:
			v, ok := value(code, d, &w)
			if !ok { // not a code: CheckURL refuses it, Expand keeps it
				b.WriteByte('%')
				b.WriteByte(code)
				continue
			}
			b.WriteString(url.QueryEscape(v))
		}
	}
	return b.String()
}

// words hands out a text's words to %s, %S and %r.
type words struct {
	list []string
	next int // the index of the next word %s takes
}

func (w *words) take() string {
	if w.next >= len(w.list) {
		return ""
	}
	w.next++
	return w.list[w.next-1]
}

func (w *words) first() string {
	if len(w.list) == 0 {
		return ""
	}
	return w.list[0]
}

func (w *words) rest() string {
	if w.next >= len(w.list) {
		return ""
	}
	return strings.Join(w.list[w.next:], " ")
}

// value is code's value for d, unescaped; false when code is none.
func value(code byte, d DLR, w *words) (string, bool) {
	switch code {
	case 'k':
		return w.first(), true
	case 's':
		return w.take(), true
	case 'r':
		return w.rest(), true
	case 'a':
		return strings.Join(w.list, " "), true
	case 'b':
		return d.Text, true
	case 't', 'T':
		return timeValue(code, d), true
	case 'p', 'P', 'q', 'Q':
		return number(code, d), true
	case 'd':
		return strconv.Itoa(d.Type), true
	case 'c':
		return strconv.Itoa(d.Coding), true
	case 'm':
		if d.MClass < 0 {
			return "", true
		}
		return strconv.Itoa(d.MClass), true
	}
	return stringValue(code, d)
}

func stringValue(code byte, d DLR) (string, bool) {
	switch code {
	case 'A':
		return d.SMSCReply, true
	case 'i':
		return d.SMSCID, true
	case 'I':
		return d.ID, true
	case 'F':
		return d.ForeignID, true
	case 'n':
		return d.User, true
	case 'C':
		return d.Charset, true
	}
	return "", strings.IndexByte(Codes, code) >= 0
}

func timeValue(code byte, d DLR) string {
	switch {
	case d.Time.IsZero():
		return ""
	case code == 't':
		return d.Time.UTC().Format("2006-01-02 15:04")
	}
	return strconv.FormatInt(d.Time.Unix(), 10)
}

// number is %p or %P; %q and %Q turn a leading "00" into "+".
func number(code byte, d DLR) string {
	n := d.From
	if code == 'P' || code == 'Q' {
		n = d.To
	}
	if rest, ok := strings.CutPrefix(n, "00"); ok && (code == 'q' || code == 'Q') {
		return "+" + rest
	}
	return n
}

// rawWord is a word for %S: "*" turned into "~", and escaped only where a
// URL could not hold it.
func rawWord(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '*':
			b.WriteByte('~')
		case c <= ' ' || c >= 0x7f || c == '%' && !hexPair(s, i+1):
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// hexPair says whether s holds two hex digits at i.
func hexPair(s string, i int) bool {
	return i+1 < len(s) && isHex(s[i]) && isHex(s[i+1])
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// CheckURL checks a dlr-url: an absolute http or https URL of at most
// MaxURL bytes whose escape codes are all Kannel's (Codes) and stand
// after the host (in the path, the query or the fragment: the host a
// report goes to is known, and checked against the webhook policy, when
// the message is sent); a literal "%" is written "%%" and must start an
// escape such as "%%20". The error names the first code that is not
// one, and where it is.
func CheckURL(tmpl string) error {
	_, err := Target(tmpl)
	return err
}

// Target checks tmpl as CheckURL does and returns it parsed, each code
// replaced by a letter: the scheme and host of every expansion of tmpl,
// for a policy to check where its reports may go (url.Parse refuses the
// template itself, whose codes are not URL escapes).
func Target(tmpl string) (*url.URL, error) {
	if len(tmpl) > MaxURL {
		return nil, fmt.Errorf("%d bytes long, longer than the %d calq takes", len(tmpl), MaxURL)
	}
	host, err := afterHost(tmpl)
	if err != nil {
		return nil, err
	}
	plain, err := withoutCodes(tmpl, host)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(plain)
	switch {
	case err != nil:
		return nil, fmt.Errorf("not a URL once its codes are replaced: %w", errors.Unwrap(err))
	case u.Host == "":
		return nil, errors.New("it names no host")
	}
	return u, nil
}

// afterHost returns where the host (the authority) of tmpl ends.
func afterHost(tmpl string) (int, error) {
	start := 0
	for _, p := range []string{"http://", "https://"} {
		if len(tmpl) >= len(p) && strings.EqualFold(tmpl[:len(p)], p) {
			start = len(p)
		}
	}
	if start == 0 {
		return 0, errors.New("want an absolute http:// or https:// URL")
	}
	end := len(tmpl)
	if i := strings.IndexAny(tmpl[start:], "/?#"); i >= 0 {
		end = start + i
	}
	if i := strings.IndexByte(tmpl[:end], '%'); i >= 0 {
		return 0, fmt.Errorf("%% at byte %d, in its scheme or host: escape codes (and %%%%) may only follow the host", i)
	}
	return end, nil
}

// withoutCodes returns tmpl with each code from byte from on replaced by
// a letter and each "%%" by "%", or an error naming the first "%" that
// starts no code.
func withoutCodes(tmpl string, from int) (string, error) {
	var b strings.Builder
	b.WriteString(tmpl[:from])
	for i := from; i < len(tmpl); i++ {
		if tmpl[i] != '%' {
			b.WriteByte(tmpl[i])
			continue
		}
		if i+1 == len(tmpl) {
			return "", fmt.Errorf("a lone %% at its end (byte %d): write %%%% for a literal %%", i)
		}
		switch c := tmpl[i+1]; {
		case c == '%' && hexPair(tmpl, i+2):
			b.WriteByte('%')
		case c == '%':
			return "", fmt.Errorf("%%%% at byte %d starts no escape: a literal %% must start one, such as %%%%20", i)
		case strings.IndexByte(Codes, c) >= 0:
			b.WriteByte('x')
		default:
			r, _ := utf8.DecodeRuneInString(tmpl[i+1:])
			return "", fmt.Errorf("unknown escape code %q at byte %d: Kannel's are %%%s; write %%%% for a literal %%",
				"%"+string(r), i, strings.Join(strings.Split(Codes, ""), " %"))
		}
		i++
	}
	return b.String(), nil
}
