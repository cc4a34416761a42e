package analyze

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
)

func init() {
	registerModel("erlang-a", func(t *testing.T, p modelParams) map[string]float64 {
		r, err := ErlangA(t.Context(), p.float(t, "lambda"), p.float(t, "mu"), p.float(t, "theta"), p.int(t, "c"))
		if err != nil {
			t.Fatal(err)
		}
		q := map[string]float64{"p_wait": r.PWait, "p_abandon": r.PAbandon, "lq": r.Lq, "wq": r.Wq,
			"wq_served": r.WqServed, "wq_abandoned": r.WqAbandoned, "utilisation": r.Utilisation}
		if _, ok := p["t"]; ok {
			q["service_level"] = r.ServiceLevel(p.float(t, "t"))
		}
		return q
	})
	registerModel("erlang-a-size", func(t *testing.T, p modelParams) map[string]float64 {
		opt := func(k string) float64 {
			if _, ok := p[k]; !ok {
				return 0
			}
			return p.float(t, k)
		}
		target := ErlangATarget{ServiceLevel: opt("service_level"), Within: opt("within"), MaxAbandon: opt("max_abandon"),
			MaxPWait: opt("max_p_wait"), MaxWq: opt("max_wq"), MaxUtilisation: opt("max_utilisation")}
		c, _, err := SizeErlangA(t.Context(), p.float(t, "lambda"), p.float(t, "mu"), p.float(t, "theta"), target)
		if err != nil {
			t.Fatal(err)
		}
		return map[string]float64{"servers": float64(c)}
	})
}

// chainErlangA solves the birth-death chain directly (death rate
// min(n,c)μ + max(n-c,0)θ), truncated where the weights fall below 1e-300
// of the largest: P(wait), Lq and P(N = n) for n < len.
func chainErlangA(lambda, mu, theta float64, c int) (pWait, lq float64, p []float64) {
	w := []float64{1}
	peak := 1.0
	for n := 1; n <= c || w[n-1] > 1e-300*peak; n++ {
		d := float64(min(n, c))*mu + float64(max(n-c, 0))*theta
		w = append(w, w[n-1]*lambda/d)
		peak = math.Max(peak, w[n])
	}
	var z float64
	for _, v := range w {
		z += v
	}
	for n := range w {
		w[n] /= z
		if n >= c {
			pWait += w[n]
			lq += float64(n-c) * w[n]
		}
	}
	return pWait, lq, w
}

func relErr(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}

// TestErlangAChain: P(wait), Lq and P(abandon) agree with the chain solved
// directly, for small c at loads below, at and above c.
func TestErlangAChain(t *testing.T) {
	for _, c := range []int{1, 2, 5, 20, 60} {
		for _, rho := range []float64{0.1, 0.8, 1, 1.5, 4} {
			for _, theta := range []float64{0.01, 0.3, 1, 7} {
				lambda := rho * float64(c)
				r, err := ErlangA(t.Context(), lambda, 1, theta, c)
				if err != nil {
					t.Fatal(err)
				}
				pw, lq, _ := chainErlangA(lambda, 1, theta, c)
				for _, q := range []struct {
					name      string
					got, want float64
				}{{"PWait", r.PWait, pw}, {"Lq", r.Lq, lq}, {"PAbandon", r.PAbandon, theta * lq / lambda}} {
					if e := relErr(q.got, q.want); e > 1e-11 {
						t.Errorf("ErlangA(λ=%g, μ=1, θ=%g, c=%d).%s = %.15g, want %.15g (chain)", lambda, theta, c, q.name, q.got, q.want)
					}
				}
			}
		}
	}
}

