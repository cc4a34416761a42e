package analyze

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

func init() {
	registerModel("engset-blocking", func(t *testing.T, p modelParams) map[string]float64 {
		r := engsetRow(t, p, EngsetBlocking)
		q := map[string]float64{"call_congestion": r.CallCongestion, "time_congestion": r.TimeCongestion,
			"busy": r.Busy, "offered": r.Offered, "throughput": r.Throughput}
		if r.Log10CallCongestion != nil && r.Log10TimeCongestion != nil {
			q["log10_call_congestion"], q["log10_time_congestion"] = *r.Log10CallCongestion, *r.Log10TimeCongestion
		}
		return q
	})
	registerModel("engset-delay", func(t *testing.T, p modelParams) map[string]float64 {
		r := engsetRow(t, p, EngsetDelay)
		return map[string]float64{"p0": r.P0, "l": r.L, "lq": r.Lq, "w": r.W, "wq": r.Wq, "lambda_eff": r.LambdaEff,
			"utilisation": r.Utilisation, "p_wait": r.PWait, "p_block": r.PBlock, "idle": r.Idle, "log10_p0": r.Log10P0}
	})
}

func engsetRow(t *testing.T, p modelParams, v EngsetVariant) EngsetResult {
	t.Helper()
	o := EngsetOptions{Sources: p.int(t, "N"), Alpha: p.float(t, "alpha"), Mu: p.float(t, "mu"),
		Servers: p.int(t, "c"), Variant: v}
	if _, ok := p["K"]; ok {
		o.Capacity = p.int(t, "K")
	}
	r, err := Engset(t.Context(), o)
	if err != nil {
		t.Fatalf("Engset(%+v): %v", o, err)
	}
	return r
}

func engset(t *testing.T, o EngsetOptions) EngsetResult {
	t.Helper()
	r, err := Engset(t.Context(), o)
	if err != nil {
		t.Fatalf("Engset(%+v): %v", o, err)
	}
	return r
}

func near(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Max(math.Abs(want), 1e-300)
}

// TestEngsetCallIsTimeOfOneFewer: a request sees the servers as an
// observer of the other N-1 sources does: B(N) = E(N-1), from the
// recurrence, and from the delay chain with K = c (its blocking share,
// arrival-weighted).
func TestEngsetCallIsTimeOfOneFewer(t *testing.T) {
	for _, tt := range []struct {
		n, c  int
		alpha float64
	}{{3, 2, 0.5 / 0.7}, {10, 5, 1}, {50, 10, 0.1}, {1000, 30, 0.02}, {2, 1, 3}, {100000, 500, 0.005}} {
		t.Run(fmt.Sprintf("N=%d c=%d alpha=%g", tt.n, tt.c, tt.alpha), func(t *testing.T) {
			r := engset(t, EngsetOptions{Sources: tt.n, Alpha: tt.alpha, Mu: 1, Servers: tt.c, Variant: EngsetBlocking})
			fewer := engset(t, EngsetOptions{Sources: tt.n - 1, Alpha: tt.alpha, Mu: 1, Servers: tt.c, Variant: EngsetBlocking})
			if !near(r.CallCongestion, fewer.TimeCongestion, 1e-14) {
				t.Errorf("call congestion %.17g, want the time congestion of N-1 = %.17g", r.CallCongestion, fewer.TimeCongestion)
			}
			d := engset(t, EngsetOptions{Sources: tt.n, Alpha: tt.alpha, Mu: 1, Servers: tt.c, Variant: EngsetDelay, Capacity: tt.c})
			if !near(d.PBlock, r.CallCongestion, 1e-11) {
				t.Errorf("delay chain with K = c: p_block %.17g, want the call congestion %.17g", d.PBlock, r.CallCongestion)
			}
			if !near(d.L, r.Busy, 1e-11) {
				t.Errorf("delay chain with K = c: L %.17g, want the carried traffic %.17g", d.L, r.Busy)
			}
		})
	}
}

// TestEngsetTendsToErlang: N → ∞ with N·α fixed, the sources become a
// Poisson stream: the blocking variant tends to Erlang B and the delay
// variant (K = N) to M/M/c, the gap shrinking as 1/N.
func TestEngsetTendsToErlang(t *testing.T) {
	const lambda, c = 8.0, 10
	b, err := ErlangB(t.Context(), c, lambda)
	if err != nil {
		t.Fatal(err)
	}
	mm, err := MMc(t.Context(), lambda, 1, c)
	if err != nil {
		t.Fatal(err)
	}
	prevB, prevW := math.Inf(1), math.Inf(1)
	for _, n := range []int{100, 10_000, 1_000_000} {
		alpha := lambda / float64(n)
		r := engset(t, EngsetOptions{Sources: n, Alpha: alpha, Mu: 1, Servers: c, Variant: EngsetBlocking})
		d := engset(t, EngsetOptions{Sources: n, Alpha: alpha, Mu: 1, Servers: c, Variant: EngsetDelay})
		gapB, gapW := math.Abs(r.CallCongestion-b)/b, math.Abs(d.Wq-mm.Wq)/mm.Wq
		if gapB >= prevB/30 || gapW >= prevW/30 {
			t.Errorf("N = %d: gaps to Erlang B %g and to M/M/c's Wq %g, want each below a 30th of N/100's (%g, %g)", n, gapB, gapW, prevB, prevW)
		}
		prevB, prevW = gapB, gapW
	}
	if prevB > 1e-3 || prevW > 1e-3 {
		t.Errorf("N = 10^6: gaps %g to Erlang B and %g to M/M/c, want below 1e-3", prevB, prevW)
	}
}

