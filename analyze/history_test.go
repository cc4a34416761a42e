package analyze

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

var epoch = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func at(s float64) time.Time { return epoch.Add(secs(s)) }

func secs(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

// simulate runs a first-come first-served queue with c workers, Poisson
// arrivals at lambda and service times from service, for n jobs.
func simulate(rng *rand.Rand, n, c int, lambda float64, service func() float64) []JobSample {
	free := make([]float64, c) // when each worker is next free
	var t float64
	samples := make([]JobSample, n)
	for i := range samples {
		t += rng.ExpFloat64() / lambda
		w := 0
		for k := range free {
			if free[k] < free[w] {
				w = k
			}
		}
		start, s := max(t, free[w]), service()
		free[w] = start + s
		samples[i] = JobSample{Kind: "shell", Backend: "local", Enqueued: at(t), Started: at(start),
			Finished: at(start + s), Service: secs(s), OK: true}
	}
	return samples
}

func within(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

func oneGroup(t *testing.T, samples []JobSample, o HistoryOptions) HistoryGroup {
	t.Helper()
	groups, err := History(t.Context(), samples, o)
	if err != nil {
		t.Fatalf("History: %v", err)
	}
	if len(groups) != 1 {
		t.Fatalf("History gave %d groups, want 1", len(groups))
	}
	return groups[0]
}

func TestChiSquareQuantile(t *testing.T) {
	// Computed with mpmath (40 digits) by bisection on gammainc.
	tests := []struct{ p, k, want float64 }{
		{0.025, 10, 3.24697278024},
		{0.975, 10, 20.4831773508},
		{0.025, 4, 0.484418557088},
		{0.975, 4, 11.1432867819},
		{0.025, 6, 1.23734424579},
		{0.975, 6, 14.4493753354},
		{0.025, 100, 74.2219274749},
		{0.975, 100, 129.561197186},
		{0.05, 2, 0.102586588775},
		{0.5, 1, 0.45493642312},
		{0.975, 1, 5.02388618731},
		{0.005, 1, 3.92704222205e-5},
		{0.001, 3, 0.0242975858157},
		{0.9999, 7, 29.8775039092},
		{0.3, 0.5, 0.0109826049486},
		{0.025, 20000, 19609.9049345},
		{0.975, 20000, 20393.88365},
	}
	for _, tt := range tests {
		got, err := ChiSquareQuantile(tt.p, tt.k)
		if err != nil || !within(got, tt.want, 1e-9) {
			t.Errorf("ChiSquareQuantile(%v, %v) = %.12g, %v; want %.12g", tt.p, tt.k, got, err, tt.want)
		}
	}
	for _, bad := range [][2]float64{{0, 3}, {1, 3}, {math.NaN(), 3}, {0.5, 0}, {0.5, -1}, {0.5, math.Inf(1)}} {
		if _, err := ChiSquareQuantile(bad[0], bad[1]); !errors.Is(err, ErrInput) {
			t.Errorf("ChiSquareQuantile(%v, %v): error %v, want ErrInput", bad[0], bad[1], err)
		}
	}
}

// TestGammaPInvRoundTrip checks P(a, P⁻¹(a, p)) = p over the range of
// shapes History uses (a = n for n jobs) and beyond.
func TestGammaPInvRoundTrip(t *testing.T) {
	for _, a := range []float64{0.1, 0.5, 1, 2, 3.5, 10, 99, 1000, 12345, 1e6} {
		for _, p := range []float64{1e-6, 0.005, 0.025, 0.3, 0.5, 0.9, 0.975, 0.995, 1 - 1e-6} {
			x := gammaPInv(a, p)
			// P's prefactor x^a·e^(-x)/Γ(a) loses digits as a grows.
			if got := gammaP(a, x); math.Abs(got-p) > 1e-8*max(p, 1e-3) {
				t.Errorf("P(%v, P⁻¹(%v, %v) = %v) = %v", a, a, p, x, got)
			}
		}
	}
}

// TestHistoryByHand checks three jobs whose every figure is worked out by
// hand: A runs 0-2 s, B is enqueued at 1 s and runs 1-4 s, C runs 4-5 s.
func TestHistoryByHand(t *testing.T) {
	samples := []JobSample{
		{Kind: "k", Backend: "b", Enqueued: at(1), Started: at(1), Finished: at(4), Service: secs(3), OK: true},
		{Kind: "k", Backend: "b", Enqueued: at(4), Started: at(4), Finished: at(5), Service: secs(1)},
		{Kind: "k", Backend: "b", Enqueued: at(0), Started: at(0), Finished: at(2), Service: secs(2), OK: true},
	}
	g := oneGroup(t, samples, HistoryOptions{})
	// λ = 2 gaps / 4 s; μ = 3 jobs / 6 s; χ²(4) and χ²(6) quantiles from
	// TestChiSquareQuantile over 2T = 8 and 2S = 12.
	checks := []struct {
		name      string
		got, want float64
	}{
		{"span_s", g.SpanS, 4},
		{"lambda", deref(g.Lambda), 0.5},
		{"lambda_ci.lo", g.LambdaCI.Lo, 0.484418557088 / 8},
		{"lambda_ci.hi", g.LambdaCI.Hi, 11.1432867819 / 8},
		{"mu", deref(g.Mu), 0.5},
		{"mu_ci.lo", g.MuCI.Lo, 1.23734424579 / 12},
		{"mu_ci.hi", g.MuCI.Hi, 14.4493753354 / 12},
		{"max_concurrency", float64(g.MaxConcurrency), 2}, // C starts as B ends: no overlap
		{"mean_busy", deref(g.MeanBusy), 6.0 / 5},
		{"wq_observed", g.WqObserved, 0},
		{"w_observed", deref(g.WObserved), 2},
		{"rho", deref(g.Rho), 0.5},
		{"wq_predicted", deref(g.WqPredicted), 2.0 / 3}, // M/M/2, a = 1: C = 1/3, Lq = 1/3
		{"w_predicted", deref(g.WPredicted), 8.0 / 3},
		{"service_cv", deref(g.ServiceCV), 0.5},              // sd(2, 3, 1) = 1
		{"arrival_cv", deref(g.ArrivalCV), math.Sqrt2 / 2.0}, // gaps 1 and 3
		{"jobs", float64(g.Jobs), 3},
		{"completed", float64(g.Completed), 3},
		{"failed", float64(g.Failed), 1},
	}
	for _, c := range checks {
		if !within(c.got, c.want, 1e-9) {
			t.Errorf("%s = %.12g, want %.12g", c.name, c.got, c.want)
		}
	}
	if !g.Stable || g.WqAllenCunneen != nil || g.WorkersForMaxWq != nil || g.Warnings != nil {
		t.Errorf("stable %v, Allen-Cunneen %v, workers %v, warnings %q; want true, nil, nil, none",
			g.Stable, g.WqAllenCunneen, g.WorkersForMaxWq, g.Warnings)
	}
}

func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// TestHistoryPoisson checks the estimates on an M/M/5 queue simulated
// with λ = 1.75/s, μ = 0.5/s per worker (ρ = 0.7), 20000 jobs and a fixed
// seed. The tolerances hold over 30 seeds tried: at worst λ and μ were
// off by 1.8 %, observed Wq from predicted by 13 %, predicted from exact
// by 12 %, W by 2.7 %.
func TestHistoryPoisson(t *testing.T) {
	const lambda, mu, c = 1.75, 0.5, 5
	rng := rand.New(rand.NewPCG(1, 2))
	samples := simulate(rng, 20000, c, lambda, func() float64 { return rng.ExpFloat64() / mu })
	g := oneGroup(t, samples, HistoryOptions{})
	want, _ := MMc(t.Context(), lambda, mu, c)
	for _, e := range []struct {
		name       string
		got, truth float64
		ci         *Interval
	}{{"lambda", deref(g.Lambda), lambda, g.LambdaCI}, {"mu", deref(g.Mu), mu, g.MuCI}} {
		if !within(e.got, e.truth, 0.03) {
			t.Errorf("%s = %.4g, want %v within 3%%", e.name, e.got, e.truth)
		}
		if e.ci == nil || !(e.ci.Lo < e.truth && e.truth < e.ci.Hi) {
			t.Errorf("%s CI %+v does not hold the true %v", e.name, e.ci, e.truth)
		}
	}
	if g.MaxConcurrency != c {
		t.Errorf("max_concurrency = %d, want %d", g.MaxConcurrency, c)
	}
	if busy, load := deref(g.MeanBusy), deref(g.Lambda)/deref(g.Mu); !within(busy, load, 0.02) {
		t.Errorf("mean_busy = %.4g, want λ/μ = %.4g within 2%%", busy, load)
	}
	if !g.Stable || !within(deref(g.WqPredicted), want.Wq, 0.2) || !within(g.WqObserved, deref(g.WqPredicted), 0.2) {
		t.Errorf("wq observed %.4g, predicted %.4g (stable %v), exact M/M/5 %.4g; want all within 20%%",
			g.WqObserved, deref(g.WqPredicted), g.Stable, want.Wq)
	}
	if !within(deref(g.WObserved), deref(g.WPredicted), 0.05) {
		t.Errorf("w observed %.4g, predicted %.4g; want within 5%%", deref(g.WObserved), deref(g.WPredicted))
	}
	for name, cv := range map[string]*float64{"service_cv": g.ServiceCV, "arrival_cv": g.ArrivalCV} {
		if !within(deref(cv), 1, 0.03) {
			t.Errorf("%s = %.4g, want 1 within 3%%", name, deref(cv))
		}
	}
	if g.Warnings != nil || g.WqAllenCunneen != nil {
		t.Errorf("warnings %q, Allen-Cunneen %v; want none for M/M/c", g.Warnings, g.WqAllenCunneen)
	}
}

// TestHistoryCoverage checks that the exact intervals hold the true rates
// in about 95 % of 2000 small samples (30 jobs each).
func TestHistoryCoverage(t *testing.T) {
	const lambda, mu, runs = 3.0, 0.7, 2000
	rng := rand.New(rand.NewPCG(3, 4))
	var hitL, hitM int
	for range runs {
		samples := simulate(rng, 30, 50, lambda, func() float64 { return rng.ExpFloat64() / mu })
		g := oneGroup(t, samples, HistoryOptions{})
		if g.LambdaCI.Lo < lambda && lambda < g.LambdaCI.Hi {
			hitL++
		}
		if g.MuCI.Lo < mu && mu < g.MuCI.Hi {
			hitM++
		}
	}
	// 3 binomial standard deviations (0.0049 each) around 0.95; over 10
	// seeds tried, coverage ran from 0.942 to 0.958.
	for name, hits := range map[string]int{"lambda": hitL, "mu": hitM} {
		if cover := float64(hits) / runs; math.Abs(cover-0.95) > 0.015 {
			t.Errorf("%s CI coverage %.3f, want 0.95 ± 0.015", name, cover)
		}
	}
}

// TestHistoryConstantService checks M/D/3: constant service times warn,
// and the Allen-Cunneen wait is Wq_MMc·(Ca²+0)/2, near what was observed.
func TestHistoryConstantService(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	samples := simulate(rng, 3000, 3, 2.4, func() float64 { return 1 })
	g := oneGroup(t, samples, HistoryOptions{})
	gaps := make([]float64, len(samples)-1)
	for i := range gaps {
		gaps[i] = samples[i+1].Enqueued.Sub(samples[i].Enqueued).Seconds()
	}
	_, ca, _ := meanCV(gaps)
	if deref(g.ServiceCV) > 1e-6 || !within(deref(g.ArrivalCV), ca, 1e-9) {
		t.Errorf("service_cv %v, arrival_cv %v; want 0 and %v", deref(g.ServiceCV), deref(g.ArrivalCV), ca)
	}
	if len(g.Warnings) != 1 || !strings.Contains(g.Warnings[0], "service times are far from exponential (CV 0 over 3000 jobs") {
		t.Errorf("warnings %q, want one on the service CV", g.Warnings)
	}
	wantAC := deref(g.WqPredicted) * ca * ca / 2
	if g.WqAllenCunneen == nil || !within(*g.WqAllenCunneen, wantAC, 1e-9) {
		t.Fatalf("wq_allen_cunneen %v, want %v", g.WqAllenCunneen, wantAC)
	}
	// M/D/c waits about half as long as M/M/c: Allen-Cunneen is closer.
	if obs := g.WqObserved; math.Abs(obs-wantAC) >= math.Abs(obs-*g.WqPredicted) {
		t.Errorf("observed Wq %.4g is closer to M/M/c's %.4g than to Allen-Cunneen's %.4g",
			obs, *g.WqPredicted, wantAC)
	}
}

// TestHistoryStaffing checks that the workers found meet --max-wq and one
// fewer do not, with and without the Allen-Cunneen factor.
func TestHistoryStaffing(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	exp := func() float64 { return rng.ExpFloat64() / 0.5 }
	tests := []struct {
		name    string
		samples []JobSample
		maxWq   float64
		ac      bool
	}{
		{"exponential", simulate(rng, 2000, 6, 2, exp), 0.05, false},
		{"exponential loose", simulate(rng, 2000, 6, 2, exp), 30, false},
		{"constant", simulate(rng, 2000, 4, 1.5, func() float64 { return 2 }), 0.01, true},
		{"backlog", simulate(rng, 200, 1, 4, exp), 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := oneGroup(t, tt.samples, HistoryOptions{MaxWq: tt.maxWq})
			factor := 1.0
			if tt.ac {
				factor = (deref(g.ArrivalCV)*deref(g.ArrivalCV) + deref(g.ServiceCV)*deref(g.ServiceCV)) / 2
			}
			wq := func(c int) (float64, bool) {
				r, err := MMc(t.Context(), *g.Lambda, *g.Mu, c)
				return r.Wq * factor, err == nil && r.Stable
			}
			if g.WorkersForMaxWq == nil {
				t.Fatal("no workers_for_max_wq")
			}
			c := *g.WorkersForMaxWq
			if got, stable := wq(c); !stable || got > tt.maxWq || !within(deref(g.WqWithWorkers), got, 1e-12) {
				t.Errorf("with %d workers Wq %.4g (stable %v, reported %v), want ≤ %v",
					c, got, stable, deref(g.WqWithWorkers), tt.maxWq)
			}
			if got, stable := wq(c - 1); c > 1 && stable && got <= tt.maxWq {
				t.Errorf("with %d workers Wq %.4g already meets %v", c-1, got, tt.maxWq)
			}
		})
	}
}

func TestHistoryUnstable(t *testing.T) {
	// One worker, 1 s jobs arriving every 0.1 s: the backlog grows.
	var samples []JobSample
	for i := range 20 {
		start := float64(i)
		samples = append(samples, JobSample{Kind: "k", Backend: "b", Enqueued: at(float64(i) / 10),
			Started: at(start), Finished: at(start + 1), Service: secs(1), OK: true})
	}
	g := oneGroup(t, samples, HistoryOptions{MaxWq: 1})
	if g.Stable || g.WqPredicted != nil || g.WPredicted != nil || !within(deref(g.Rho), 10, 1e-9) {
		t.Errorf("stable %v, wq %v, w %v, rho %v; want an unstable M/M/1 at ρ = 10",
			g.Stable, g.WqPredicted, g.WPredicted, deref(g.Rho))
	}
	if len(g.Warnings) == 0 || !strings.Contains(g.Warnings[len(g.Warnings)-1], "unstable (ρ = 10)") {
		t.Errorf("warnings %q, want one saying unstable", g.Warnings)
	}
	if c := deref(g.WorkersForMaxWq); c < 11 {
		t.Errorf("workers_for_max_wq = %d, want more than λ/μ = 10", c)
	}
}

// TestHistoryEdges checks inputs too small to estimate from: History
// leaves out what it cannot estimate and never emits NaN or Inf.
func TestHistoryEdges(t *testing.T) {
	job := func(enq, start, finish float64) JobSample {
		s := JobSample{Kind: "k", Backend: "b", Enqueued: at(enq), Started: at(start), OK: true}
		if finish >= 0 {
			s.Finished, s.Service = at(finish), secs(finish-start)
		}
		return s
	}
	tests := []struct {
		name    string
		samples []JobSample
		groups  int
		lambda  bool
		mu      bool
		warning string
	}{
		{"empty", nil, 0, false, false, ""},
		{"never started", []JobSample{{Kind: "k", Enqueued: at(0)}}, 0, false, false, ""},
		{"one job", []JobSample{job(0, 1, 3)}, 1, false, true, ""},
		{"one running", []JobSample{job(0, 1, -1)}, 1, false, false, ""},
		{"zero service", []JobSample{job(0, 1, 1), job(1, 1, 1)}, 1, true, false, ""},
		{"all at once", []JobSample{job(0, 0, 1), job(0, 0, 2), job(0, 1, 3)}, 1, false, true,
			"all 3 jobs were enqueued at once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			groups, err := History(t.Context(), tt.samples, HistoryOptions{MaxWq: 0.5})
			if err != nil || len(groups) != tt.groups {
				t.Fatalf("History: %d groups, %v; want %d", len(groups), err, tt.groups)
			}
			out, err := json.Marshal(groups)
			if err != nil { // encoding/json rejects NaN and Inf
				t.Fatalf("json.Marshal: %v", err)
			}
			if tt.groups == 0 {
				if string(out) != "[]" {
					t.Errorf("JSON %s, want []", out)
				}
				return
			}
			g := groups[0]
			if (g.Lambda != nil) != tt.lambda || (g.Mu != nil) != tt.mu {
				t.Errorf("lambda %v, mu %v; want present %v, %v", g.Lambda, g.Mu, tt.lambda, tt.mu)
			}
			if (g.WqPredicted != nil) != (tt.lambda && tt.mu) {
				t.Errorf("wq_predicted %v without both rates", g.WqPredicted)
			}
			if got := strings.Join(g.Warnings, "\n"); !strings.Contains(got, tt.warning) || tt.warning == "" && got != "" {
				t.Errorf("warnings %q, want %q", got, tt.warning)
			}
		})
	}
}