// TestErlangAIdentities: Little's law, the flow balance λ = throughput +
// abandonment, Wq = its served and abandoned parts, and the service level's
// ends (1 - P(wait) at 0, 1 - P(abandon) far out).
func TestErlangAIdentities(t *testing.T) {
	for _, tc := range []struct {
		lambda, mu, theta float64
		c                 int
	}{{3, 1, 0.5, 2}, {10, 1, 0.1, 12}, {100, 2, 5, 40}, {0.5, 1, 100, 1}, {900, 1, 1e-3, 1000}, {1.2e5, 1, 0.1, 100_000}} {
		r, err := ErlangA(t.Context(), tc.lambda, tc.mu, tc.theta, tc.c)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []struct {
			name      string
			got, want float64
		}{
			{"Lq vs λ·Wq", r.Lq, tc.lambda * r.Wq},
			{"λ vs throughput + θ·Lq", tc.lambda, r.Throughput + tc.theta*r.Lq},
			{"Wq vs its parts", r.Wq, (1-r.PAbandon)*r.WqServed + r.PAbandon*r.WqAbandoned},
			{"ServiceLevel(0)", r.ServiceLevel(0), 1 - r.PWait},
			{"ServiceLevel(∞)", r.ServiceLevel(1e6 / tc.theta), 1 - r.PAbandon},
			{"WaitWithin(0)", r.WaitWithin(0), 1 - r.PWait},
			{"ServedWithin(∞)", r.ServedWithin(1e6 / tc.theta), 1},
		} {
			if e := relErr(q.got, q.want); e > 1e-12 {
				t.Errorf("%+v: %s: got %.15g, want %.15g", tc, q.name, q.got, q.want)
			}
		}
		prev := 0.0
		for _, at := range []float64{0, 0.01, 0.1, 0.5, 1, 3, 10, 100} {
			sl, ww := r.ServiceLevel(at/tc.mu), r.WaitWithin(at/tc.mu)
			if sl < prev-1e-10 || sl > ww+1e-10 {
				t.Errorf("%+v: ServiceLevel(%g) = %.15g after %.15g, P(Wq ≤ t) = %.15g: want it rising and at most P(Wq ≤ t)", tc, at/tc.mu, sl, prev, ww)
			}
			prev = sl
		}
	}
}

// TestErlangALimits: θ → 0 is Erlang C (M/M/c) when ρ < 1; θ → ∞ is Erlang
// B, every waiting arrival leaving at once; θ = μ is M/M/∞, so P(wait) is
// P(Poisson(a) ≥ c).
func TestErlangALimits(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct {
		lambda float64
		c      int
	}{{0.5, 1}, {8, 10}, {90, 100}} {
		m, err := MMc(ctx, tc.lambda, 1, tc.c)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ErlangA(ctx, tc.lambda, 1, 1e-9, tc.c)
		if err != nil {
			t.Fatal(err)
		}
		if e := relErr(r.PWait, m.PWait); e > 1e-6 {
			t.Errorf("θ = 1e-9, λ = %g, c = %d: PWait = %.12g, want Erlang C %.12g", tc.lambda, tc.c, r.PWait, m.PWait)
		}
		if e := relErr(r.Wq, m.Wq); e > 1e-6 {
			t.Errorf("θ = 1e-9, λ = %g, c = %d: Wq = %.12g, want M/M/c's %.12g", tc.lambda, tc.c, r.Wq, m.Wq)
		}
		if st := r.ServiceLevel(0.5); relErr(st, 1-m.WaitTail(0.5)) > 1e-6 {
			t.Errorf("θ = 1e-9: ServiceLevel(0.5) = %.12g, want M/M/c's %.12g", st, 1-m.WaitTail(0.5))
		}
		b, _ := ErlangB(ctx, tc.c, tc.lambda)
		r, err = ErlangA(ctx, tc.lambda, 1, 1e12, tc.c)
		if err != nil {
			t.Fatal(err)
		}
		if e := relErr(r.PAbandon, b); e > 1e-9 || r.Wq > 1e-11 {
			t.Errorf("θ = 1e12, λ = %g, c = %d: PAbandon = %.12g, Wq = %g, want Erlang B %.12g and 0", tc.lambda, tc.c, r.PAbandon, r.Wq, b)
		}
		r, err = ErlangA(ctx, tc.lambda, 1, 1, tc.c)
		if err != nil {
			t.Fatal(err)
		}
		if want := 1 - poissonCDF(tc.lambda, tc.c-1); relErr(r.PWait, want) > 1e-12 {
			t.Errorf("θ = μ, λ = %g, c = %d: PWait = %.15g, want P(Poisson ≥ c) = %.15g", tc.lambda, tc.c, r.PWait, want)
		}
	}
}

// poissonCDF is P(Poisson(m) ≤ k) by summing its terms.
func poissonCDF(m float64, k int) float64 {
	term, sum := math.Exp(-m), math.Exp(-m)
	for i := 1; i <= k; i++ {
		term *= m / float64(i)
		sum += term
	}
	return sum
}

