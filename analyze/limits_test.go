package analyze

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// extremes are the float64 inputs every calculator is fuzzed with.
var extremes = []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1), 1e308, -1e308, 1e-308, 5e-324,
	math.MaxFloat64, MinRate, MaxRate, MinRate / 2, MaxRate * 2, 1, 0.5, 1e6}

// intExtremes are the int inputs: around 0, past every limit, the
// limits themselves.
var intExtremes = []int{0, -1, 1, 2, 1000, math.MaxInt64, math.MinInt64, math.MaxInt32 + 1, MaxServers + 1,
	MaxCapacity + 1, MaxPoissonRow + 1}

// checkResult fails unless err is ErrInput, or v encodes as JSON (which
// refuses NaN and ±Inf anywhere in it).
func checkResult(t *testing.T, call string, v any, err error) {
	t.Helper()
	if err != nil {
		if !errors.Is(err, ErrInput) {
			t.Errorf("%s: %v, want a result or ErrInput", call, err)
		}
		return
	}
	if _, err := json.Marshal(v); err != nil {
		t.Errorf("%s: the result does not encode: %v\n%+v", call, err, v)
	}
}

// FuzzMMc: MMc, the Erlang functions and MMc's tail and percentiles give
// finite numbers or ErrInput for any λ, μ and c.
func FuzzMMc(f *testing.F) {
	for _, x := range extremes {
		for _, c := range []int{1, 3, math.MaxInt64, MaxServers + 1, -1} {
			f.Add(x, 1.0, c)
			f.Add(1.0, x, c)
		}
	}
	f.Add(1e100, 1e-100, 1)
	f.Add(1e-100, 1e100, 1000)
	f.Add(1e15, 1.0, 2)
	f.Add(9.99e6, 1.0, 10_000_000)
	f.Fuzz(func(t *testing.T, lambda, mu float64, c int) {
		ctx := t.Context()
		r, err := MMc(ctx, lambda, mu, c)
		checkResult(t, "MMc", r, err)
		if err == nil && r.Stable {
			for _, p := range []float64{0.5, 0.999} {
				if w := r.WaitPercentile(p); math.IsNaN(w) || math.IsInf(w, 0) {
					t.Errorf("MMc(%g, %g, %d).WaitPercentile(%g) = %v", lambda, mu, c, p, w)
				}
			}
		}
		b, err := ErlangB(ctx, c, lambda)
		checkResult(t, "ErlangB", b, err)
		lb, err := LogErlangB(ctx, c, lambda)
		checkResult(t, "LogErlangB", lb, err)
		ec, err := ErlangC(ctx, c, lambda)
		checkResult(t, "ErlangC", ec, err)
	})
}

// FuzzMMcK: MMcK and PredictResize likewise, for any K, NB and NE.
func FuzzMMcK(f *testing.F) {
	for _, x := range extremes {
		f.Add(x, 1.0, 1, 10, 4, -1)
		f.Add(1.0, x, 2, 10, 4, 3)
	}
	for _, k := range intExtremes {
		f.Add(1.0, 1.0, 1, k, 4, -1)
		f.Add(2.0, 1.0, 1, 100, k, -1)
		f.Add(2.0, 1.0, 1, 100, 4, k)
		f.Add(2.0, 1.0, k, 100, 4, -1)
	}
	f.Add(1e100, 1e-100, 1, 1000, 64, 10) // ρ = 10^200: nearly all are blocked
	f.Add(1e-100, 1e100, 3, 1000, 64, 10)
	f.Fuzz(func(t *testing.T, lambda, mu float64, c, k, nb, ne int) {
		r, err := MMcK(t.Context(), lambda, mu, c, k)
		checkResult(t, "MMcK", r, err)
		if err == nil && !(r.LambdaEff > 0) {
			t.Errorf("MMcK(%g, %g, %d, %d): λeff = %v, want > 0", lambda, mu, c, k, r.LambdaEff)
		}
		p, err := PredictResize(t.Context(), lambda, mu, k, nb, ne)
		checkResult(t, "PredictResize", p, err)
	})
}

// FuzzSize: Size finds c within MaxServers with finite rows, or says
// ErrInput (ErrNoServers past the limit).
func FuzzSize(f *testing.F) {
	for _, x := range extremes {
		f.Add(x, 1.0, 0.1, 0.0, 0.0, 0.0)
		f.Add(1.0, x, 0.0, 1.0, 0.0, 0.0)
		f.Add(2.0, 1.0, 0.0, x, 0.0, 0.0)
		f.Add(2.0, 1.0, 0.0, 0.0, 0.8, x)
	}
	f.Add(1e100, 1e-100, 0.1, 0.0, 0.0, 0.0)
	f.Add(1.0, 1.0, 0.0, 1e-300, 0.0, 0.0) // Wq ≤ 10^-300 at c = 166
	f.Fuzz(func(t *testing.T, lambda, mu, pWait, maxWq, level, within float64) {
		target := Target{MaxPWait: pWait, MaxWq: maxWq, ServiceLevel: level, Within: within}
		c, rows, err := Size(t.Context(), lambda, mu, target)
		checkResult(t, "Size", rows, err)
		if err == nil && (c < 1 || c > MaxServers) {
			t.Errorf("Size(%g, %g, %+v) = %d servers, want 1 to %d", lambda, mu, target, c, MaxServers)
		}
	})
}

