package kannel

import (
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// HeaderPrefix starts the headers of Kannel's other POST form, which
// carries the parameters as X-Kannel-Username, X-Kannel-To, X-Kannel-DLR-Url
// … and the text as the body, in the charset of its Content-Type.
const HeaderPrefix = "X-Kannel-"

// HasHeaders says whether h carries parameters as X-Kannel headers.
func HasHeaders(h http.Header) bool {
	for k := range h {
		if strings.HasPrefix(http.CanonicalHeaderKey(k), HeaderPrefix) {
			return true
		}
	}
	return false
}

// HeaderParams returns the parameters of a POST in Kannel's header form:
// each X-Kannel-Name header as the parameter name (lower case), body as
// text, and Content-Type's charset as charset unless X-Kannel-Charset
// names one.
func HeaderParams(h http.Header, body string) url.Values {
	v := url.Values{}
	for k, vals := range h {
		name, ok := strings.CutPrefix(http.CanonicalHeaderKey(k), HeaderPrefix)
		if ok && name != "" && len(vals) > 0 {
			v.Set(strings.ToLower(name), vals[0])
		}
	}
	v.Set("text", body)
	if v.Get("charset") == "" {
		if _, p, err := mime.ParseMediaType(h.Get("Content-Type")); err == nil && p["charset"] != "" {
			v.Set("charset", p["charset"])
		}
	}
	return v
}