// TestErlangALarge: c = 10^5 and 10^7 at loads around c give finite,
// sensible measures, and agree with M/M/c as θ becomes small.
func TestErlangALarge(t *testing.T) {
	for _, tc := range []struct {
		c           int
		rho, theta  float64
		pWaitAtMost float64
	}{{100_000, 0.99, 1, 1}, {100_000, 1.2, 0.1, 1}, {100_000, 0.5, 0.01, 1e-300}, {10_000_000, 1, 1, 1}} {
		lambda := tc.rho * float64(tc.c)
		r, err := ErlangA(t.Context(), lambda, 1, tc.theta, tc.c)
		if err != nil {
			t.Fatal(err)
		}
		ok := r.PWait >= 0 && r.PWait <= tc.pWaitAtMost && r.PAbandon >= 0 && r.PAbandon <= r.PWait &&
			r.Utilisation > 0 && r.Utilisation <= 1 && !math.IsInf(r.Lq, 0) && !math.IsNaN(r.WqServed+r.WqAbandoned+r.Log10PWait)
		if !ok {
			t.Errorf("ErlangA(c = %d, ρ = %g, θ = %g) = %+v: not sensible", tc.c, tc.rho, tc.theta, r)
		}
		if tc.rho > 1 {
			// Overloaded, the servers are all but always busy and the
			// excess λ - cμ leaves: P(abandon) ≈ 1 - 1/ρ.
			if e := relErr(r.PAbandon, 1-1/tc.rho); e > 1e-2 {
				t.Errorf("c = %d, ρ = %g: PAbandon = %g, want about %g", tc.c, tc.rho, r.PAbandon, 1-1/tc.rho)
			}
		}
	}
	m, _ := MMc(t.Context(), 99_000, 1, 100_000)
	r, err := ErlangA(t.Context(), 99_000, 1, 1e-7, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	if e := relErr(r.PWait, m.PWait); e > 1e-4 {
		t.Errorf("c = 10^5, θ = 1e-7: PWait = %.10g, want Erlang C %.10g", r.PWait, m.PWait)
	}
}

// TestErlangAMonotone: more servers never make any staffing goal worse,
// which SizeErlangA's bisection relies on.
func TestErlangAMonotone(t *testing.T) {
	prev := ErlangAResult{PWait: 2, PAbandon: 2, Wq: math.Inf(1), Utilisation: 2}
	prevSL := -1.0
	for c := 1; c <= 60; c++ {
		r, err := ErlangA(t.Context(), 30, 1, 0.4, c)
		if err != nil {
			t.Fatal(err)
		}
		sl := r.ServiceLevel(0.2)
		if r.PWait > prev.PWait || r.PAbandon > prev.PAbandon || r.Wq > prev.Wq || r.Utilisation > prev.Utilisation || sl < prevSL-1e-12 {
			t.Errorf("c = %d: PWait %g, PAbandon %g, Wq %g, utilisation %g, SL %g; at c-1: %g, %g, %g, %g, %g",
				c, r.PWait, r.PAbandon, r.Wq, r.Utilisation, sl, prev.PWait, prev.PAbandon, prev.Wq, prev.Utilisation, prevSL)
		}
		prev, prevSL = r, sl
	}
}

// TestSizeErlangA: the answer meets the target and one server fewer does
// not, for each kind of goal and for them together.
func TestSizeErlangA(t *testing.T) {
	for _, tg := range []ErlangATarget{
		{MaxAbandon: 0.01}, {ServiceLevel: 0.8, Within: 5}, {MaxPWait: 0.2}, {MaxWq: 0.5}, {MaxUtilisation: 0.85},
		{MaxAbandon: 0.01, ServiceLevel: 0.8, Within: 5},
	} {
		t.Run(fmt.Sprintf("%+v", tg), func(t *testing.T) {
			c, r, err := SizeErlangA(t.Context(), 2, 0.2, 1.0/30, tg)
			if err != nil {
				t.Fatal(err)
			}
			if !tg.Met(r) || r.Servers != c {
				t.Errorf("SizeErlangA = %d, %+v: does not meet the target", c, r)
			}
			if c > 1 {
				below, _ := ErlangA(t.Context(), 2, 0.2, 1.0/30, c-1)
				if tg.Met(below) {
					t.Errorf("SizeErlangA = %d, but %d servers meet the target too", c, c-1)
				}
			}
		})
	}
}

// TestErlangABadInput: every bad input is ErrInput, before any work.
func TestErlangABadInput(t *testing.T) {
	for _, tc := range []struct {
		name              string
		lambda, mu, theta float64
		c                 int
	}{
		{"theta zero", 1, 1, 0, 2}, {"theta negative", 1, 1, -1, 2}, {"theta NaN", 1, 1, math.NaN(), 2},
		{"theta huge", 1, 1, 1e101, 2}, {"lambda zero", 0, 1, 1, 2}, {"mu negative", 1, -1, 1, 2},
		{"c zero", 1, 1, 1, 0}, {"c above limit", 1, 1, 1, MaxServers + 1},
		{"theta too small", 1e6, 1, 1e-12, 1_000_000},
	} {
		_, err := ErlangA(t.Context(), tc.lambda, tc.mu, tc.theta, tc.c)
		if !errors.Is(err, ErrInput) {
			t.Errorf("%s: ErlangA(%g, %g, %g, %d) = %v, want ErrInput", tc.name, tc.lambda, tc.mu, tc.theta, tc.c, err)
		}
	}
	for _, tg := range []ErlangATarget{{}, {ServiceLevel: 1, Within: 1}, {ServiceLevel: 0.8, Within: -1},
		{MaxAbandon: 1.5}, {MaxUtilisation: 1.2}, {MaxWq: math.NaN()}} {
		if _, _, err := SizeErlangA(t.Context(), 1, 1, 1, tg); !errors.Is(err, ErrInput) {
			t.Errorf("SizeErlangA(target %+v) = %v, want ErrInput", tg, err)
		}
	}
}

// TestErlangACancel: a cancelled ctx stops ErlangA and SizeErlangA.
func TestErlangACancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := ErlangA(ctx, 9e6, 1, 1, MaxServers); !errors.Is(err, context.Canceled) {
		t.Errorf("ErlangA on a cancelled ctx = %v, want context.Canceled", err)
	}
	if _, _, err := SizeErlangA(ctx, 9e5, 1, 1, ErlangATarget{MaxAbandon: 0.01}); !errors.Is(err, context.Canceled) {
		t.Errorf("SizeErlangA on a cancelled ctx = %v, want context.Canceled", err)
	}
}

