package analyze

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// scaled is n, or an eighth of it with -short.
func scaled(n int) int {
	if testing.Short() {
		return n / 8
	}
	return n
}

// maxWidth bounds the half-width of an interval relative to the value,
// so that "within two half-widths" says something: 10 %, or 40 % for the
// shorter runs of -short.
func maxWidth() float64 {
	if testing.Short() {
		return 0.4
	}
	return 0.1
}

func mustSimulate(t *testing.T, o SimOptions) SimResult {
	t.Helper()
	r, err := Simulate(context.Background(), o)
	if err != nil {
		t.Fatalf("Simulate(%+v): %v", o, err)
	}
	return r
}

func expArrivals(rate float64) Arrivals { return Arrivals{Kind: KindExp, Rate: rate} }
func expService(rate float64) Service   { return Service{Kind: KindExp, Rate: rate} }

// halfWidth is the half-width of m's confidence interval.
func halfWidth(m Metric) float64 { return (m.CIHigh - m.CILow) / 2 }

// TestSimulateMMc: simulated W is within 2 % of MMc's W at ρ = 0.5, 0.8
// and 0.95, and every measure with an analytic value is within two
// half-widths of its 95 % interval (about 4 standard errors).
//
// The sizes come from the spread of W over 12 seeds per case: its
// standard deviation was 0.33 % at ρ = 0.5 (c = 2, 3·10^5 customers),
// 0.73 % at ρ = 0.8 (c = 10, 4·10^5) and 0.78 % at ρ = 0.95 (c = 100,
// 8·10^5). The customers below make that 0.33 %, 0.6 % and 0.64 %: 2 % is
// 6, 3.4 and 3.1 standard deviations.
// Many servers keep ρ = 0.95 feasible: one server would need ~10^8
// customers, as its relaxation time grows like 1/(c(1-√ρ)²). With -short
// the runs are 8 times shorter and only the intervals are checked.
func TestSimulateMMc(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		rho       float64
		c, n      int
		seed      uint64
		wantBound float64 // W within this relative error of MMc's
	}{
		{"rho 0.5, c 2", 0.5, 2, 300_000, 1, 0.02},
		{"rho 0.8, c 10", 0.8, 10, 600_000, 2, 0.02},
		{"rho 0.95, c 100", 0.95, 100, 1_200_000, 3, 0.02},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lambda := tt.rho * float64(tt.c)
			n := scaled(tt.n)
			r := mustSimulate(t, SimOptions{Arrivals: expArrivals(lambda), Service: expService(1),
				Servers: tt.c, Customers: n, Warmup: n / 20, Replications: 1, Seed: tt.seed})
			want, _ := MMc(t.Context(), lambda, 1, tt.c)
			if r.Analytic != "M/M/c" || r.W.Analytic == nil || *r.W.Analytic != want.W {
				t.Fatalf("analytic %q, W %v; want M/M/c with W %v", r.Analytic, r.W.Analytic, want.W)
			}
			rel := math.Abs(r.W.Mean-want.W) / want.W
			t.Logf("W = %.5f [%.5f, %.5f], MMc %.5f (off by %.2f%%); Wq = %.5f, MMc %.5f",
				r.W.Mean, r.W.CILow, r.W.CIHigh, want.W, 100*rel, r.Wq.Mean, want.Wq)
			if !testing.Short() && rel > tt.wantBound {
				t.Errorf("W = %.5f, want %.5f ± %.0f%% (off by %.2f%%)", r.W.Mean, want.W, 100*tt.wantBound, 100*rel)
			}
			checkAgainstAnalytic(t, r)
			if r.CIMethod != CIBatchMeans || r.CISamples != maxBatches {
				t.Errorf("CI method %s over %d, want %s over %d", r.CIMethod, r.CISamples, CIBatchMeans, maxBatches)
			}
		})
	}
}

