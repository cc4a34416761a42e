package chromium

import (
	"net/netip"
	"testing"
)

// FuzzBrowserIPv4: every dotted-quad address reads as itself.
func FuzzBrowserIPv4(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "2130706433", "0x7f.1", "0177.0.0.1", "1.2.3.4.5", "0x", "256.1", "4294967296"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, ok := browserIPv4(s)
		if want, err := netip.ParseAddr(s); err == nil && want.Is4() && (!ok || a != want) {
			t.Fatalf("browserIPv4(%q) = %v, %v, want %v", s, a, ok, want)
		}
	})
}
