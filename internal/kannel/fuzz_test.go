package kannel

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
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
		want, _ := Target(tmpl)
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

// FuzzParseSend checks that ParseSend never panics, refuses with an
// *Error, and that what it takes is UTF-8 text (but 8-bit data) with
// receivers and a mask in bounds.
func FuzzParseSend(f *testing.F) {
	f.Add("username=a&password=b&to=%2B41+079&text=caf%E9&charset=latin1&dlr-mask=3&dlr-url=http%3A%2F%2Fh%2F%3Fd%3D%25d")
	f.Add("username=a&password=b&to=1&text=%D8%3D&charset=UTF-16&coding=2")
	f.Fuzz(func(t *testing.T, query string) {
		v, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		s, err := ParseSend(v)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Status < 400 {
				t.Fatalf("ParseSend(%q) = %v, want an *Error with a 4xx status", query, err)
			}
			return
		}
		switch {
		case s.Coding != Coding8Bit && !utf8.ValidString(s.Text):
			t.Fatalf("ParseSend(%q).Text = %q, not UTF-8", query, s.Text)
		case len(s.To) == 0 || len(s.To) > MaxReceivers || s.Mask&^AllTypes != 0:
			t.Fatalf("ParseSend(%q) = %+v: receivers or mask out of bounds", query, s)
		}
	})
}
