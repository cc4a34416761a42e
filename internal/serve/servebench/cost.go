package servebench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"
)

// The routes whose cost the bench measures (Options.Route).
const (
	RouteOffice     = "libreoffice/convert"
	RouteChromium   = "chromium/convert/html"
	defaultCostDocs = 200
)

// CostGoalMS is the most processor time calq serve may spend on a
// conversion of its own, whatever the converter.
const CostGoalMS = 5.0

// Cost is what one conversion costs calq serve against what it costs
// the converter, measured on the same requests.
type Cost struct {
	Route       string  `json:"route"`
	Conversions int     `json:"conversions"`
	Clients     int     `json:"clients"`
	DPS         float64 `json:"dps"` // documents per second
	// ServerCPUMS is calq serve's process time per conversion, in ms:
	// all of the process (its HTTP clients in the bench included), user
	// and system.
	ServerCPUMS float64 `json:"server_cpu_ms"`
	// HelperCPUMS is the time per conversion of the processes running
	// calq's executable that calq serve started (guards, pdfcpu
	// helpers); ConverterCPUMS that of the converters (LibreOffice,
	// Chromium).
	HelperCPUMS    float64 `json:"helper_cpu_ms"`
	ConverterCPUMS float64 `json:"converter_cpu_ms"`
	// ServerVsConverter is ServerCPUMS / ConverterCPUMS.
	ServerVsConverter float64 `json:"server_vs_converter"`
}

// CheckRoute says whether the bench knows how to send route.
func CheckRoute(route string) error {
	switch route {
	case RouteOffice, RouteChromium:
		return nil
	}
	return fmt.Errorf("%q: the bench sends %s or %s", route, RouteOffice, RouteChromium)
}

// costDocs are the documents the cost phase sends on route: the bench's
// office files, or one page of HTML for Chromium.
func costDocs(route, work string, files []string) ([]string, error) {
	if !strings.HasPrefix(route, "chromium/") {
		return files, nil
	}
	dir := filepath.Join(work, "html")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	p := filepath.Join(dir, "index.html")
	return []string{p}, os.WriteFile(p, []byte(onePage), 0o600)
}

const onePage = `<!doctype html>
<html><head><meta charset="utf-8"><title>calq bench</title>
<style>body{font-family:sans-serif;margin:2cm} h1{color:#345} td{border:1px solid #999;padding:4px}</style></head>
<body><h1>Invoice 2026-0042</h1><p>One page of HTML, as an invoice rendered from a template.</p>
<table><tr><td>Item</td><td>Quantity</td><td>Price</td></tr><tr><td>Conversions</td><td>1000</td><td>12.00</td></tr></table>
</body></html>
`

// cost sends n conversions on route from k clients, cycling through
// docs, and measures the processor time of calq serve and of its
// children. When profile is set, it receives calq's CPU profile of
// that time.
func cost(ctx context.Context, url, route string, docs []string, n, k int, profile io.Writer) (Cost, error) {
	c := Cost{Route: route, Conversions: n, Clients: k}
	reqs := make([]string, n)
	for i := range reqs {
		reqs[i] = docs[i%len(docs)]
	}
	if profile != nil {
		if err := pprof.StartCPUProfile(profile); err != nil {
			return c, fmt.Errorf("cpu profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	before, err := sampleUsage()
	if err != nil {
		return c, err
	}
	begin := time.Now()
	if err := clients(ctx, url, route, reqs, k); err != nil {
		return c, err
	}
	took := time.Since(begin)
	after, err := sampleUsage()
	if err != nil {
		return c, err
	}
	d := after.sub(before)
	per := func(t time.Duration) float64 { return float64(t.Microseconds()) / 1000 / float64(n) }
	c.DPS = float64(n) / took.Seconds()
	c.ServerCPUMS, c.HelperCPUMS, c.ConverterCPUMS = per(d.Self), per(d.Helpers), per(d.Converters)
	if c.ConverterCPUMS > 0 {
		c.ServerVsConverter = c.ServerCPUMS / c.ConverterCPUMS
	}
	return c, nil
}