// FuzzErlangA: ErlangA, its waiting-time functions and SizeErlangA give
// finite numbers or ErrInput for any λ, μ, θ and c.
func FuzzErlangA(f *testing.F) {
	for _, x := range extremes {
		for _, c := range []int{1, 3, math.MaxInt64, MaxServers + 1, -1} {
			f.Add(x, 1.0, 1.0, c)
			f.Add(1.0, x, 1.0, c)
			f.Add(1.0, 1.0, x, c)
		}
	}
	f.Add(1e15, 1.0, 1e100, 2)
	f.Add(1e-100, 1e100, 1e-100, 1000)
	f.Add(9.99e6, 1.0, 1.0, 10_000_000)
	f.Add(1e7, 1.0, 0.1, 10)
	f.Fuzz(func(t *testing.T, lambda, mu, theta float64, c int) {
		r, err := ErlangA(t.Context(), lambda, mu, theta, c)
		checkResult(t, "ErlangA", r, err)
		if err == nil {
			for _, at := range []float64{0, 1 / theta, 1e100} {
				for _, v := range []float64{r.ServiceLevel(at), r.ServedWithin(at), r.WaitWithin(at)} {
					if !(v >= 0 && v <= 1+1e-12) {
						t.Errorf("ErlangA(%g, %g, %g, %d) at t = %g: a probability %v", lambda, mu, theta, c, at, v)
					}
				}
			}
		}
		if c >= 0 && c < 3 {
			_, r, err = SizeErlangA(t.Context(), lambda, mu, theta, ErlangATarget{MaxAbandon: 0.01})
			checkResult(t, "SizeErlangA", r, err)
		}
	})
}