// checkAgainstAnalytic checks that each measure with an analytic value
// lies within two half-widths of its interval, which is no wider than
// maxWidth of the value.
func checkAgainstAnalytic(t *testing.T, r SimResult) {
	t.Helper()
	metrics := map[string]Metric{"W": r.W, "Wq": r.Wq, "L": r.L, "Lq": r.Lq, "rho": r.Rho,
		"P(wait)": r.PWait, "throughput": r.Throughput}
	if r.Blocking != nil {
		metrics["P(block)"] = *r.Blocking
	}
	for name, m := range metrics {
		if m.Analytic == nil {
			t.Errorf("%s: no analytic value", name)
			continue
		}
		want, h := *m.Analytic, halfWidth(m)
		if !(m.CILow <= m.Mean && m.Mean <= m.CIHigh) || h > maxWidth()*want {
			t.Errorf("%s: interval [%g, %g] around %g, want it around the mean and within %.0f%% of %g",
				name, m.CILow, m.CIHigh, m.Mean, 100*maxWidth(), want)
		}
		if math.Abs(m.Mean-want) > 2*h {
			t.Errorf("%s = %g ± %g, want %g within 2 half-widths", name, m.Mean, h, want)
		}
	}
}

// TestSimulateMMcK: M/M/c/K blocking, W and the rest agree with MMcK
// within two half-widths of their intervals over 10 replications
// (Student t with 9 degrees of freedom: 2 half-widths are about 4.5
// standard errors), below, at and above saturation.
func TestSimulateMMcK(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		lambda, mu   float64
		c, k         int
		replications int
	}{
		{"M/M/1/5 at rho 0.8", 0.8, 1, 1, 5, 10},
		{"M/M/2/6 at rho 1.2", 2.4, 1, 2, 6, 10},
		{"M/M/3/3, Erlang B", 2, 1, 3, 3, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n := scaled(15_000)
			r := mustSimulate(t, SimOptions{Arrivals: expArrivals(tt.lambda), Service: expService(tt.mu),
				Servers: tt.c, Capacity: tt.k, Customers: n, Warmup: n / 20, Replications: tt.replications, Seed: 7})
			want, _ := MMcK(t.Context(), tt.lambda, tt.mu, tt.c, tt.k)
			if r.Analytic != "M/M/c/K" || r.Blocking == nil || *r.Blocking.Analytic != want.PK {
				t.Fatalf("analytic %q, blocking %+v; want M/M/c/K with P(block) %v", r.Analytic, r.Blocking, want.PK)
			}
			t.Logf("P(block) = %.5f ± %.5f, MMcK %.5f; W = %.5f ± %.5f, MMcK %.5f",
				r.Blocking.Mean, halfWidth(*r.Blocking), want.PK, r.W.Mean, halfWidth(r.W), want.W)
			if r.CIMethod != CIReplications || r.CISamples != tt.replications {
				t.Errorf("CI method %s over %d, want %s over %d", r.CIMethod, r.CISamples, CIReplications, tt.replications)
			}
			if tt.k == tt.c {
				if r.Wq.Mean != 0 || r.PWait.Mean != 0 {
					t.Errorf("no room to wait, but Wq = %g and P(wait) = %g", r.Wq.Mean, r.PWait.Mean)
				}
				return // the analytic Wq and P(wait) are 0: no interval to fit
			}
			checkAgainstAnalytic(t, r)
		})
	}
}

// TestSimulateMG1: general service against Pollaczek-Khinchine, Wq =
// λ·E[S²] / (2(1-ρ)), for constant and lognormal service at two SCVs;
// the analytic column is M/G/1's (MG1Dist), every measure within two
// half-widths of it.
func TestSimulateMG1(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		service Service
		lambda  float64
	}{
		{"M/D/1 at rho 0.7", Service{Kind: KindConst, Mean: 1}, 0.7},
		{"M/G/1 lognormal cv 0.5 at rho 0.8", Service{Kind: KindLognormal, Mean: 1, CV: 0.5}, 0.8},
		{"M/G/1 lognormal cv 1.5 at rho 0.6", Service{Kind: KindLognormal, Mean: 2, CV: 1.5}, 0.3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n := scaled(150_000)
			r := mustSimulate(t, SimOptions{Arrivals: expArrivals(tt.lambda), Service: tt.service,
				Servers: 1, Customers: n, Warmup: n / 20, Replications: 1, Seed: 11})
			m := tt.service.Mean
			rho := tt.lambda * m
			wantWq := tt.lambda * m * m * (1 + tt.service.CV*tt.service.CV) / (2 * (1 - rho))
			if h := halfWidth(r.Wq); math.Abs(r.Wq.Mean-wantWq) > 2*h || h > maxWidth()*wantWq {
				t.Errorf("Wq = %.4f ± %.4f, want %.4f (Pollaczek-Khinchine) within 2 half-widths", r.Wq.Mean, h, wantWq)
			}
			if h := halfWidth(r.Rho); math.Abs(r.Rho.Mean-rho) > 2*h {
				t.Errorf("utilisation = %.4f ± %.4f, want %.4f", r.Rho.Mean, h, rho)
			}
			if r.Analytic != "M/G/1" {
				t.Fatalf("analytic %q, want M/G/1 for %s", r.Analytic, r.Model)
			}
			if got := *r.Wq.Analytic; math.Abs(got-wantWq) > 1e-12*wantWq {
				t.Errorf("analytic Wq = %.15g, want %.15g", got, wantWq)
			}
			checkAgainstAnalytic(t, r)
		})
	}
}

