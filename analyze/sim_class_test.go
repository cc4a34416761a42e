package analyze

import (
	"context"
	"math"
	"reflect"
	"testing"
)

// TestSimulateOneClass: one priority class is the FIFO queue itself, the
// same numbers drawn in the same order, preemptive or not (a preemptive
// run tallies its customers as they leave, not as they start, so its sums
// may differ in the last bits).
func TestSimulateOneClass(t *testing.T) {
	fifo := SimOptions{Arrivals: expArrivals(1.7), Service: expService(1), Servers: 2,
		Customers: 10_000, Warmup: 1000, Replications: 3, Seed: 9}
	want := mustSimulate(t, fifo)
	for _, preemptive := range []bool{false, true} {
		o := fifo
		o.Arrivals, o.Service = Arrivals{}, Service{}
		o.Classes, o.Preemptive = []SimClass{{Rate: 1.7, Service: expService(1)}}, preemptive
		got := mustSimulate(t, o)
		for name, m := range map[string][2]Metric{"W": {got.W, want.W}, "Wq": {got.Wq, want.Wq}, "L": {got.L, want.L},
			"Lq": {got.Lq, want.Lq}, "rho": {got.Rho, want.Rho}, "P(wait)": {got.PWait, want.PWait}} {
			if !same(m[0].Mean, m[1].Mean) || !same(m[0].CILow, m[1].CILow) {
				t.Errorf("preemptive %v: %s = %+v, FIFO's %+v", preemptive, name, m[0], m[1])
			}
		}
		c := got.Classes[0]
		if !same(c.W.Mean, want.W.Mean) || !same(c.L.Mean, want.L.Mean) || c.Class != 1 {
			t.Errorf("preemptive %v: class 1 has W %v, L %v; want FIFO's %v, %v", preemptive, c.W.Mean, c.L.Mean, want.W.Mean, want.L.Mean)
		}
		if got.Model != want.Model || got.Arrivals != "exp:1.7" || got.Service != "exp:1" {
			t.Errorf("model %s, arrivals %s, service %s; want %s, exp:1.7, exp:1", got.Model, got.Arrivals, got.Service, want.Model)
		}
	}
}

// same says a and b are equal to 12 digits.
func same(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Abs(b) }

// cobham is the non-preemptive M/G/1 priority queue's Wq per class:
// W0/((1−σ_{k−1})(1−σ_k)), W0 = Σ λ_i·E[S_i²]/2, σ_k the load of classes
// 1 to k (Cobham 1954; Kleinrock, Queueing Systems II, eq. 3.31).
func cobham(lambdas, mean, second []float64) []float64 {
	var w0 float64
	for i, l := range lambdas {
		w0 += l * second[i] / 2
	}
	wq := make([]float64, len(lambdas))
	var sigma float64
	for k, l := range lambdas {
		before := sigma
		sigma += l * mean[k]
		wq[k] = w0 / ((1 - before) * (1 - sigma))
	}
	return wq
}