// TestErlangAPeakHelpers: lnTerm and harmonic, which start aSeries at its
// largest term, against their sums term by term.
func TestErlangAPeakHelpers(t *testing.T) {
	for _, tc := range []struct{ x, y, n float64 }{
		{0.5, 3e5, 2e5}, {3, 1e6, 5e5}, {25, 1e5, 7e4}, {1e4, 1e6, 9e5}, {1e6, 1.3e6, 3e5}, {0.01, 100, 10},
	} {
		var lt, h float64
		for i := 1.0; i <= tc.n; i++ {
			lt += math.Log(tc.y / (tc.x + i))
			h += 1 / (tc.x + i)
		}
		h += 1 / (tc.x + tc.n + 1)
		if got := lnTerm(tc.x, tc.y, tc.n); math.Abs(got-lt) > 1e-9*math.Max(1, math.Abs(lt)) {
			t.Errorf("lnTerm(%g, %g, %g) = %.15g, want %.15g", tc.x, tc.y, tc.n, got, lt)
		}
		if got := harmonic(tc.x, tc.n); relErr(got, h) > 1e-12 {
			t.Errorf("harmonic(%g, %g) = %.15g, want %.15g", tc.x, tc.n, got, h)
		}
	}
}

// TestErlangAFromPeak: well above cμ the sums start at their largest term
// (aSeriesFromPeak); they agree with the sums from j = 0, and ErlangA
// there agrees with the chain solved directly.
func TestErlangAFromPeak(t *testing.T) {
	for _, tc := range []struct{ x, y float64 }{{100, 5000}, {0.3, 20000}, {3000, 40000}} {
		from0, err := aSeries(t.Context(), tc.x, tc.y)
		if err != nil {
			t.Fatal(err)
		}
		peak, err := aSeriesFromPeak(t.Context(), tc.x, tc.y, math.Floor(tc.y-tc.x), 1e7)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []struct {
			name      string
			got, want float64
		}{{"ln A", peak.lnA(), from0.lnA()}, {"s1/s0", peak.s1 / peak.s0, from0.s1 / from0.s0},
			{"served/s0", peak.served / peak.s0, from0.served / from0.s0}} {
			if e := relErr(q.got, q.want); e > 1e-11 {
				t.Errorf("x = %g, y = %g: %s from the peak = %.15g, from 0 = %.15g", tc.x, tc.y, q.name, q.got, q.want)
			}
		}
	}
	const lambda, theta, c = 20.0, 1e-4, 5
	r, err := ErlangA(t.Context(), lambda, 1, theta, c)
	if err != nil {
		t.Fatal(err)
	}
	pw, lq, _ := chainErlangA(lambda, 1, theta, c)
	if relErr(r.PWait, pw) > 1e-9 || relErr(r.Lq, lq) > 1e-9 {
		t.Errorf("λ = 20, θ = 1e-4, c = 5: PWait %.15g, Lq %.15g; the chain: %.15g, %.15g", r.PWait, r.Lq, pw, lq)
	}
	if e := relErr(r.Wq, (1-r.PAbandon)*r.WqServed+r.PAbandon*r.WqAbandoned); e > 1e-12 || !(r.WqServed > 0 && r.WqAbandoned > 0) {
		t.Errorf("λ = 20, θ = 1e-4, c = 5: Wq %g, WqServed %g, WqAbandoned %g", r.Wq, r.WqServed, r.WqAbandoned)
	}
}

// TestErlangAGammaP: A(x, y) = x·e^y·y^-x·Γ(x)·P(x, y) with gammaP, the
// regularised incomplete gamma function of stats.go, where gammaP is
// accurate (x, y up to 10^3: its prefix loses about 1e-16·x·ln x, 7e-10
// relative at x = y = 10^6, which is why ErlangA does not use it).
func TestErlangAGammaP(t *testing.T) {
	for _, x := range []float64{0.2, 1, 7.5, 40, 300, 1000} {
		for _, y := range []float64{0.01, 1, 9, 50, 280, 1200} {
			s, err := aSeries(t.Context(), x, y)
			if err != nil {
				t.Fatal(err)
			}
			want := math.Log(x) + y - x*math.Log(y) + lgamma(x) + math.Log(gammaP(x, y))
			if d := math.Abs(s.lnA() - want); d > 1e-11*math.Max(1, math.Abs(want)) {
				t.Errorf("ln A(%g, %g) = %.15g, from gammaP %.15g", x, y, s.lnA(), want)
			}
		}
	}
}