// TestEngsetEnoughServers: with c ≥ N nobody is blocked or waits.
func TestEngsetEnoughServers(t *testing.T) {
	for _, c := range []int{5, 6, 1000} {
		r := engset(t, EngsetOptions{Sources: 5, Alpha: 2, Mu: 1, Servers: c, Variant: EngsetBlocking})
		if r.CallCongestion != 0 {
			t.Errorf("N = 5, c = %d: call congestion %g, want 0", c, r.CallCongestion)
		}
		if want := r.Offered; !near(r.Busy, want, 1e-15) {
			t.Errorf("N = 5, c = %d: carried %g, want all the offered %g", c, r.Busy, want)
		}
		d := engset(t, EngsetOptions{Sources: 5, Alpha: 2, Mu: 1, Servers: c, Variant: EngsetDelay})
		if d.Lq != 0 || d.PWait != 0 || d.Wq != 0 {
			t.Errorf("delay, N = 5, c = %d: Lq %g, P(wait) %g, Wq %g, want 0", c, d.Lq, d.PWait, d.Wq)
		}
	}
	// c = N: time congestion is P(all N busy) = (β/(1+β))^N, call 0.
	r := engset(t, EngsetOptions{Sources: 5, Alpha: 2, Mu: 1, Servers: 5, Variant: EngsetBlocking})
	if want := math.Pow(2.0/3, 5); !near(r.TimeCongestion, want, 1e-14) {
		t.Errorf("N = c = 5: time congestion %.17g, want (2/3)^5 = %.17g", r.TimeCongestion, want)
	}
}

// TestEngsetDelayFlow: Little's law and the balance of flows: what
// enters, α times the sources outside less those turned away, is what
// the busy servers complete; and W = Wq + 1/μ.
func TestEngsetDelayFlow(t *testing.T) {
	for _, o := range []EngsetOptions{
		{Sources: 8, Alpha: 0.25, Mu: 4, Servers: 2},
		{Sources: 8, Alpha: 0.25, Mu: 4, Servers: 2, Capacity: 4},
		{Sources: 200, Alpha: 3, Mu: 1, Servers: 50, Capacity: 120},
		{Sources: 1_000_000, Alpha: 1e-3, Mu: 1, Servers: 900},
		{Sources: 10_000, Alpha: 1e6, Mu: 1, Servers: 3},
	} {
		o.Variant = EngsetDelay
		t.Run(fmt.Sprintf("%+v", o), func(t *testing.T) {
			r := engset(t, o)
			entering := r.Alpha * r.Idle * (1 - r.PBlock)
			if !near(entering, r.LambdaEff, 1e-9) {
				t.Errorf("α·(N-L)·(1-P(block)) = %.12g, want λeff = μ·busy = %.12g", entering, r.LambdaEff)
			}
			if !near(r.LambdaEff*r.W, r.L, 1e-12) || !near(r.W, r.Wq+1/r.Mu, 1e-9) {
				t.Errorf("λeff·W = %.12g, want L = %.12g; W = %.12g, want Wq + 1/μ = %.12g", r.LambdaEff*r.W, r.L, r.W, r.Wq+1/r.Mu)
			}
			if !near(r.L-r.Lq, r.Busy, 1e-9) {
				t.Errorf("L - Lq = %.12g, want the busy servers %.12g", r.L-r.Lq, r.Busy)
			}
		})
	}
}

// TestEngsetLargeIsFinite: at the limits every measure stays finite and
// P0 comes from its logarithm where it underflows.
func TestEngsetLargeIsFinite(t *testing.T) {
	r := engset(t, EngsetOptions{Sources: MaxCapacity, Alpha: 1, Mu: 1, Servers: 10, Variant: EngsetDelay})
	if r.P0 != 0 || !(r.Log10P0 < -1000) {
		t.Errorf("N = 10^7, β = 1, c = 10: P0 %g, log10 P0 %g; want 0 and its logarithm far below -1000", r.P0, r.Log10P0)
	}
	// Nearly every source waits: L ≈ N - cμ/α.
	if want := float64(MaxCapacity) - 10; !near(r.L, want, 1e-12) {
		t.Errorf("L = %.15g, want %.15g", r.L, want)
	}
	checkResult(t, "Engset", r, nil)
	b := engset(t, EngsetOptions{Sources: MaxCapacity, Alpha: 1e-7, Mu: 1, Servers: MaxServers, Variant: EngsetBlocking})
	checkResult(t, "Engset", b, nil)
}

