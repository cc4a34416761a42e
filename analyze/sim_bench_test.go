package analyze

import (
	"context"
	"testing"
	"time"
)

// BenchmarkSimulateAbandonLongLine: an overloaded M/M/1+M (λ = 10,
// μ = 1, θ = 0.01) keeps about 900 customers waiting, each with its
// abandonment pending; an event should cost about what one of a plain
// M/M/1 at ρ = 0.9 costs, measured in the same run (a scan of the line
// per abandonment would make it hundreds of times more):
// go test -run '^$' -bench AbandonLongLine ./analyze
func BenchmarkSimulateAbandonLongLine(b *testing.B) {
	perEvent := func(o SimOptions) time.Duration {
		start := time.Now()
		r, err := Simulate(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(start) / time.Duration(r.Events)
	}
	base := SimOptions{Arrivals: expArrivals(0.9), Service: expService(1), Servers: 1,
		Customers: 200_000, Warmup: 20_000, Replications: 1, Seed: 1}
	plain := perEvent(base)
	o := base
	o.Arrivals, o.Patience = expArrivals(10), expService(0.01)
	b.ResetTimer()
	var per time.Duration
	for b.Loop() {
		per = perEvent(o)
	}
	b.ReportMetric(float64(per), "ns/event")
	b.ReportMetric(float64(per)/float64(plain), "x-plain-event")
}