// TestSimulatePriority: two and three classes on one server against
// Cobham's non-preemptive waits, and preemptive-resume against its exact
// values for exponential service of equal rates: the top class sees an
// M/M/1 of its own, class k waits W_k = (1/μ)/(1−σ_{k−1}) + (σ_k/μ)/((1−σ_{k−1})(1−σ_k)).
// Little's law holds within each class.
func TestSimulatePriority(t *testing.T) {
	t.Parallel()
	exp1, half := expService(1), Service{Kind: KindConst, Mean: 0.5}
	tests := []struct {
		name       string
		classes    []SimClass
		preemptive bool
		wantW      []float64
	}{
		{"non-preemptive, two exp classes", []SimClass{{0.3, exp1}, {0.4, exp1}}, false,
			plus(cobham([]float64{0.3, 0.4}, []float64{1, 1}, []float64{2, 2}), 1, 1)},
		{"non-preemptive, const then exp", []SimClass{{0.6, half}, {0.4, exp1}}, false,
			plus(cobham([]float64{0.6, 0.4}, []float64{0.5, 1}, []float64{0.25, 2}), 0.5, 1)},
		{"non-preemptive, three classes", []SimClass{{0.2, exp1}, {0.3, exp1}, {0.25, exp1}}, false,
			plus(cobham([]float64{0.2, 0.3, 0.25}, []float64{1, 1, 1}, []float64{2, 2, 2}), 1, 1, 1)},
		{"preemptive, two exp classes", []SimClass{{0.4, exp1}, {0.4, exp1}}, true,
			[]float64{1 / (1 - 0.4), 1/(1-0.4) + 0.8/((1-0.4)*(1-0.8))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n := scaled(100_000)
			r := mustSimulate(t, SimOptions{Classes: tt.classes, Preemptive: tt.preemptive, Servers: 1,
				Customers: n, Warmup: n / 20, Replications: 1, Seed: 11})
			if len(r.Classes) != len(tt.classes) || r.Preemptive != tt.preemptive {
				t.Fatalf("%d classes, preemptive %v; want %d, %v", len(r.Classes), r.Preemptive, len(tt.classes), tt.preemptive)
			}
			// Priority's values are the analytic column when every class is exp.
			exp, want := true, AnalyticPriority
			for _, c := range tt.classes {
				exp = exp && c.Service.Kind == KindExp
			}
			switch {
			case !exp:
				want = ""
			case tt.preemptive:
				want = AnalyticPreemptive
			}
			if r.Analytic != want {
				t.Errorf("analytic %q, want %q", r.Analytic, want)
			}
			for k, c := range r.Classes {
				if exp && (c.W.Analytic == nil || math.Abs(*c.W.Analytic-tt.wantW[k]) > 1e-9*tt.wantW[k]) {
					t.Errorf("class %d: analytic W %v, want Priority's %.10g", k+1, valueOf(c.W.Analytic), tt.wantW[k])
				}
				t.Logf("class %d: W %.4f [%.4f, %.4f], want %.4f", k+1, c.W.Mean, c.W.CILow, c.W.CIHigh, tt.wantW[k])
				inCI(t, "W of class "+string(rune('1'+k)), c.W, tt.wantW[k])
				inCI(t, "Wq of class "+string(rune('1'+k)), c.Wq, tt.wantW[k]-tt.classes[k].Service.MeanTime())
				inCI(t, "throughput of class "+string(rune('1'+k)), c.Throughput, tt.classes[k].Rate)
				if c.Little.RelDiff > 0.01 {
					t.Errorf("class %d: Little's law L = %g, λW = %g, want them within 1%%", k+1, c.Little.L, c.Little.LambdaW)
				}
			}
		})
	}
}

// plus returns wq with each class's mean service time added: W.
func plus(wq []float64, means ...float64) []float64 {
	for i, m := range means {
		wq[i] += m
	}
	return wq
}

// TestSimulatePriorityMMc: on c servers with equal exponential service,
// non-preemptive classes wait W0/((1−σ_{k−1})(1−σ_k)) with W0 =
// C(c, a)/(cμ), σ_k the classes' share of cμ; in all, the queue is M/M/c.
func TestSimulatePriorityMMc(t *testing.T) {
	lambdas, c := []float64{0.5, 1, 1}, 3
	n := scaled(100_000)
	o := SimOptions{Servers: c, Customers: n, Warmup: n / 20, Replications: 1, Seed: 13}
	for _, l := range lambdas {
		o.Classes = append(o.Classes, SimClass{Rate: l, Service: expService(1)})
	}
	r := mustSimulate(t, o)
	mmc, _ := MMc(t.Context(), 2.5, 1, c)
	inCI(t, "L", r.L, mmc.L)
	w0 := mmc.PWait / float64(c)
	var sigma float64
	for k, l := range lambdas {
		before := sigma
		sigma += l / float64(c)
		want := w0 / ((1 - before) * (1 - sigma))
		inCI(t, "Wq of class "+string(rune('1'+k)), r.Classes[k].Wq, want)
		if a := r.Classes[k].Wq.Analytic; a == nil || math.Abs(*a-want) > 1e-9*want {
			t.Errorf("class %d: analytic Wq %v, want Cobham's %.10g", k+1, valueOf(a), want)
		}
	}
}

// TestSimulatePriorityAbandon: classes and patience together: the top
// class, served first, abandons least.
func TestSimulatePriorityAbandon(t *testing.T) {
	r := mustSimulate(t, SimOptions{Classes: []SimClass{{0.5, expService(1)}, {0.5, expService(1)}, {0.5, expService(1)}},
		Patience: expService(0.5), Servers: 1, Customers: 30_000, Warmup: 3000, Replications: 2, Seed: 17})
	p := []float64{r.Classes[0].PAbandon.Mean, r.Classes[1].PAbandon.Mean, r.Classes[2].PAbandon.Mean}
	if !(p[0] < p[1] && p[1] < p[2]) || r.Model != "M/M/1+M" {
		t.Errorf("model %s, P(abandon) per class %v; want M/M/1+M, increasing down the classes", r.Model, p)
	}
	if r.Little.RelDiff > 0.01 || r.Classes[2].Little.RelDiff > 0.01 {
		t.Errorf("Little's law: %+v in all, %+v for class 3", r.Little, r.Classes[2].Little)
	}
}