// TestLittle: the time average of the number in system and λ_eff·W from
// the customers agree. Without warmup the system is empty at both ends of
// the window, so ∫N dt equals the sum of the times in system exactly;
// with warmup the customers present at the start add O(L/n).
func TestLittle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		o       SimOptions
		maxDiff float64
	}{
		{"M/M/1 rho 0.9, no warmup", SimOptions{Arrivals: expArrivals(0.9), Service: expService(1),
			Servers: 1, Customers: 50_000, Replications: 3, Seed: 1}, 1e-9},
		{"M/M/1 rho 0.9, warmup", SimOptions{Arrivals: expArrivals(0.9), Service: expService(1),
			Servers: 1, Customers: 50_000, Warmup: 5_000, Replications: 3, Seed: 1}, 0.01},
		{"M/M/3/5 above saturation", SimOptions{Arrivals: expArrivals(4), Service: expService(1),
			Servers: 3, Capacity: 5, Customers: 50_000, Warmup: 5_000, Replications: 3, Seed: 2}, 0.01},
		{"uniform arrivals, lognormal service, one replication", SimOptions{
			Arrivals: Arrivals{Kind: KindUniform, Count: 20_000, Span: 10_000},
			Service:  Service{Kind: KindLognormal, Mean: 1.5, CV: 2}, Servers: 2, Warmup: 1_000,
			Replications: 1, Seed: 3}, 0.01},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := mustSimulate(t, tt.o)
			lc := r.Little
			if lc.RelDiff > tt.maxDiff || lc.L <= 0 {
				t.Errorf("L = %g, λ·W = %g: relative difference %.3g, want at most %g", lc.L, lc.LambdaW, lc.RelDiff, tt.maxDiff)
			}
			// The reported measures tell the same story: L = X·W.
			if d := math.Abs(r.L.Mean-r.Throughput.Mean*r.W.Mean) / r.L.Mean; d > 0.01 {
				t.Errorf("L = %g, throughput·W = %g·%g: relative difference %.3g, want < 1%%",
					r.L.Mean, r.Throughput.Mean, r.W.Mean, d)
			}
		})
	}
}

// TestPaperExperiment reproduces a conversion service's reported run: 200 jobs at
// uniform times within 15 s, 3 servers, 6.3 s each. The line never
// empties (job 3 arrives long before the first server frees at ~6.4 s),
// so server j serves jobs j, j+3, ... back to back from the arrival a_j of
// job j < 3, and job i leaves at a_(i mod 3) + (⌊i/3⌋+1)·6.3. For the last
// 10 (i = 190..199) that is 403.2 to 422.1 s plus a_(i mod 3), and their
// response times lie in [403.2 - 15, 422.1 + 15·3/201 + slack], about
// 388-408 s. The reported 405-425 s are these completion times counted from
// the start of the batch.
func TestPaperExperiment(t *testing.T) {
	o := SimOptions{Arrivals: Arrivals{Kind: KindUniform, Count: 200, Span: 15},
		Service: Service{Kind: KindConst, Mean: 6.3}, Servers: 3, Replications: 10, Seed: 1}
	r := mustSimulate(t, o)
	if len(r.LastResponses) != 10 || len(r.LastArrivals) != 10 {
		t.Fatalf("%d last responses, %d arrivals; want 10 each", len(r.LastResponses), len(r.LastArrivals))
	}
	t.Logf("last 10 response times: %.1f", r.LastResponses)
	for k, resp := range r.LastResponses {
		i := 190 + k
		slots := float64(i/3 + 1)
		if resp < slots*6.3-15 || resp > 422.1 {
			t.Errorf("job %d: response %.2f s, want within [%.1f, 422.1]", i, resp, slots*6.3-15)
		}
		// The offset a_(i mod 3) is the arrival of one of the first three
		// jobs: the 3rd of 200 uniforms on 15 s is below 1 s unless fewer
		// than 3 land in [0, 1), which has probability about 1e-4.
		if off := r.LastArrivals[k] + resp - slots*6.3; off < 0 || off >= 1 {
			t.Errorf("job %d: leaves at %.3f s, want %.1f s + the arrival of job %d (< 1 s)",
				i, r.LastArrivals[k]+resp, slots*6.3, i%3)
		}
		if k > 0 && r.LastArrivals[k] < r.LastArrivals[k-1] {
			t.Errorf("last arrivals %v not in order", r.LastArrivals)
		}
	}
	// Mean response: 6.3·Σ(⌊i/3⌋+1)/200 = 6.3·33.835 = 213.16 s, less the
	// mean arrival (7.5 s, standard error 0.1 s over 10 replications),
	// plus the mean offset (about 0.15 s).
	if want := 213.16 - 7.5 + 0.15; math.Abs(r.W.Mean-want) > 0.5 {
		t.Errorf("W = %.3f s, want %.2f ± 0.5 s", r.W.Mean, want)
	}
	if r.Customers != 200 || r.Model != "G/D/3" || r.Analytic != "" {
		t.Errorf("customers %d, model %q, analytic %q; want 200, G/D/3, none", r.Customers, r.Model, r.Analytic)
	}
}

