package chromium

import (
	"path/filepath"
	"testing"
)

// BenchmarkPDF prints a one-page HTML file on a warm pool, network idle
// waits skipped as Gotenberg's default does, and with them.
func BenchmarkPDF(b *testing.B) {
	p := shared.get(&testing.T{})
	dir := b.TempDir()
	url := writePage(b, dir, "one.html", "<html><body><h1>One page</h1><p>calq</p></body></html>")
	out := filepath.Join(dir, "out.pdf")
	for _, bc := range []struct {
		name string
		load Load
	}{
		{"skip idle", Load{SkipNetworkIdleEvent: true, SkipNetworkAlmostIdleEvent: true}},
		{"almost idle", Load{SkipNetworkIdleEvent: true}},
		{"idle", Load{}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := Request{URL: url, Dir: dir, Load: bc.load}
			if err := p.PDF(b.Context(), r, DefaultPDF(), out); err != nil { // warm
				b.Fatal(err)
			}
			for b.Loop() {
				if err := p.PDF(b.Context(), r, DefaultPDF(), out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
