package serve

import (
	"html/template"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestLocalPath: a sign-in's next page is this server's, never another
// site (an open redirect would make calq's sign-in a phishing tool).
func TestLocalPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "/convert"},
		{"/history?state=done", "/history?state=done"},
		{"/job/0123", "/job/0123"},
		{"//evil.example/x", "/convert"},
		{"/\\evil.example", "/convert"},
		{"https://evil.example/", "/convert"},
		{"javascript:alert(1)", "/convert"},
		{"/ok\r\nSet-Cookie: x=y", "/convert"},
		{"history", "/convert"},
		{"/\t/evil.example", "/convert"},
		{"/\n/evil.example", "/convert"},
	}
	for _, tt := range tests {
		if got := localPath(tt.in); got != tt.want {
			t.Errorf("localPath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPageFormats(t *testing.T) {
	tests := []struct{ got, want string }{
		{humanDuration(24 * time.Hour), "24 hours"},
		{humanDuration(30 * 24 * time.Hour), "30 days"},
		{humanDuration(time.Hour), "1 hour"},
		{humanDuration(90 * time.Minute), "90 minutes"},
		{humanDuration(1500 * time.Millisecond), "1.5s"},
		{plural(1, "job"), "1 job"},
		{plural(0, "job"), "0 jobs"},
		{humanBytes(0), "0 B"},
		{humanBytes(1023), "1023 B"},
		{humanBytes(1536), "1.5 KiB"},
		{humanBytes(256 << 20), "256.0 MiB"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// FuzzLocalPath: whatever next is, the browser is sent to a path of this
// server.
func FuzzLocalPath(f *testing.F) {
	for _, s := range []string{"", "/", "//x", "/\\x", "/a?b=c", "http://x", "/\t/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, next string) {
		got := localPath(next)
		u, err := url.Parse(got)
		if err != nil || u.Host != "" || u.Scheme != "" || !strings.HasPrefix(got, "/") ||
			strings.HasPrefix(got, "//") || strings.ContainsAny(got, "\t\r\n\\") {
			t.Fatalf("localPath(%q) = %q leaves the server", next, got)
		}
	})
}

// TestPageFuncs: what the templates show keeps a value on one line: a
// size's number and unit joined by a no-break space, a date in a <time>
// that the style sheet keeps whole.
func TestPageFuncs(t *testing.T) {
	at := time.Date(2025, 5, 1, 9, 30, 0, 0, time.Local)
	call := func(name string, arg any) string {
		var b strings.Builder
		tp := template.Must(template.New("").Funcs(pageFuncs).Parse(`{{` + name + ` .}}`))
		if err := tp.Execute(&b, arg); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	tests := []struct{ name, got, want string }{
		{"bytes", call("bytes", int64(1536)), "1.5\u00a0KiB"},
		{"small bytes", call("bytes", int64(12)), "12\u00a0B"},
		{"duration", call("duration", 24*time.Hour), "24\u00a0hours"},
		{"when", call("when", at), `<time datetime="` + at.Format(time.RFC3339) + `">2025-05-01 09:30:00</time>`},
		{"never", call("when", time.Time{}), ""},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}
