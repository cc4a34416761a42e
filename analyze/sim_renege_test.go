package analyze

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
)

// birthDeath is M/M/c+M solved as a birth-death chain truncated where its
// probabilities are negligible: births at λ, deaths at μ·min(n, c) +
// θ·max(n−c, 0). It is the test's own, independent of Simulate.
type birthDeath struct{ pAbandon, l, lq, throughput float64 }

func solveMMcM(lambda, mu, theta float64, c int) birthDeath {
	const n = 5000
	p := make([]float64, n+1)
	p[0] = 1
	sum := 1.0
	for i := 1; i <= n; i++ {
		death := mu*float64(min(i, c)) + theta*float64(max(i-c, 0))
		p[i] = p[i-1] * lambda / death
		sum += p[i]
	}
	var r birthDeath
	for i, v := range p {
		v /= sum
		r.l += float64(i) * v
		r.lq += float64(max(i-c, 0)) * v
		r.throughput += mu * float64(min(i, c)) * v
	}
	r.pAbandon = theta * r.lq / lambda
	return r
}

// inCI checks that want lies within two half-widths of m's interval.
func inCI(t *testing.T, name string, m Metric, want float64) {
	t.Helper()
	h := halfWidth(m)
	if !(m.CILow <= m.Mean && m.Mean <= m.CIHigh) || math.Abs(m.Mean-want) > 2*h {
		t.Errorf("%s = %.5g, interval [%.5g, %.5g]; want %.5g within 2 half-widths", name, m.Mean, m.CILow, m.CIHigh, want)
	}
}

// TestSimulateErlangA: with exponential patience the simulation agrees
// with M/M/c+M's birth-death chain within its intervals, stable or not
// without abandonment, and so with ErlangA's values, its analytic column,
// each within its interval; Little's law holds with the waits of those
// who abandoned counted.
func TestSimulateErlangA(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name              string
		lambda, mu, theta float64
		c                 int
	}{
		{"M/M/1+M at rho 0.8", 0.8, 1, 0.5, 1},
		{"M/M/1+M overloaded", 2, 1, 1, 1},
		{"M/M/3+M at rho 1.1", 3.3, 1, 0.2, 3},
		{"M/M/5+M impatient", 4, 1, 4, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n := scaled(100_000)
			r := mustSimulate(t, SimOptions{Arrivals: expArrivals(tt.lambda), Service: expService(tt.mu),
				Patience: expService(tt.theta), Servers: tt.c, Customers: n, Warmup: n / 20, Replications: 1, Seed: 7})
			want := solveMMcM(tt.lambda, tt.mu, tt.theta, tt.c)
			if r.PAbandon == nil || r.AbandonRate == nil || r.WqAbandoned == nil {
				t.Fatalf("no abandonment measures: %+v", r)
			}
			inCI(t, "P(abandon)", *r.PAbandon, want.pAbandon)
			inCI(t, "abandonment rate", *r.AbandonRate, tt.lambda*want.pAbandon)
			inCI(t, "L", r.L, want.l)
			inCI(t, "Lq", r.Lq, want.lq)
			inCI(t, "throughput", r.Throughput, want.throughput)
			// ErlangA's values are the analytic column, the chain's to 9 digits.
			if r.Analytic != AnalyticErlangA || r.PAbandon.Analytic == nil {
				t.Fatalf("analytic %q, P(abandon)'s %v: want %s's", r.Analytic, valueOf(r.PAbandon.Analytic), AnalyticErlangA)
			}
			if got := *r.PAbandon.Analytic; math.Abs(got-want.pAbandon) > 1e-9*want.pAbandon {
				t.Errorf("analytic P(abandon) %.12g, the chain's %.12g", got, want.pAbandon)
			}
			for name, m := range map[string]Metric{"W": r.W, "Wq": r.Wq, "L": r.L, "Lq": r.Lq, "rho": r.Rho,
				"P(wait)": r.PWait, "throughput": r.Throughput, "Wq abandoned": *r.WqAbandoned, "abandon rate": *r.AbandonRate} {
				if m.Analytic == nil {
					t.Errorf("%s: no analytic value", name)
					continue
				}
				inCI(t, name, m, *m.Analytic)
			}
			if r.Little.RelDiff > 0.01 {
				t.Errorf("Little's law: L = %g, λW = %g, want them within 1%%", r.Little.L, r.Little.LambdaW)
			}
			if want := fmt.Sprintf("M/M/%d+M", tt.c); r.Model != want || r.Patience != fmt.Sprintf("exp:%v", tt.theta) {
				t.Errorf("model %q, patience %q; want %q, exp:%v", r.Model, r.Patience, want, tt.theta)
			}
		})
	}
}