func TestParseSpecs(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace.txt")
	if err := os.WriteFile(trace, []byte("# seconds\n0\n0.5 # a comment\n\n0.5\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	arrivals := []struct {
		spec string
		want Arrivals
	}{
		{"exp:2.5", Arrivals{Kind: KindExp, Rate: 2.5}},
		{" uniform:200/15 ", Arrivals{Kind: KindUniform, Count: 200, Span: 15}},
		{"trace:" + trace, Arrivals{Kind: KindTrace, Times: []float64{0, 0.5, 0.5, 2}, File: trace}},
	}
	for _, tt := range arrivals {
		got, err := ParseArrivals(tt.spec)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseArrivals(%q) = %+v, %v; want %+v", tt.spec, got, err, tt.want)
		}
		if s := got.String(); s != strings.TrimSpace(tt.spec) {
			t.Errorf("ParseArrivals(%q).String() = %q", tt.spec, s)
		}
	}
	services := []struct {
		spec string
		want Service
	}{
		{"exp:1", Service{Kind: KindExp, Rate: 1}},
		{"const:6.3", Service{Kind: KindConst, Mean: 6.3}},
		{"lognormal:2,0.5", Service{Kind: KindLognormal, Mean: 2, CV: 0.5}},
		{"lognormal:2,0", Service{Kind: KindLognormal, Mean: 2}},
	}
	for _, tt := range services {
		got, err := ParseService(tt.spec)
		if err != nil || got != tt.want {
			t.Errorf("ParseService(%q) = %+v, %v; want %+v", tt.spec, got, err, tt.want)
		}
		if s := got.String(); s != tt.spec {
			t.Errorf("ParseService(%q).String() = %q", tt.spec, s)
		}
	}
}

func TestParseErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, field, want string
		err               error
	}{
		{"bogus arrivals", "arrivals", "want exp:RATE, uniform:N/T or trace:FILE", arrErr("bogus")},
		{"negative rate", "arrivals", "rate -1 is not a positive number", arrErr("exp:-1")},
		{"NaN rate", "arrivals", "rate NaN is not a positive number", arrErr("exp:NaN")},
		{"infinite rate", "arrivals", "rate +Inf is outside the limits 1e-100 to 1e+100", arrErr("exp:Inf")},
		{"rate not a number", "arrivals", `rate "fast" is not a number`, arrErr("exp:fast")},
		{"uniform without span", "arrivals", "want uniform:N/T", arrErr("uniform:200")},
		{"uniform zero count", "arrivals", "count 0 is not between 1", arrErr("uniform:0/15")},
		{"uniform zero span", "arrivals", "span 0 is not a positive number", arrErr("uniform:10/0")},
		{"uniform count not integer", "arrivals", `count "2.5" is not an integer`, arrErr("uniform:2.5/1")},
		{"trace missing file", "arrivals", "no such file", arrErr("trace:" + filepath.Join(dir, "none"))},
		{"trace without file", "arrivals", "want trace:FILE", arrErr("trace:")},
		{"trace decreasing", "arrivals", "line 3: time 1 is before the previous one, 2",
			arrErr("trace:" + write("dec", "0\n2\n1\n"))},
		{"trace NaN", "arrivals", `line 1: "NaN" is not a time`, arrErr("trace:" + write("nan", "NaN\n"))},
		{"trace negative", "arrivals", "line 2: time -1 is negative", arrErr("trace:" + write("neg", "# x\n-1\n"))},
		{"trace empty", "arrivals", "no arrival times", arrErr("trace:" + write("empty", "# nothing\n"))},
		{"bogus service", "service", "want exp:RATE, const:SECONDS or lognormal:MEAN,CV", svcErr("gamma:1")},
		{"negative service rate", "service", "rate -1 is not a positive number", svcErr("exp:-1")},
		{"zero const", "service", "time 0 is not a positive number", svcErr("const:0")},
		{"lognormal without cv", "service", "want lognormal:MEAN,CV", svcErr("lognormal:5")},
		{"lognormal negative cv", "service", "cv -1 is not between 0 and the limit 1000", svcErr("lognormal:5,-1")},
		{"lognormal NaN mean", "service", "mean NaN is not a positive number", svcErr("lognormal:NaN,1")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkOptionErr(t, tt.err, tt.field, tt.want)
		})
	}
}

func arrErr(spec string) error { _, err := ParseArrivals(spec); return err }
func svcErr(spec string) error { _, err := ParseService(spec); return err }

func checkOptionErr(t *testing.T, err error, field, want string) {
	t.Helper()
	var oe *OptionError
	switch {
	case err == nil:
		t.Fatalf("no error, want one for %s saying %q", field, want)
	case !errors.Is(err, ErrInput) || !errors.As(err, &oe):
		t.Errorf("error %q (%T) is not an *OptionError wrapping ErrInput", err, err)
	case oe.Field != field || !strings.Contains(oe.Reason, want):
		t.Errorf("error for %q: %q, want one for %q containing %q", oe.Field, oe.Reason, field, want)
	}
}

// TestSimOptionErrors: every invalid option is reported, naming its field.
func TestSimOptionErrors(t *testing.T) {
	valid := SimOptions{Arrivals: expArrivals(1), Service: expService(2), Servers: 1, Customers: 100, Replications: 1}
	uniform := Arrivals{Kind: KindUniform, Count: 200, Span: 15}
	tests := []struct {
		name, field, want string
		edit              func(o *SimOptions)
	}{
		{"no servers", "servers", "0 is less than 1", func(o *SimOptions) { o.Servers = 0 }},
		{"negative capacity", "capacity", "-1 is negative", func(o *SimOptions) { o.Capacity = -1 }},
		{"capacity below servers", "capacity", "2 is less than the 3 servers", func(o *SimOptions) { o.Servers, o.Capacity = 3, 2 }},
		{"no customers", "customers", "0 is less than 1", func(o *SimOptions) { o.Customers = 0 }},
		{"customers against uniform", "customers", "fix the number at 200", func(o *SimOptions) { o.Arrivals, o.Customers = uniform, 50 }},
		{"negative warmup", "warmup", "-1 is negative", func(o *SimOptions) { o.Warmup = -1 }},
		{"warmup of all", "warmup", "100 leaves none of the 100", func(o *SimOptions) { o.Warmup = 100 }},
		{"no replications", "replications", "0 is less than 1", func(o *SimOptions) { o.Replications = 0 }},
		{"NaN arrival rate", "arrivals", "rate NaN", func(o *SimOptions) { o.Arrivals.Rate = math.NaN() }},
		{"zero service rate", "service", "rate 0", func(o *SimOptions) { o.Service.Rate = 0 }},
		{"no arrivals kind", "arrivals", `unknown kind ""`, func(o *SimOptions) { o.Arrivals = Arrivals{} }},
		{"unsorted trace", "arrivals", "trace time 2", func(o *SimOptions) {
			o.Arrivals, o.Customers = Arrivals{Kind: KindTrace, Times: []float64{2, 1}}, 0
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := valid
			tt.edit(&o)
			_, err := Simulate(context.Background(), o)
			checkOptionErr(t, err, tt.field, tt.want)
		})
	}
	// Uniform and trace arrivals take Customers 0 or their own count.
	for _, n := range []int{0, 200} {
		o := valid
		o.Arrivals, o.Customers = uniform, n
		if err := o.Check(); err != nil {
			t.Errorf("uniform:200/15 with Customers %d: %v", n, err)
		}
	}
	// Every bad field at once.
	err := SimOptions{}.Check()
	for _, field := range []string{"arrivals", "service", "servers", "customers", "replications"} {
		if !strings.Contains(err.Error(), field+": ") {
			t.Errorf("SimOptions{}.Check() = %q, want an error for %s", err, field)
		}
	}
}