func TestHistoryGroups(t *testing.T) {
	s := func(kind, backend string, enq float64) JobSample {
		return JobSample{Kind: kind, Backend: backend, Enqueued: at(enq), Started: at(enq + 1)}
	}
	groups, err := History(t.Context(), []JobSample{s("sms", "modem", 0), s("convert", "soffice2", 1),
		s("convert", "soffice1", 2), s("sms", "modem", 3)}, HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range groups {
		got = append(got, fmt.Sprintf("%s/%s:%d", g.Kind, g.Backend, g.Jobs))
	}
	if want := "convert/soffice1:1 convert/soffice2:1 sms/modem:2"; strings.Join(got, " ") != want {
		t.Errorf("groups %v, want %s", got, want)
	}
}

func TestHistoryBadInput(t *testing.T) {
	ok := []JobSample{{Kind: "k", Enqueued: at(0), Started: at(1)}}
	tests := []struct {
		name    string
		samples []JobSample
		o       HistoryOptions
	}{
		{"confidence 1", ok, HistoryOptions{Confidence: 1}},
		{"confidence negative", ok, HistoryOptions{Confidence: -0.5}},
		{"confidence NaN", ok, HistoryOptions{Confidence: math.NaN()}},
		{"max wq negative", ok, HistoryOptions{MaxWq: -1}},
		{"max wq NaN", ok, HistoryOptions{MaxWq: math.NaN()}},
		{"max wq Inf", ok, HistoryOptions{MaxWq: math.Inf(1)}},
		{"started before enqueued", []JobSample{{Enqueued: at(1), Started: at(0)}}, HistoryOptions{}},
		{"finished before started", []JobSample{{Enqueued: at(0), Started: at(2), Finished: at(1)}}, HistoryOptions{}},
		{"never enqueued", []JobSample{{Started: at(2)}}, HistoryOptions{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := History(t.Context(), tt.samples, tt.o); !errors.Is(err, ErrInput) {
				t.Errorf("History: error %v, want ErrInput", err)
			}
		})
	}
}

func ExampleHistory() {
	t0 := time.Date(2025, 1, 2, 9, 0, 0, 0, time.UTC)
	job := func(enq, start, end int) JobSample {
		sec := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
		return JobSample{Kind: "convert", Backend: "soffice", Enqueued: sec(enq), Started: sec(start),
			Finished: sec(end), Service: time.Duration(end-start) * time.Second, OK: true}
	}
	groups, err := History(context.Background(), []JobSample{job(0, 0, 2), job(1, 1, 4), job(4, 4, 5)}, HistoryOptions{MaxWq: 0.1})
	if err != nil {
		panic(err)
	}
	g := groups[0]
	fmt.Printf("λ %.2f/s (95%% CI %.3f-%.2f), μ %.2f/s per worker, c %d\n",
		*g.Lambda, g.LambdaCI.Lo, g.LambdaCI.Hi, *g.Mu, g.MaxConcurrency)
	fmt.Printf("Wq observed %.2fs, M/M/c %.3fs; %d workers for Wq ≤ 0.1s\n",
		g.WqObserved, *g.WqPredicted, *g.WorkersForMaxWq)
	// Output:
	// λ 0.50/s (95% CI 0.061-1.39), μ 0.50/s per worker, c 2
	// Wq observed 0.00s, M/M/c 0.667s; 3 workers for Wq ≤ 0.1s
}