// FuzzPoisson: Poisson gives finite rows or ErrInput for any λ, t and rows.
func FuzzPoisson(f *testing.F) {
	for _, x := range extremes {
		f.Add(x, 1.0, -1, -1)
		f.Add(1.0, x, -1, -1)
	}
	for _, n := range intExtremes {
		f.Add(2.0, 1.0, n, n)
		f.Add(2.0, 1.0, -1, n)
	}
	f.Add(1e-100, 1e-100, -1, -1) // a mean of 10^-200
	f.Fuzz(func(t *testing.T, lambda, tm float64, lo, hi int) {
		rows, err := Poisson(t.Context(), lambda, tm, lo, hi)
		checkResult(t, "Poisson", rows, err)
	})
}

// TestSimulateExtremes: Simulate refuses every option past its limits
// before it runs, and gives finite measures at the edges it takes.
func TestSimulateExtremes(t *testing.T) {
	base := SimOptions{Arrivals: expArrivals(1), Service: expService(2), Servers: 1, Customers: 200, Replications: 2}
	bad := map[string]func(o *SimOptions){
		"servers MaxInt64":      func(o *SimOptions) { o.Servers = math.MaxInt64 },
		"capacity MaxInt32+1":   func(o *SimOptions) { o.Capacity = math.MaxInt32 + 1 },
		"customers MaxInt64":    func(o *SimOptions) { o.Customers = math.MaxInt64 },
		"replications 1e9":      func(o *SimOptions) { o.Replications = 1_000_000_000 },
		"customers in all 2e9":  func(o *SimOptions) { o.Customers, o.Replications = MaxCustomers, 200 },
		"uniform count MaxInt":  func(o *SimOptions) { o.Arrivals = Arrivals{Kind: KindUniform, Count: math.MaxInt, Span: 1} },
		"uniform span 1e308":    func(o *SimOptions) { o.Arrivals = Arrivals{Kind: KindUniform, Count: 10, Span: 1e308} },
		"trace time 1e308":      func(o *SimOptions) { o.Arrivals = Arrivals{Kind: KindTrace, Times: []float64{0, 1e308}} },
		"arrival rate +Inf":     func(o *SimOptions) { o.Arrivals = expArrivals(math.Inf(1)) },
		"arrival rate 5e-324":   func(o *SimOptions) { o.Arrivals = expArrivals(5e-324) },
		"service rate NaN":      func(o *SimOptions) { o.Service = expService(math.NaN()) },
		"const 1e308":           func(o *SimOptions) { o.Service = Service{Kind: KindConst, Mean: 1e308} },
		"lognormal cv 1e308":    func(o *SimOptions) { o.Service = Service{Kind: KindLognormal, Mean: 1, CV: 1e308} },
		"lognormal mean 1e-308": func(o *SimOptions) { o.Service = Service{Kind: KindLognormal, Mean: 1e-308, CV: 1} },
	}
	for name, set := range bad {
		t.Run(name, func(t *testing.T) {
			o := base
			set(&o)
			// A cancelled context: past the check, Simulate would return
			// context.Canceled, not ErrInput.
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			if _, err := Simulate(ctx, o); !errors.Is(err, ErrInput) {
				t.Errorf("Simulate: %v, want ErrInput", err)
			}
		})
	}
	edges := map[string]func(o *SimOptions){
		"rates 1e100 and 1e-100": func(o *SimOptions) { o.Arrivals, o.Service = expArrivals(MaxRate), expService(MinRate) },
		"rates 1e-100 and 1e100": func(o *SimOptions) { o.Arrivals, o.Service = expArrivals(MinRate), expService(MaxRate) },
		"lognormal cv 1000":      func(o *SimOptions) { o.Service = Service{Kind: KindLognormal, Mean: MaxRate, CV: MaxCV} },
		"trace at 1e100": func(o *SimOptions) {
			o.Arrivals, o.Customers = Arrivals{Kind: KindTrace, Times: []float64{0, MaxRate}}, 0
		},
		"servers and capacity at their limits": func(o *SimOptions) {
			o.Servers, o.Capacity, o.Arrivals = MaxServers, MaxCapacity, expArrivals(1e6)
		},
	}
	for name, set := range edges {
		t.Run(name, func(t *testing.T) {
			o := base
			set(&o)
			r, err := Simulate(t.Context(), o)
			if err != nil {
				t.Fatalf("Simulate: %v, want a result", err)
			}
			checkResult(t, "Simulate", r, nil)
		})
	}
}

// pollCtx is a context that cancels itself at its nth poll (a call of
// Err), and counts the polls: a loop that honours it returns
// context.Canceled at that very poll, in the middle of its work.
type pollCtx struct {
	context.Context
	cancel context.CancelFunc
	n      int
	mu     sync.Mutex
	polls  int
}

