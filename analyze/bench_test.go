package analyze

import (
	"testing"
	"time"
)

// BenchmarkMMcMillion: the M/M/c measures at c = 10^6 (goal: under 100
// ms), with the time of a bare loop of 10^6 float divisions, the floor
// for any O(c) method, measured alongside as the baseline:
// go test -bench MMcMillion ./analyze
func BenchmarkMMcMillion(b *testing.B) {
	const c = 1_000_000
	start := time.Now()
	x := 1.0
	for k := 1; k <= c; k++ {
		x = 0.9 * x / (float64(k) + x)
	}
	floor := time.Since(start)
	sink = x
	b.ResetTimer()
	for b.Loop() {
		if _, err := MMc(b.Context(), 0.95*c, 1, c); err != nil {
			b.Fatal(err)
		}
	}
	per := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(per)/1e6, "ms/op")
	b.ReportMetric(float64(per)/float64(floor), "x-bare-loop")
}

// BenchmarkSizeLinear: staffing for λ/μ = 10^4 by Size, which carries
// Erlang B from one c to the next, against the quadratic search that
// recomputes it for every c (the baseline), in the same run:
// go test -bench SizeLinear ./analyze
func BenchmarkSizeLinear(b *testing.B) {
	const lambda = 10_000
	target := Target{MaxPWait: 0.01}
	quad := func() int {
		for c := int(lambda) + 1; ; c++ {
			r, _ := MMc(b.Context(), lambda, 1, c)
			if target.Met(r) {
				return c
			}
		}
	}
	start := time.Now()
	want := quad()
	quadratic := time.Since(start)
	b.ResetTimer()
	for b.Loop() {
		got, _, err := Size(b.Context(), lambda, 1, target)
		if err != nil || got != want {
			b.Fatalf("Size = %d, %v; the quadratic search says %d", got, err, want)
		}
	}
	per := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(per)/1e6, "ms/op")
	b.ReportMetric(float64(quadratic)/float64(per), "x-faster-than-quadratic")
}

var sink float64
