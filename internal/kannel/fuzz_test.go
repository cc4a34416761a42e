package kannel

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

// FuzzExpand checks that Expand never panics, and that a template that
// passed CheckURL expands, whatever the report holds, to a URL that
// parses, with the template's scheme and host.
func FuzzExpand(f *testing.F) {
	f.Add("http://h/?d=%d&A=%A&t=%t", "FOO bar", "id:1 stat:DELIVRD", "+41791234567", int64(1796496787))
	f.Add("https://h/%S/%s?r=%r&a=%a&b=%b", "k *a% %zz \x01 é", "", "0041", int64(0))
	f.Add("http://h/a%%20b?x=%%2F%k", "", "", "", int64(-1))
	f.Fuzz(func(t *testing.T, tmpl, text, reply, number string, unix int64) {
		d := DLR{Type: Delivered, SMSCReply: reply, From: number, To: number, Text: text,
			Time: time.Unix(unix, 0), ID: text, ForeignID: reply, SMSCID: number, MClass: -1}
		got := Expand(tmpl, d)
		if CheckURL(tmpl) != nil {
			return
		}
		u, err := url.Parse(got)
		if err != nil {
			t.Fatalf("Expand(%q) = %q, which does not parse: %v", tmpl, got, err)
		}
		plain, _ := withoutCodes(tmpl, 0)
		want, _ := url.Parse(plain)
		if !strings.EqualFold(u.Scheme, want.Scheme) || u.Host != want.Host || u.User.String() != want.User.String() {
			t.Fatalf("Expand(%q) = %q: scheme, user or host %q %q %q, want %q %q %q",
				tmpl, got, u.Scheme, u.User, u.Host, want.Scheme, want.User, want.Host)
		}
	})
}

// FuzzCheckURL checks that CheckURL never panics and that what it takes
// is an http or https URL with a host.
func FuzzCheckURL(f *testing.F) {
	f.Add("http://h/?d=%d")
	f.Add("http://%i/")
	f.Add("http://h/%%2")
	f.Fuzz(func(t *testing.T, tmpl string) {
		if CheckURL(tmpl) != nil {
			return
		}
		u, err := url.Parse(Expand(tmpl, DLR{}))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			t.Fatalf("CheckURL(%q) = nil, but it expands to %v (%v)", tmpl, u, err)
		}
	})
}