// TestSimulateDeterministic: equal seeds give equal results, different
// seeds different ones.
func TestSimulateDeterministic(t *testing.T) {
	o := SimOptions{Arrivals: expArrivals(0.8), Service: Service{Kind: KindLognormal, Mean: 1, CV: 1.2},
		Servers: 2, Capacity: 6, Customers: 5_000, Warmup: 500, Replications: 3, Seed: 42}
	a, b := mustSimulate(t, o), mustSimulate(t, o)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("two runs with seed 42 differ:\n%+v\n%+v", a, b)
	}
	o.Seed = 43
	if c := mustSimulate(t, o); c.W.Mean == a.W.Mean || reflect.DeepEqual(c.LastResponses, a.LastResponses) {
		t.Errorf("seeds 42 and 43 gave W %v and %v, last responses %v and %v", a.W.Mean, c.W.Mean, a.LastResponses, c.LastResponses)
	}
}

// TestSimulateCancel: a cancelled context stops a run of the most
// customers allowed, a billion, with ctx.Err().
func TestSimulateCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := SimOptions{Arrivals: expArrivals(1), Service: expService(2), Servers: 1, Customers: MaxCustomers,
		Replications: MaxSimulated / MaxCustomers}
	if _, err := Simulate(ctx, o); err != ctx.Err() {
		t.Errorf("Simulate with a cancelled context: %v, want %v", err, ctx.Err())
	}
}

