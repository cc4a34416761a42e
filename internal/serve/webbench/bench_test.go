package webbench

import (
	"context"
	"math"
	"slices"
	"testing"

	"calq/internal/tooltest"
)

// TestRunSmall: a small run gives every figure, each a positive finite
// number, the memory read after a tenth, half and all of its run, and
// no Gotenberg figure without Gotenberg.
func TestRunSmall(t *testing.T) {
	binary := tooltest.Require(t, "chromium")
	res, err := Run(context.Background(), Options{Chromium: binary, Documents: 2, Copies: 1, NaiveFiles: 1, Latency: 2, Memory: 20})
	if err != nil {
		t.Fatal(err)
	}
	if res.Documents != 2 || res.Pages != 1+LongPages || res.NaiveFiles != 1 || res.Copies != 1 {
		t.Errorf("got %d documents of %d pages, %d naive, %d copies; want 2 of %d, 1, 1", res.Documents, res.Pages, res.NaiveFiles, res.Copies, 1+LongPages)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"naive_dps", res.NaiveDPS}, {"first_pdf_seconds", res.Calq.FirstPDFSeconds}, {"dps_1", res.Calq.DPS1},
		{"dps_4", res.Calq.DPS4}, {"html_ms", res.Calq.HTMLMillis}, {"markdown_ms", res.Calq.MarkdownMillis}, {"calq_vs_naive", res.VsNaive}} {
		if !(f.v > 0) || math.IsInf(f.v, 0) {
			t.Errorf("%s: got %v, want a positive number", f.name, f.v)
		}
	}
	if got, want := res.VsNaive, res.Calq.DPS4/res.NaiveDPS; got != want {
		t.Errorf("calq_vs_naive: got %v, want dps_4 / naive_dps = %v", got, want)
	}
	var at []int
	for _, m := range res.Calq.Memory {
		at = append(at, m.Conversions)
		if m.Bytes <= 0 {
			t.Errorf("memory after %d conversions: got %d bytes, want the browsers' (a running browser's is positive)", m.Conversions, m.Bytes)
		}
	}
	if want := []int{2, 10, 20}; !slices.Equal(at, want) {
		t.Errorf("memory read after %v conversions, want %v", at, want)
	}
	if res.CalqCPUMillis == nil || !(*res.CalqCPUMillis > 0) {
		t.Errorf("calq_cpu_ms: got %v, want a positive number (the clients run in a helper)", res.CalqCPUMillis)
	}
	if res.Gotenberg != nil || res.VsGotenberg != nil {
		t.Errorf("got Gotenberg figures %+v, %v without Gotenberg, want none", res.Gotenberg, res.VsGotenberg)
	}
}
