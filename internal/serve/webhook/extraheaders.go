package webhook

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// refusedExtra are the headers a client may not set on deliveries: hop-by-hop headers, and those that
// would change how the request is framed or routed rather than what it says.
var refusedExtra = map[string]bool{
	"Connection":          true,
	"Keep-Alive":          true,
	"Proxy-Authenticate":  true,
	"Proxy-Authorization": true,
	"Proxy-Connection":    true,
	"Te":                  true,
	"Trailer":             true,
	"Transfer-Encoding":   true,
	"Upgrade":             true,
	"Host":                true,
	"Content-Length":      true,
}

// parseExtraHeaders reads a JSON object of string values into canonical header names.
func parseExtraHeaders(raw string) (map[string]string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, nil
	}
	var in map[string]string
	if err := json.Unmarshal([]byte(raw), &in); err != nil || in == nil {
		return nil, &HeaderError{Header: HeaderExtraHeaders, Reason: "expected a JSON object whose values are strings"}
	}
	out, err := CleanHeaders(in)
	if err != nil {
		return nil, &HeaderError{Header: HeaderExtraHeaders, Reason: err.Error()}
	}
	return out, nil
}

// CleanHeaders is in with canonical names, or an error saying which name
// or value a client may not send on calq's outbound requests: a name that
// is not a token, a hop-by-hop or framing header, a value with control
// characters.
func CleanHeaders(in map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(in))
	for name, value := range in {
		if !validName(name) {
			return nil, fmt.Errorf("%q is not a header name", name)
		}
		canon := http.CanonicalHeaderKey(name)
		if refusedExtra[canon] {
			return nil, fmt.Errorf("the header %s may not be set", canon)
		}
		if !validValue(value) {
			return nil, fmt.Errorf("the value of %s has control characters", canon)
		}
		out[canon] = value
	}
	return out, nil
}

// validName reports whether s is an RFC 9110 token.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}

// validValue refuses control characters other than horizontal tab, so that no value can split a header.
func validValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