// TestSimulateProgress: Progress is told of each replication as it
// starts; a context cancelled there stops that replication's run.
func TestSimulateProgress(t *testing.T) {
	o := SimOptions{Arrivals: expArrivals(0.5), Service: expService(1), Servers: 1, Customers: 1_000, Replications: 3, Seed: 1}
	var got [][2]int
	o.Progress = func(rep, of int) { got = append(got, [2]int{rep, of}) }
	mustSimulate(t, o)
	if want := [][2]int{{1, 3}, {2, 3}, {3, 3}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Progress called with %v, want %v", got, want)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got = nil
	o.Customers, o.Replications = MaxCustomers, MaxSimulated/MaxCustomers
	o.Progress = func(rep, of int) {
		got = append(got, [2]int{rep, of})
		cancel() // as SIGINT does once calq says the run is under way
	}
	if _, err := Simulate(ctx, o); err != context.Canceled {
		t.Errorf("Simulate cancelled in its first replication: %v, want %v", err, context.Canceled)
	}
	if want := [][2]int{{1, o.Replications}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Progress called with %v, want %v", got, want)
	}
}

// TestSimulateUnstable: M/M/c at ρ ≥ 1 still runs its finite customers,
// with no analytic values and Unstable set.
func TestSimulateUnstable(t *testing.T) {
	r := mustSimulate(t, SimOptions{Arrivals: expArrivals(1.2), Service: expService(1), Servers: 1,
		Customers: 2_000, Replications: 2, Seed: 1})
	if !r.Unstable || r.Analytic != "" || r.W.Analytic != nil || r.Blocking != nil {
		t.Errorf("unstable %v, analytic %q, W's %v, blocking %v; want true, none, nil, nil",
			r.Unstable, r.Analytic, r.W.Analytic, r.Blocking)
	}
	if r.OfferedLoad != 1.2 || r.Rho.Mean < 0.95 {
		t.Errorf("offered load %v, utilisation %v; want 1.2 and nearly 1", r.OfferedLoad, r.Rho.Mean)
	}
}

// TestLognormalSampler: σ² = ln(1+CV²), m = ln(mean) - σ²/2 give draws
// with the asked mean and CV (standard errors: CV/√n for the mean, a few
// times more for the CV, whose estimate has heavy tails).
func TestLognormalSampler(t *testing.T) {
	const n = 200_000
	for _, cv := range []float64{0.25, 1} {
		s := Service{Kind: KindLognormal, Mean: 3, CV: cv}.sampler()
		rnd := newReplication(SimOptions{Arrivals: expArrivals(1), Service: expService(1), Servers: 1,
			Customers: 1}, 0, 1).rnd
		var sum, sq float64
		for range n {
			x := s.draw(rnd)
			sum, sq = sum+x, sq+x*x
		}
		mean := sum / n
		gotCV := math.Sqrt(sq/n-mean*mean) / mean
		if math.Abs(mean-3) > 4*3*cv/math.Sqrt(n) || math.Abs(gotCV-cv) > 0.05*cv {
			t.Errorf("lognormal:3,%v: mean %.4f, cv %.4f; want 3 and %v", cv, mean, gotCV, cv)
		}
	}
}

// TestT975: the t quantiles, table and expansion, against the density
// integrated by Simpson's rule: P(T ≤ q) = 0.975 to 1e-6.
func TestT975(t *testing.T) {
	for _, df := range []int{1, 2, 3, 5, 9, 19, 29, 30, 31, 32, 40, 60, 100, 1000, 100_000} {
		q := tQuantile975(df)
		if p := tCDF(q, float64(df)); math.Abs(p-0.975) > 1e-6 {
			t.Errorf("df %d: quantile %.9f has P(T ≤ q) = %.9f, want 0.975", df, q, p)
		}
	}
	if !math.IsNaN(tQuantile975(0)) {
		t.Errorf("tQuantile975(0) = %v, want NaN", tQuantile975(0))
	}
}

func tCDF(q, nu float64) float64 {
	lg1, _ := math.Lgamma((nu + 1) / 2)
	lg2, _ := math.Lgamma(nu / 2)
	k := math.Exp(lg1-lg2) / math.Sqrt(nu*math.Pi)
	f := func(x float64) float64 { return k * math.Pow(1+x*x/nu, -(nu+1)/2) }
	const steps = 20_000 // even
	h, sum := q/steps, f(0)+f(q)
	for i := 1; i < steps; i++ {
		sum += float64(2+2*(i%2)) * f(float64(i)*h)
	}
	return 0.5 + sum*h/3
}

// FuzzParseArrivals: whatever the spec, parsing does not panic, and a spec
// that parses passes Check and prints as a spec that parses back to it.
func FuzzParseArrivals(f *testing.F) {
	for _, s := range []string{"exp:1", "uniform:200/15", "uniform:1/1e-300", "exp:-0", "bogus", "uniform:/", "exp:1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		if strings.HasPrefix(strings.TrimSpace(spec), "trace:") {
			return // would read files
		}
		a, err := ParseArrivals(spec)
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("ParseArrivals(%q): %v does not wrap ErrInput", spec, err)
			}
			return
		}
		if err := a.Check(); err != nil {
			t.Fatalf("ParseArrivals(%q) = %+v, which fails Check: %v", spec, a, err)
		}
		b, err := ParseArrivals(a.String())
		if err != nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("ParseArrivals(%q) = %+v prints as %q, which parses as %+v, %v", spec, a, a.String(), b, err)
		}
	})
}

// FuzzParseService is FuzzParseArrivals for service specs.
func FuzzParseService(f *testing.F) {
	for _, s := range []string{"exp:1", "const:6.3", "lognormal:2,0.5", "lognormal:,", "const:0x1p-3", "gamma:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		s, err := ParseService(spec)
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("ParseService(%q): %v does not wrap ErrInput", spec, err)
			}
			return
		}
		if err := s.Check(); err != nil {
			t.Fatalf("ParseService(%q) = %+v, which fails Check: %v", spec, s, err)
		}
		if b, err := ParseService(s.String()); err != nil || b != s {
			t.Fatalf("ParseService(%q) = %+v prints as %q, which parses as %+v, %v", spec, s, s.String(), b, err)
		}
	})
}

// A conversion service's batch: 200 jobs within 15 s on 3 servers,
// 6.3 s each; the last jobs wait for nearly all the others.
func ExampleSimulate() {
	arrivals, _ := ParseArrivals("uniform:200/15")
	service, _ := ParseService("const:6.3")
	r, err := Simulate(context.Background(), SimOptions{Arrivals: arrivals, Service: service,
		Servers: 3, Replications: 10, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s, mean response %.0f s, the last job's %.0f s\n", r.Model, r.W.Mean, r.LastResponses[9])
	// Output: G/D/3, mean response 206 s, the last job's 407 s
}