func newPollCtx(t *testing.T, n int) *pollCtx {
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	return &pollCtx{Context: ctx, cancel: cancel, n: n}
}

func (c *pollCtx) Err() error {
	c.mu.Lock()
	c.polls++
	if c.polls == c.n {
		c.cancel()
	}
	c.mu.Unlock()
	return c.Context.Err()
}

// TestCancelMidComputation: each calculator at the largest size it
// allows stops at the first look at its context after a cancel, which
// comes every checkEvery steps, and returns context.Canceled.
func TestCancelMidComputation(t *testing.T) {
	const at = 3 // the poll that cancels: well inside every run below
	tests := []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"ErlangB c = MaxServers", func(ctx context.Context) error { _, err := ErlangB(ctx, MaxServers, 1); return err }},
		{"LogErlangB c = MaxServers", func(ctx context.Context) error { _, err := LogErlangB(ctx, MaxServers, 1); return err }},
		{"MMc c = MaxServers", func(ctx context.Context) error { _, err := MMc(ctx, 1, 1, MaxServers); return err }},
		{"MMcK K = MaxCapacity", func(ctx context.Context) error { _, err := MMcK(ctx, 1, 1, 1, MaxCapacity); return err }},
		{"Size up to MaxServers", func(ctx context.Context) error {
			_, _, err := Size(ctx, 0.99*MaxServers, 1, Target{MaxPWait: 0.01})
			return err
		}},
		{"Poisson mean MaxPoissonMean", func(ctx context.Context) error {
			_, err := Poisson(ctx, MaxPoissonMean, 1, -1, -1)
			return err
		}},
		{"PredictResize N = MaxCapacity", func(ctx context.Context) error {
			// NB = 10^6 puts the triggers at 333333 and 3·10^6: the first
			// passage solves over 2.7·10^6 states, after MM1N's 10^7.
			_, err := PredictResize(ctx, 1, 1, MaxCapacity, 1_000_000, 1_000_000)
			return err
		}},
		{"Priority preemptive K·c = MaxPriorityWork", func(ctx context.Context) error {
			_, err := Priority(ctx, PriorityOptions{Lambdas: []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, Mus: []float64{1},
				Servers: MaxPriorityWork / 10, Preemptive: true})
			return err
		}},
		{"Simulate MaxSimulated customers", func(ctx context.Context) error {
			_, err := Simulate(ctx, SimOptions{Arrivals: expArrivals(1), Service: expService(2), Servers: 1,
				Customers: MaxCustomers, Replications: MaxSimulated / MaxCustomers})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := newPollCtx(t, at)
			done := make(chan error, 1)
			go func() { done <- tt.run(ctx) }()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second): // a generous bound, only against a hang
				t.Fatal("no return 10 s after the start")
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			ctx.mu.Lock()
			defer ctx.mu.Unlock()
			if ctx.polls != at {
				t.Errorf("%d polls, want %d: it went on after the cancel", ctx.polls, at)
			}
		})
	}
}

// TestHistoryExtremes: History's staffing and intervals stay finite (its
// groups encode as JSON) for targets and confidences at the ends of
// float64, or it says ErrInput.
func TestHistoryExtremes(t *testing.T) {
	t0 := time.Date(2025, 1, 2, 9, 0, 0, 0, time.UTC)
	var samples []JobSample
	for i := range 20 {
		enq := t0.Add(time.Duration(i*i) * time.Second)
		samples = append(samples, JobSample{Kind: "convert", Backend: "soffice", Enqueued: enq, Started: enq,
			Finished: enq.Add(time.Duration(1+i%3) * time.Second), Service: time.Duration(1+i%3) * time.Second, OK: true})
	}
	for _, maxWq := range []float64{0, 5e-324, 1e-308, 1e308, math.MaxFloat64, math.Inf(1), math.NaN(), -1} {
		for _, conf := range []float64{0.95, 1e-308, 1 - 1e-16, 1, 0} {
			groups, err := History(t.Context(), samples, HistoryOptions{MaxWq: maxWq, Confidence: conf})
			checkResult(t, fmt.Sprintf("History(max Wq %g, confidence %g)", maxWq, conf), groups, err)
		}
	}
}

// TestTraceFileLimits: a trace that is a FIFO (opening it would block
// until a writer came) or larger than MaxTraceBytes is refused before it
// is read.
func TestTraceFileLimits(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxTraceBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for name, want := range map[string]string{fifo: "is not a regular file", huge: "more than the limit of 1073741824"} {
		done := make(chan error, 1)
		go func() { _, err := ParseArrivals("trace:" + name); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("ParseArrivals(trace:%s): %v, want an error saying %q", filepath.Base(name), err, want)
			}
		case <-time.After(10 * time.Second): // a generous bound, only against a hang
			t.Fatalf("ParseArrivals(trace:%s) still running after 10 s", filepath.Base(name))
		}
	}
}