// TestSimulatePatienceTiny: with a patience far longer than any wait the
// simulation is M/M/c's, each measure within its interval of MMc's.
func TestSimulatePatienceTiny(t *testing.T) {
	n := scaled(100_000)
	r := mustSimulate(t, SimOptions{Arrivals: expArrivals(1.6), Service: expService(1), Patience: expService(1e-9),
		Servers: 2, Customers: n, Warmup: n / 20, Replications: 1, Seed: 3})
	want, _ := MMc(t.Context(), 1.6, 1, 2)
	for name, c := range map[string]struct {
		m    Metric
		want float64
	}{"W": {r.W, want.W}, "Wq": {r.Wq, want.Wq}, "L": {r.L, want.L}, "Lq": {r.Lq, want.Lq},
		"P(wait)": {r.PWait, want.PWait}, "throughput": {r.Throughput, want.Throughput}} {
		inCI(t, name, c.m, c.want)
	}
	if r.PAbandon.Mean > 1e-5 {
		t.Errorf("P(abandon) = %g with a mean patience of 10^9 s, want about 0", r.PAbandon.Mean)
	}
}

// TestSimulateConstPatience: with a constant patience D every customer
// who abandons waited exactly D, and no served customer waited longer.
func TestSimulateConstPatience(t *testing.T) {
	r := mustSimulate(t, SimOptions{Arrivals: expArrivals(1.5), Service: expService(1),
		Patience: Service{Kind: KindConst, Mean: 0.75}, Servers: 1, Customers: 20_000, Warmup: 1000, Replications: 2, Seed: 5})
	if got := r.WqAbandoned.Mean; math.Abs(got-0.75) > 1e-9 {
		t.Errorf("mean wait of those who abandoned = %.12g, want 0.75", got)
	}
	if !(r.PAbandon.Mean > 0.2 && r.Wq.Mean < 0.75) {
		t.Errorf("P(abandon) = %g, Wq of the served = %g; want many abandoning at λ/μ = 1.5, Wq below 0.75",
			r.PAbandon.Mean, r.Wq.Mean)
	}
	if r.Model != "M/M/1+D" {
		t.Errorf("model %q, want M/M/1+D", r.Model)
	}
}

// TestFifoPositions: an entry keeps its position through the buffer's
// growth and pushes at the front, so an abandonment finds its customer
// in O(1).
func TestFifoPositions(t *testing.T) {
	var q fifo
	pos := map[int]int{}
	for id := range 20 {
		pos[id] = q.push(waiting{id: id})
	}
	for range 5 {
		q.pop()
	}
	q.pushFront(waiting{id: -1})
	q.pushFront(waiting{id: -2})
	for id := 20; id < 70; id++ { // grows from 32 to 64 to 128
		pos[id] = q.push(waiting{id: id})
	}
	for id := 5; id < 70; id++ {
		if got := q.at(pos[id]).id; got != id {
			t.Errorf("position %d holds customer %d, want %d", pos[id], got, id)
		}
	}
	for i, want := range []int{-2, -1, 5, 6} {
		if got := q.pop().id; got != want {
			t.Errorf("pop %d: customer %d, want %d", i+1, got, want)
		}
	}
}

// TestPatienceErrors: a patience that cannot be drawn is named.
func TestPatienceErrors(t *testing.T) {
	valid := SimOptions{Arrivals: expArrivals(1), Service: expService(2), Servers: 1, Customers: 100, Replications: 1}
	for _, tt := range []struct {
		name     string
		patience Service
		want     string
	}{
		{"zero theta", Service{Kind: KindExp}, "rate 0 is not a positive number"},
		{"negative time", Service{Kind: KindConst, Mean: -1}, "time -1 is not a positive number"},
		{"unknown kind", Service{Kind: "pareto"}, `unknown kind "pareto"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := valid
			o.Patience = tt.patience
			_, err := Simulate(context.Background(), o)
			checkOptionErr(t, err, "patience", tt.want)
		})
	}
	_, err := ParsePatience("exp:x")
	checkOptionErr(t, err, "patience", `"exp:x": rate "x" is not a number`)
	if _, err := ParsePatience("lognormal:30,1"); err != nil {
		t.Errorf("ParsePatience(lognormal:30,1): %v", err)
	}
	if err == nil || strings.Contains(err.Error(), "service") {
		t.Errorf("ParsePatience's error %q names service", err)
	}
}
