package form

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"calq/convert/chromium"
)

// calq's bounds on the page fields, where Gotenberg has none (its own
// bounds, on the extra headers, are kept as it words them).
const (
	maxWaitDelay    = 10 * time.Minute // the longest a file may take in calq serve
	maxStatusCodes  = 100
	maxDomains      = 100
	maxCookies      = 64
	maxHeaders      = 64   // Gotenberg's
	maxScope        = 1024 // Gotenberg's, in bytes
	maxMediaFeature = 32
)

// load reads the fields that say how the page loads, common to PDFs and
// screenshots, in Gotenberg's order and with its defaults: the network's
// idle events are not waited for, and a main page answering 4xx or 5xx
// fails the conversion.
func (f *Form) load() chromium.Load {
	return chromium.Load{
		SkipNetworkIdleEvent:            f.BoolOr("skipNetworkIdleEvent", true),
		SkipNetworkAlmostIdleEvent:      f.BoolOr("skipNetworkAlmostIdleEvent", true),
		FailOnHTTPStatusCodes:           f.statusCodes("failOnHttpStatusCodes", []int64{499, 599}),
		FailOnResourceHTTPStatusCodes:   f.statusCodes("failOnResourceHttpStatusCodes", nil),
		IgnoreResourceHTTPStatusDomains: f.domains("ignoreResourceHttpStatusDomains"),
		FailOnResourceLoadingFailed:     f.Bool("failOnResourceLoadingFailed"),
		FailOnConsoleExceptions:         f.Bool("failOnConsoleExceptions"),
		WaitDelay:                       f.Duration("waitDelay", 0, maxWaitDelay),
		WaitWindowStatus:                f.Value("waitWindowStatus"),
		WaitForExpression:               f.Value("waitForExpression"),
		WaitForSelector:                 f.Value("waitForSelector"),
		Cookies:                         f.cookies(),
		UserAgent:                       f.plainText("userAgent"),
		ExtraHTTPHeaders:                f.extraHeaders(),
		EmulatedMediaType:               f.mediaType(),
		EmulatedMediaFeatures:           f.mediaFeatures(),
		OmitBackground:                  f.Bool("omitBackground"),
	}
}

// statusCodes reads a JSON list of HTTP status codes (499 stands for
// 400-499 and so on); def when absent, none for null.
func (f *Form) statusCodes(name string, def []int64) []int64 {
	raw := f.Value(name)
	if raw == "" {
		return def
	}
	const want = "a JSON list of HTTP status codes from 100 to 599"
	var codes []int64
	if !f.jsonValue(name, raw, want, &codes) {
		return def
	}
	if len(codes) > maxStatusCodes || slices.ContainsFunc(codes, func(c int64) bool { return c < 100 || c > 599 }) {
		f.invalidValue(name, raw, fmt.Sprintf("%s, at most %d", want, maxStatusCodes))
		return def
	}
	return codes
}

// domains reads a JSON list of host names.
func (f *Form) domains(name string) []string {
	const want = "a JSON list of host names"
	var ds []string
	if !f.jsonValue(name, f.Value(name), want, &ds) {
		return nil
	}
	if len(ds) > maxDomains || slices.ContainsFunc(ds, func(d string) bool { return strings.ContainsFunc(d, unicode.IsControl) }) {
		f.invalidValue(name, f.Value(name), fmt.Sprintf("%s, at most %d", want, maxDomains))
		return nil
	}
	return ds
}

// plainText is the field's value, which must hold no control character
// (a header's value, for one).
func (f *Form) plainText(name string) string {
	v := f.Value(name)
	if strings.ContainsFunc(v, unicode.IsControl) {
		f.Invalid(name, "text without control characters")
		return ""
	}
	return v
}

// cookies reads a JSON list of cookies, each with its name, value and
// domain; sameSite is read without regard to case, as in Gotenberg.
func (f *Form) cookies() []chromium.Cookie {
	raw := f.Value("cookies")
	var cs []chromium.Cookie
	if !f.jsonValue("cookies", raw, `a JSON list of {"name", "value", "domain", ...}`, &cs) {
		return nil
	}
	if len(cs) > maxCookies {
		f.resulting("cookies", raw, fmt.Errorf("too many cookies, got %d, expected at most %d", len(cs), maxCookies))
		return nil
	}
	var err error
	for i := range cs {
		c := &cs[i]
		if strings.TrimSpace(c.Name) == "" || strings.TrimSpace(c.Value) == "" || strings.TrimSpace(c.Domain) == "" {
			err = errors.Join(err, fmt.Errorf("cookie %d must have its name, value and domain set", i)) // Gotenberg's words
			continue
		}
		if strings.ContainsFunc(c.Name+c.Value+c.Domain+c.Path, unicode.IsControl) {
			err = errors.Join(err, fmt.Errorf("cookie %d has a control character", i))
		}
		if j := slices.IndexFunc([]string{"Strict", "Lax", "None"}, func(s string) bool { return strings.EqualFold(s, c.SameSite) }); j >= 0 {
			c.SameSite = []string{"Strict", "Lax", "None"}[j]
		} else if c.SameSite != "" {
			err = errors.Join(err, fmt.Errorf("cookie %d has sameSite %s, want 'Strict', 'Lax' or 'None'", i, quote(c.SameSite)))
		}
	}
	if err != nil {
		f.resulting("cookies", raw, err)
		return nil
	}
	return cs
}