// TestEngsetInput: every bad option is ErrInput, named, before any work.
func TestEngsetInput(t *testing.T) {
	ok := EngsetOptions{Sources: 10, Alpha: 1, Mu: 1, Servers: 2, Variant: EngsetDelay}
	for _, tt := range []struct {
		name string
		edit func(*EngsetOptions)
		want string
	}{
		{"no sources", func(o *EngsetOptions) { o.Sources = 0 }, "sources = 0"},
		{"too many sources", func(o *EngsetOptions) { o.Sources = MaxCapacity + 1 }, "sources = 10000001"},
		{"alpha 0", func(o *EngsetOptions) { o.Alpha = 0 }, "alpha = 0 is not a positive number"},
		{"alpha NaN", func(o *EngsetOptions) { o.Alpha = math.NaN() }, "alpha = NaN"},
		{"mu negative", func(o *EngsetOptions) { o.Mu = -1 }, "mu = -1"},
		{"load", func(o *EngsetOptions) { o.Alpha, o.Mu = 1e50, 1e-50 }, "load"},
		{"no servers", func(o *EngsetOptions) { o.Servers = 0 }, "servers = 0"},
		{"no variant", func(o *EngsetOptions) { o.Variant = 0 }, "variant"},
		{"capacity below c", func(o *EngsetOptions) { o.Capacity = 1 }, "capacity = 1: want 2 to the 10 sources"},
		{"capacity above N", func(o *EngsetOptions) { o.Capacity = 11 }, "capacity = 11"},
		{"capacity when blocking", func(o *EngsetOptions) { o.Variant, o.Capacity = EngsetBlocking, 5 }, "only the delay variant"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := ok
			tt.edit(&o)
			ctx, cancel := context.WithCancel(t.Context())
			cancel() // any work would say context.Canceled instead
			_, err := Engset(ctx, o)
			if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Engset(%+v) = %v, want ErrInput saying %q", o, err, tt.want)
			}
		})
	}
}

// TestEngsetCancel: at the largest sizes a cancel stops each loop.
func TestEngsetCancel(t *testing.T) {
	for _, tt := range []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"blocking", func(ctx context.Context) error {
			_, err := Engset(ctx, EngsetOptions{Sources: MaxCapacity, Alpha: 1, Mu: 1, Servers: MaxServers, Variant: EngsetBlocking})
			return err
		}},
		{"delay", func(ctx context.Context) error {
			_, err := Engset(ctx, EngsetOptions{Sources: MaxCapacity, Alpha: 1e-3, Mu: 1, Servers: 1, Variant: EngsetDelay})
			return err
		}},
		{"log10 congestion", func(ctx context.Context) error {
			_, err := log10Congestion(ctx, MaxCapacity, MaxServers, 1e-7, 0)
			return err
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			const at = 3
			ctx := newPollCtx(t, at)
			if err := tt.run(ctx); !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if ctx.polls != at {
				t.Errorf("%d polls, want %d: it went on after the cancel", ctx.polls, at)
			}
		})
	}
}

// FuzzEngset: finite numbers or ErrInput for any options.
func FuzzEngset(f *testing.F) {
	for _, x := range extremes {
		f.Add(10, x, 1.0, 2, 1, 0)
		f.Add(10, 1.0, x, 2, 2, 0)
	}
	for _, n := range intExtremes {
		f.Add(n, 1.0, 1.0, 2, 2, 0)
		f.Add(100, 1.0, 1.0, n, 1, 0)
		f.Add(100, 1.0, 1.0, 2, 2, n)
	}
	f.Add(1000, 1e15, 1.0, 3, 2, 0)
	f.Add(1000, 1e-100, 1e100, 3, 2, 0)
	f.Fuzz(func(t *testing.T, n int, alpha, mu float64, c, variant, k int) {
		// Sizes past the limits are ErrInput before any work, so they
		// run (the seeds hold them); large sizes within the limits take
		// up to a second each, too slow for the fuzzer's search, and are
		// TestEngsetLargeIsFinite's. No seed is among them.
		if n > 100_000 && n <= MaxCapacity || c > 100_000 && c <= MaxServers {
			t.Skip("large sizes within the limits are TestEngsetLargeIsFinite's")
		}
		o := EngsetOptions{Sources: n, Alpha: alpha, Mu: mu, Servers: c, Variant: EngsetVariant(variant), Capacity: k}
		r, err := Engset(t.Context(), o)
		checkResult(t, "Engset", r, err)
	})
}

// Forty clerks each send a document for conversion every 2 minutes of
// their own work; two workers convert 10 a minute each. M/M/2 at λ = 40·0.5
// would be unstable (ρ = 1); with finite sources the clerks slow down.
func ExampleEngset() {
	r, err := Engset(context.Background(), EngsetOptions{Sources: 40, Alpha: 0.5, Mu: 10, Servers: 2, Variant: EngsetDelay})
	if err != nil {
		panic(err)
	}
	fmt.Printf("W %.3f min, Wq %.3f min, utilisation %.3f, %.2f clerks waiting or served\n", r.W, r.Wq, r.Utilisation, r.L)
	// Output: W 0.281 min, Wq 0.181 min, utilisation 0.877, 4.93 clerks waiting or served
}
