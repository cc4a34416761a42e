package serve

import (
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