// TestClassErrors: classes are checked with the other options, each
// problem named.
func TestClassErrors(t *testing.T) {
	valid := SimOptions{Classes: []SimClass{{1, expService(3)}, {0.5, expService(3)}}, Servers: 1, Customers: 100, Replications: 1}
	tests := []struct {
		name, field, want string
		edit              func(o *SimOptions)
	}{
		{"preemptive without classes", "preemptive", "needs priority classes", func(o *SimOptions) {
			o.Classes, o.Arrivals, o.Service, o.Preemptive = nil, expArrivals(1), expService(2), true
		}},
		{"too many classes", "lambda", "101 classes is above the limit 100", func(o *SimOptions) {
			o.Classes = make([]SimClass, 101)
		}},
		{"zero rate", "lambda", "class 2: rate 0 is not a positive number", func(o *SimOptions) { o.Classes[1].Rate = 0 }},
		{"bad service", "service", "class 1: rate NaN", func(o *SimOptions) { o.Classes[0].Service.Rate = math.NaN() }},
		{"arrivals too", "arrivals", "leave arrivals unset", func(o *SimOptions) { o.Arrivals = expArrivals(1) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := valid
			o.Classes = append([]SimClass(nil), valid.Classes...)
			tt.edit(&o)
			_, err := Simulate(context.Background(), o)
			checkOptionErr(t, err, tt.field, tt.want)
		})
	}
	if r := mustSimulate(t, valid); !reflect.DeepEqual(r.Arrivals, "exp:1,0.5") || r.Service != "exp:3" {
		t.Errorf("arrivals %q, service %q; want exp:1,0.5 and exp:3", r.Arrivals, r.Service)
	}
}

// TestSimulateClassesDeterministic: classes, preemption and patience
// together give equal results for equal seeds, and stop on a cancelled
// context.
func TestSimulateClassesDeterministic(t *testing.T) {
	o := SimOptions{Classes: []SimClass{{0.4, expService(1)}, {0.5, Service{Kind: KindLognormal, Mean: 1, CV: 2}}},
		Preemptive: true, Patience: Service{Kind: KindLognormal, Mean: 2, CV: 1}, Servers: 2, Capacity: 8,
		Customers: 5_000, Warmup: 500, Replications: 3, Seed: 42}
	a, b := mustSimulate(t, o), mustSimulate(t, o)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("two runs with seed 42 differ:\n%+v\n%+v", a, b)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o.Customers, o.Replications = MaxCustomers, MaxSimulated/MaxCustomers
	if _, err := Simulate(ctx, o); err != ctx.Err() {
		t.Errorf("Simulate with a cancelled context: %v, want %v", err, ctx.Err())
	}
}

// TestSimulatePreemptiveMMc: preemptive-resume on c servers with equal
// exponential service: the classes down to k do not see those below, so
// they are an M/M/c of their summed rate Λ_k, and class k's L is
// L(Λ_k) − L(Λ_{k−1}).
func TestSimulatePreemptiveMMc(t *testing.T) {
	lambdas, c := []float64{0.6, 0.6, 0.4}, 2
	n := scaled(100_000)
	o := SimOptions{Servers: c, Preemptive: true, Customers: n, Warmup: n / 20, Replications: 1, Seed: 19}
	for _, l := range lambdas {
		o.Classes = append(o.Classes, SimClass{Rate: l, Service: expService(1)})
	}
	r := mustSimulate(t, o)
	var sum, before float64
	for k, l := range lambdas {
		sum += l
		m, _ := MMc(t.Context(), sum, 1, c)
		t.Logf("class %d: L %.4f [%.4f, %.4f], want %.4f", k+1, r.Classes[k].L.Mean, r.Classes[k].L.CILow, r.Classes[k].L.CIHigh, m.L-before)
		inCI(t, "L of class "+string(rune('1'+k)), r.Classes[k].L, m.L-before)
		if a := r.Classes[k].L.Analytic; a == nil || math.Abs(*a-(m.L-before)) > 1e-9*(m.L-before) {
			t.Errorf("class %d: analytic L %v, want Priority's %.10g", k+1, valueOf(a), m.L-before)
		}
		inCI(t, "W of class "+string(rune('1'+k)), r.Classes[k].W, (m.L-before)/l)
		before = m.L
	}
}

// valueOf is *p for a message, "none" for nil.
func valueOf(p *float64) any {
	if p == nil {
		return "none"
	}
	return *p
}
