package chromium

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkPDF prints a one-page HTML file on a warm pool, with the
// network idle waits skipped, with almost idle, and with both. Besides
// the wall time, which depends on what else the machine runs, it reports
// the CPU time the browser's processes spent per conversion
// (browser-cpu-ms/op) and the Go side's allocations.
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
			pgid := p.slots[0].current().cmd.Process.Pid
			cpu := groupCPU(pgid)
			b.ReportAllocs()
			for b.Loop() {
				if err := p.PDF(b.Context(), r, DefaultPDF(), out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(groupCPU(pgid)-cpu)*10/float64(b.N), "browser-cpu-ms/op")
		})
	}
}

// groupCPU sums the CPU ticks (1/100 s) of group pgid's processes and
// of their reaped children.
func groupCPU(pgid int) int64 {
	var ticks int64
	for _, pid := range groupPids(pgid) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		for _, i := range []int{11, 12, 13, 14} { // utime stime cutime cstime
			n, _ := strconv.ParseInt(f[i], 10, 64)
			ticks += n
		}
	}
	return ticks
}

// BenchmarkMemory reports a browser's memory (the Pss of its process
// group, its spare tab included) after a first page (first-MiB), and
// after b.N more conversions (last-MiB): run it with -benchtime 200x to
// see whether a browser grows.
func BenchmarkMemory(b *testing.B) {
	requireChromium(b)
	p, err := New(Config{Browsers: 1, Tabs: 1, StartTimeout: testStartTimeout, Timeout: testTimeout})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	dir := b.TempDir()
	url := writePage(b, dir, "one.html", "<html><body><h1>One page</h1><p>calq</p></body></html>")
	out := filepath.Join(dir, "out.pdf")
	r := Request{URL: url, Dir: dir, Load: Load{SkipNetworkIdleEvent: true}}
	if err := p.PDF(b.Context(), r, DefaultPDF(), out); err != nil {
		b.Fatal(err)
	}
	mib := func() float64 { return float64(p.Stats().RSS) / (1 << 20) }
	first := mib()
	for b.Loop() {
		if err := p.PDF(b.Context(), r, DefaultPDF(), out); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(first, "first-MiB")
	b.ReportMetric(mib(), "last-MiB")
}