// extraHeaders reads a JSON object of header values by name, sorted by
// name; a value may end with "; scope=REGEXP", a regular expression on
// the URLs the header goes with. Gotenberg compiles scopes with regexp2
// (.NET's syntax, backtracking, with a match timeout); calq with Go's
// regexp (RE2's syntax, linear time: no timeout needed), which has no
// lookaround nor backreference.
func (f *Form) extraHeaders() []chromium.Header {
	raw := f.Value("extraHttpHeaders")
	var byName map[string]string
	if !f.jsonValue("extraHttpHeaders", raw, "a JSON object of header values by name", &byName) {
		return nil
	}
	if len(byName) > maxHeaders {
		f.resulting("extraHttpHeaders", raw, fmt.Errorf("too many headers, got %d, expected at most %d", len(byName), maxHeaders))
		return nil
	}
	names := make([]string, 0, len(byName))
	for k := range byName {
		names = append(names, k)
	}
	sort.Strings(names)
	var hs []chromium.Header
	var err error
	for _, name := range names {
		h, herr := header(name, byName[name])
		if herr != nil {
			err = errors.Join(err, herr)
			continue
		}
		hs = append(hs, h)
	}
	if err != nil {
		f.resulting("extraHttpHeaders", raw, err)
		return nil
	}
	return hs
}

// header reads one extra header: its value's tokens, split at ';', but
// for the "scope=..." one, in Gotenberg's words when it is wrong.
func header(name, v string) (chromium.Header, error) {
	if !isToken(name) || strings.ContainsFunc(v, unicode.IsControl) {
		return chromium.Header{}, fmt.Errorf("invalid header %s: want a name of letters, digits and !#$%%&'*+-.^_`|~ and a value without control characters", quote(name))
	}
	h := chromium.Header{Name: name}
	var tokens []string
	for _, t := range strings.Split(v, ";") {
		if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(t)), "scope") {
			if t != "" {
				tokens = append(tokens, t)
			}
			continue
		}
		key, scope, ok := strings.Cut(strings.Join(strings.Fields(t), ""), "=")
		if !ok || !strings.EqualFold(key, "scope") || scope == "" {
			return chromium.Header{}, fmt.Errorf("invalid scope %s for header %s", quote(h.Scope), quote(name)) // Gotenberg's words
		}
		h.Scope = scope
	}
	h.Value = strings.Join(tokens, "; ")
	if h.Scope == "" {
		return h, nil
	}
	if len(h.Scope) > maxScope {
		return chromium.Header{}, fmt.Errorf("scope regex pattern for header %s is too long, got %d characters, expected at most %d", quote(name), len(h.Scope), maxScope)
	}
	if _, err := regexp.Compile(h.Scope); err != nil {
		return chromium.Header{}, fmt.Errorf("invalid scope regex pattern for header %s: %s", quote(name), regexpError(h.Scope, err))
	}
	return h, nil
}

// regexpError words a pattern's syntax error as Gotenberg's regexp2
// does: "error parsing regexp: <what> in `<pattern>`" (Go's names the
// part at fault instead of the pattern).
func regexpError(pattern string, err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return fmt.Sprintf("error parsing regexp: %s in `%s`", se.Code, pattern)
	}
	return err.Error()
}

// isToken reports whether s is an HTTP header name (RFC 9110's token).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r < 0x7f && (r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || strings.ContainsRune("!#$%&'*+-.^_`|~", r))) {
			return false
		}
	}
	return true
}

// mediaType reads emulatedMediaType: "screen", "print" or empty.
func (f *Form) mediaType() string {
	switch v := f.Value("emulatedMediaType"); v {
	case "", "screen", "print":
		return v
	}
	f.invalidBecause("emulatedMediaType", errors.New("wrong value, expected either 'screen', 'print' or empty")) // Gotenberg's words
	return ""
}

// mediaFeatures reads a JSON object of CSS media features' values by
// name ({"prefers-color-scheme": "dark"}), sorted by name.
func (f *Form) mediaFeatures() []chromium.MediaFeature {
	raw := f.Value("emulatedMediaFeatures")
	const want = "a JSON object of media feature values by name"
	var byName map[string]string
	if !f.jsonValue("emulatedMediaFeatures", raw, want, &byName) {
		return nil
	}
	var mf []chromium.MediaFeature
	for k, v := range byName {
		if strings.ContainsFunc(k+v, unicode.IsControl) || len(byName) > maxMediaFeature {
			f.invalidValue("emulatedMediaFeatures", raw, fmt.Sprintf("%s, at most %d, without control characters", want, maxMediaFeature))
			return nil
		}
		mf = append(mf, chromium.MediaFeature{Name: k, Value: v})
	}
	slices.SortFunc(mf, func(a, b chromium.MediaFeature) int { return strings.Compare(a.Name, b.Name) })
	return mf
}
