package webhook

import (
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func TestParseHeaders(t *testing.T) {
	const u, ev, er = "https://example.com/in?sig=1", "https://example.com/events", "http://example.com/err"
	tests := []struct {
		name string
		h    http.Header
		want *Request
	}{
		{"not a webhook request", hdr(HeaderEventsURL, ev), nil},
		{"events URL, POST default", hdr(HeaderURL, u, HeaderEventsURL, ev),
			&Request{URL: u, Method: "POST", EventsURL: ev}},
		{"older error URL with its method", hdr(HeaderURL, u, HeaderErrorURL, er, HeaderErrorMethod, "patch", HeaderMethod, "put"),
			&Request{URL: u, Method: "PUT", ErrorURL: er, ErrorMethod: "PATCH"}},
		{"both, error method defaults to POST", hdr(HeaderURL, u, HeaderErrorURL, er, HeaderEventsURL, ev),
			&Request{URL: u, Method: "POST", EventsURL: ev, ErrorURL: er, ErrorMethod: "POST"}},
		{"extra headers canonicalized", hdr(HeaderURL, u, HeaderEventsURL, ev, HeaderExtraHeaders, `{"x-api-key":"k","Content-Disposition":"inline"}`),
			&Request{URL: u, Method: "POST", EventsURL: ev, ExtraHeaders: map[string]string{"X-Api-Key": "k", "Content-Disposition": "inline"}}},
		{"empty extra object", hdr(HeaderURL, u, HeaderEventsURL, ev, HeaderExtraHeaders, `{}`),
			&Request{URL: u, Method: "POST", EventsURL: ev, ExtraHeaders: map[string]string{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseHeaders(tt.h)
			if err != nil {
				t.Fatalf("ParseHeaders: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseHeadersErrors(t *testing.T) {
	const u, ev = "https://example.com/in", "https://example.com/events"
	tests := []struct {
		name   string
		h      http.Header
		header string // the header the error must name
		text   string // and a word of its reason
	}{
		{"no events or error URL", hdr(HeaderURL, u), HeaderEventsURL, HeaderErrorURL},
		{"relative URL", hdr(HeaderURL, "/in", HeaderEventsURL, ev), HeaderURL, "http://"},
		{"ftp URL", hdr(HeaderURL, "ftp://example.com/x", HeaderEventsURL, ev), HeaderURL, "http://"},
		{"no host", hdr(HeaderURL, "http:///x", HeaderEventsURL, ev), HeaderURL, "no host"},
		{"unparsable", hdr(HeaderURL, "http://[::1", HeaderEventsURL, ev), HeaderURL, "not a URL"},
		{"bad events URL", hdr(HeaderURL, u, HeaderEventsURL, "file:///etc/passwd"), HeaderEventsURL, "http://"},
		{"bad error URL", hdr(HeaderURL, u, HeaderErrorURL, "x"), HeaderErrorURL, "http://"},
		{"GET method", hdr(HeaderURL, u, HeaderEventsURL, ev, HeaderMethod, "GET"), HeaderMethod, `"GET"`},
		{"DELETE error method", hdr(HeaderURL, u, HeaderErrorURL, ev, HeaderErrorMethod, "delete"), HeaderErrorMethod, `"delete"`},
		{"extra not JSON", hdr(HeaderURL, u, HeaderEventsURL, ev, HeaderExtraHeaders, `x`), HeaderExtraHeaders, "JSON object"},
		{"extra not an object", hdr(HeaderURL, u, HeaderEventsURL, ev, HeaderExtraHeaders, `["a"]`), HeaderExtraHeaders, "JSON object"},
		{"extra null", hdr(HeaderURL, u, HeaderEventsURL, ev, HeaderExtraHeaders, `null`), HeaderExtraHeaders, "JSON object"},
		{"extra number value", hdr(HeaderURL, u, HeaderEventsURL, ev, HeaderExtraHeaders, `{"A":1}`), HeaderExtraHeaders, "strings"},
		{"extra Host", hdr(HeaderURL, u, HeaderEventsURL, ev, HeaderExtraHeaders, `{"host":"evil"}`), HeaderExtraHeaders, "Host"},
		{"extra Content-Length", hdr(HeaderURL, u, HeaderEventsURL, ev, HeaderExtraHeaders, `{"content-length":"1"}`), HeaderExtraHeaders, "Content-Length"},
		{"extra Transfer-Encoding", hdr(HeaderURL, u, HeaderEventsURL, ev, HeaderExtraHeaders, `{"Transfer-Encoding":"chunked"}`), HeaderExtraHeaders, "Transfer-Encoding"},
		{"extra Connection", hdr(HeaderURL, u, HeaderEventsURL, ev, HeaderExtraHeaders, `{"Connection":"close"}`), HeaderExtraHeaders, "Connection"},
		{"extra TE", hdr(HeaderURL, u, HeaderEventsURL, ev, HeaderExtraHeaders, `{"TE":"trailers"}`), HeaderExtraHeaders, "Te"},
		{"extra bad name", hdr(HeaderURL, u, HeaderEventsURL, ev, HeaderExtraHeaders, `{"a b":"c"}`), HeaderExtraHeaders, "header name"},
		{"extra CRLF value", hdr(HeaderURL, u, HeaderEventsURL, ev, HeaderExtraHeaders, `{"A":"b\r\nHost: evil"}`), HeaderExtraHeaders, "control"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseHeaders(tt.h)
			if err == nil {
				t.Fatalf("got %+v, want an error", got)
			}
			var he *HeaderError
			if !errors.As(err, &he) || he.Header != tt.header {
				t.Fatalf("got %v, want a *HeaderError naming %s", err, tt.header)
			}
			msg := err.Error()
			if !strings.Contains(msg, "'"+tt.header+"'") || !strings.Contains(msg, tt.text) || !strings.HasSuffix(msg, ".") || strings.Count(msg, ". ") > 0 {
				t.Errorf("got %q, want one sentence naming '%s' and %q", msg, tt.header, tt.text)
			}
		})
	}
}

func FuzzParseHeaders(f *testing.F) {
	f.Add("https://example.com/x", "http://example.com/e", "", "POST", `{"A":"b"}`)
	f.Add("http://[::1]:80/", "", "http://h/", "put", `{"Host":"x"}`)
	f.Fuzz(func(t *testing.T, u, events, errURL, method, extra string) {
		r, err := ParseHeaders(hdr(HeaderURL, u, HeaderEventsURL, events, HeaderErrorURL, errURL, HeaderMethod, method, HeaderExtraHeaders, extra))
		if err != nil {
			var he *HeaderError
			if !errors.As(err, &he) {
				t.Fatalf("error %v is not a *HeaderError", err)
			}
			return
		}
		if r == nil {
			return
		}
		if r.EventsURL == "" && r.ErrorURL == "" {
			t.Fatalf("accepted %+v without an events or error URL", r)
		}
		for k, v := range r.ExtraHeaders {
			if refusedExtra[k] || !validName(k) || !validValue(v) {
				t.Fatalf("accepted extra header %q: %q", k, v)
			}
		}
	})
}
