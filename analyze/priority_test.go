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
	registerModel("priority", func(t *testing.T, p modelParams) map[string]float64 {
		o := PriorityOptions{Lambdas: p.floats(t, "lambda"), Mus: p.floats(t, "mu"), Servers: p.int(t, "c"),
			Preemptive: p["preemptive"] == "true"}
		r, err := Priority(context.Background(), o)
		if err != nil {
			t.Fatalf("Priority(%+v): %v", o, err)
		}
		got := map[string]float64{}
		for k, pc := range r.Classes {
			if pc.Stable {
				got[fmt.Sprintf("wq_P%d", k)] = pc.Wq
				got[fmt.Sprintf("w_P%d", k)] = pc.W
			}
		}
		return got
	})
}

func priority(t *testing.T, o PriorityOptions) PriorityResult {
	t.Helper()
	r, err := Priority(context.Background(), o)
	if err != nil {
		t.Fatalf("Priority(%+v): %v", o, err)
	}
	return r
}

// nearPri: within 1e-12, relative above 1 and absolute below.
func nearPri(got, want float64) bool {
	return math.Abs(got-want) <= 1e-12*math.Max(1, math.Abs(want))
}

var priorityCases = []struct {
	name    string
	lambdas []float64
	mu      float64
	c       int
}{
	{"one server", []float64{0.3, 0.2, 0.1}, 1, 1},
	{"two servers", []float64{1, 2, 3}, 4, 2},
	{"many servers", []float64{50, 100, 200, 300}, 1, 700},
	{"heavy", []float64{0.01, 0.5, 9.4}, 1, 10},
	{"large c", []float64{1e4, 2e4, 6e4}, 1, 100_000},
}

// One class is M/M/c, under both disciplines.
func TestPriorityOneClassIsMMc(t *testing.T) {
	for _, tc := range priorityCases {
		lambda := tc.lambdas[0] + tc.lambdas[1] + tc.lambdas[2]
		m, err := MMc(context.Background(), lambda, tc.mu, tc.c)
		if err != nil {
			t.Fatal(err)
		}
		for _, pre := range []bool{false, true} {
			r := priority(t, PriorityOptions{Lambdas: []float64{lambda}, Mus: []float64{tc.mu}, Servers: tc.c, Preemptive: pre})
			pc := r.Classes[0]
			for _, q := range []struct {
				name      string
				got, want float64
			}{{"Wq", pc.Wq, m.Wq}, {"W", pc.W, m.W}, {"Lq", pc.Lq, m.Lq}, {"L", pc.L, m.L}, {"FIFO Wq", r.FIFO.Wq, m.Wq}} {
				if math.Abs(q.got-q.want) > 1e-12*math.Max(1, q.want) && math.Abs(q.got-q.want) > 1e-9*q.want {
					t.Errorf("%s, preemptive %v: %s = %.15g, want M/M/c's %.15g", tc.name, pre, q.name, q.got, q.want)
				}
			}
		}
	}
}

// Non-preemptive with one μ conserves work: the λ-weighted mean wait is
// the FIFO M/M/c's.
func TestPriorityConservation(t *testing.T) {
	for _, tc := range priorityCases {
		r := priority(t, PriorityOptions{Lambdas: tc.lambdas, Mus: []float64{tc.mu}, Servers: tc.c})
		if got, want := r.Total.Wq, r.FIFO.Wq; math.Abs(got-want) > 1e-10*want {
			t.Errorf("%s: mean Wq over classes = %.15g, want M/M/c's %.15g", tc.name, got, want)
		}
	}
}

// Preemptive: the top class is M/M/c alone, and classes 1..k together are
// M/M/c with their total rate.
func TestPriorityPreemptiveLayers(t *testing.T) {
	for _, tc := range priorityCases {
		r := priority(t, PriorityOptions{Lambdas: tc.lambdas, Mus: []float64{tc.mu}, Servers: tc.c, Preemptive: true})
		var lambda, lq float64
		for k, pc := range r.Classes {
			lambda += pc.Lambda
			lq += pc.Lq
			m, err := MMc(context.Background(), lambda, tc.mu, tc.c)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(lq-m.Lq) > 1e-10*m.Lq+1e-300 {
				t.Errorf("%s: Lq of P0..P%d = %.15g, want M/M/%d's with λ = %g: %.15g", tc.name, k, lq, tc.c, lambda, m.Lq)
			}
		}
	}
}

// On one server the M/M/c-difference argument and the M/G/1 forms agree,
// and the non-preemptive waits are the textbook M/G/1 ones written out.
func TestPriorityOneServerForms(t *testing.T) {
	lambdas, mu := []float64{0.3, 0.2, 0.1}, 2.0
	pre := priority(t, PriorityOptions{Lambdas: lambdas, Mus: []float64{mu, mu, mu}, Servers: 1, Preemptive: true})
	var lambda, lq float64
	for k, pc := range pre.Classes {
		lambda += pc.Lambda
		rho := lambda / mu
		wantLq := rho*rho/(1-rho) - lq // M/M/1's Lq with classes 0..k
		if !nearPri(pc.Lq, wantLq) {
			t.Errorf("preemptive P%d: Lq = %.15g, want %.15g", k, pc.Lq, wantLq)
		}
		lq += pc.Lq
	}
	// Non-preemptive, per-class μ: W0 = Σ λ_i·2/μ_i² / 2.
	mus := []float64{1, 2, 4}
	np := priority(t, PriorityOptions{Lambdas: lambdas, Mus: mus, Servers: 1})
	w0 := 0.3/1 + 0.2/4 + 0.1/16
	sigma := []float64{0, 0.3, 0.4, 0.425}
	for k, pc := range np.Classes {
		if want := w0 / ((1 - sigma[k]) * (1 - sigma[k+1])); !nearPri(pc.Wq, want) {
			t.Errorf("non-preemptive P%d: Wq = %.15g, want %.15g", k, pc.Wq, want)
		}
		if want := pc.Wq + 1/mus[k]; !nearPri(pc.W, want) {
			t.Errorf("non-preemptive P%d: W = %.15g, want %.15g", k, pc.W, want)
		}
	}
	// FIFO: Pollaczek-Khinchine with the mixture, W0/(1-ρ).
	if want := w0 / (1 - 0.425); !nearPri(np.FIFO.Wq, want) {
		t.Errorf("FIFO Wq = %.15g, want %.15g", np.FIFO.Wq, want)
	}
}

// Order matters: the higher a class, the shorter its wait; moving a class
// up shortens its wait and lengthens the others'.
func TestPriorityOrder(t *testing.T) {
	for _, pre := range []bool{false, true} {
		r := priority(t, PriorityOptions{Lambdas: []float64{1, 1, 1}, Mus: []float64{2}, Servers: 2, Preemptive: pre})
		for k := 1; k < 3; k++ {
			if !(r.Classes[k].Wq > r.Classes[k-1].Wq) {
				t.Errorf("preemptive %v: Wq of P%d = %g, not above P%d's %g", pre, k, r.Classes[k].Wq, k-1, r.Classes[k-1].Wq)
			}
		}
		// The same classes in the other order: λ 2 first, then 0.5.
		a := priority(t, PriorityOptions{Lambdas: []float64{0.5, 2}, Mus: []float64{3}, Servers: 1, Preemptive: pre})
		b := priority(t, PriorityOptions{Lambdas: []float64{2, 0.5}, Mus: []float64{3}, Servers: 1, Preemptive: pre})
		if !(b.Classes[1].Wq > a.Classes[0].Wq && b.Classes[0].Wq < a.Classes[1].Wq) {
			t.Errorf("preemptive %v: swapping the classes gives Wq %g, %g from %g, %g", pre, b.Classes[0].Wq, b.Classes[1].Wq, a.Classes[0].Wq, a.Classes[1].Wq)
		}
	}
}

// A total load of 1 or more: the upper classes keep finite measures, the
// rest are marked unstable with zero measures, and no number is NaN.
func TestPriorityPartlyUnstable(t *testing.T) {
	tests := []struct {
		name string
		o    PriorityOptions
		// wantWq0 is P0's wait with every server always busy.
		wantWq0 float64
	}{
		{"non-preemptive c=2", PriorityOptions{Lambdas: []float64{1, 2, 6}, Mus: []float64{4}, Servers: 2}, (1.0 / 8) / (1 - 1.0/8)},
		{"non-preemptive per-class μ", PriorityOptions{Lambdas: []float64{0.2, 1, 1}, Mus: []float64{1, 1.25, 1}, Servers: 1},
			(0.2/1 + 0.8/1.25) / (1 - 0.2)}, // P1 unstable: σ = 0.2 + 0.8 = 1
		{"preemptive c=2", PriorityOptions{Lambdas: []float64{1, 2, 6}, Mus: []float64{4}, Servers: 2, Preemptive: true},
			0.0039682539682539683}, // M/M/2 with λ = 1 alone
	}
	for _, tc := range tests {
		r := priority(t, tc.o)
		if r.Stable || r.Unstable() < 1 {
			t.Errorf("%s: Stable %v, first unstable class %d: want unstable from P1 or lower", tc.name, r.Stable, r.Unstable())
		}
		if got := r.Classes[0].Wq; !nearPri(got, tc.wantWq0) {
			t.Errorf("%s: P0 Wq = %.15g, want %.15g", tc.name, got, tc.wantWq0)
		}
		for k, pc := range r.Classes {
			if !pc.Stable && (pc.Wq != 0 || pc.L != 0) {
				t.Errorf("%s: unstable P%d has Wq %g, L %g: want 0", tc.name, k, pc.Wq, pc.L)
			}
		}
		if r.Total != (PriorityMeasures{}) || r.FIFO != (PriorityMeasures{}) {
			t.Errorf("%s: totals %+v, FIFO %+v of an unstable queue: want zero", tc.name, r.Total, r.FIFO)
		}
	}
}

func TestPriorityBadInput(t *testing.T) {
	tests := []struct {
		name string
		o    PriorityOptions
		want string
	}{
		{"no classes", PriorityOptions{Mus: []float64{1}, Servers: 1}, "0 classes: want 1 to 100"},
		{"too many classes", PriorityOptions{Lambdas: make([]float64, 101), Mus: []float64{1}, Servers: 1}, "101 classes"},
		{"negative λ", PriorityOptions{Lambdas: []float64{1, -1}, Mus: []float64{1}, Servers: 1}, "class P1: invalid input: lambda = -1 is not a positive number"},
		{"NaN μ", PriorityOptions{Lambdas: []float64{1, 1}, Mus: []float64{1, math.NaN()}, Servers: 1}, "class P1: invalid input: mu = NaN"},
		{"more μ than classes", PriorityOptions{Lambdas: []float64{1, 1}, Mus: []float64{1, 2, 3}, Servers: 1}, "3 service rates for 2 classes"},
		{"no arrivals", PriorityOptions{Lambdas: []float64{0, 0}, Mus: []float64{1}, Servers: 1}, "no class has arrivals"},
		{"no μ", PriorityOptions{Lambdas: []float64{1}, Servers: 1}, "0 service rates for 1 classes"},
		{"no servers", PriorityOptions{Lambdas: []float64{1}, Mus: []float64{1}}, "servers = 0"},
		{"per-class μ on c > 1", PriorityOptions{Lambdas: []float64{1, 1}, Mus: []float64{1, 2}, Servers: 3}, "per-class service rates with 3 servers: no exact result"},
		{"preemptive work", PriorityOptions{Lambdas: make([]float64, 11), Mus: []float64{1}, Servers: MaxServers, Preemptive: true},
			"11 classes on 10000000 servers, preemptive: K·c = 110000000 is above the limit 100000000"},
		{"load", PriorityOptions{Lambdas: []float64{1e90, 1e90}, Mus: []float64{1e-10}, Servers: 1}, "class P0: invalid input: load"},
	}
	for _, tc := range tests {
		_, err := Priority(context.Background(), tc.o)
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want ErrInput with %q", tc.name, err, tc.want)
		}
	}
}

// FuzzPriority: finite measures (the result encodes as JSON) or ErrInput
// for any rates and servers, both disciplines, one μ or one per class.
func FuzzPriority(f *testing.F) {
	for _, x := range extremes {
		f.Add(x, 1.0, 1.0, 2, false)
		f.Add(0.5, x, 1.0, 1, true)
		f.Add(0.5, 0.5, x, 3, true)
	}
	f.Add(1e15, 0.0, 1.0, 2, false)
	f.Fuzz(func(t *testing.T, l0, l1, mu float64, c int, pre bool) {
		if c > 1000 || c < -1 {
			c = c%1000 + 1 // keep an iteration short; the limits are tested above
		}
		for _, mus := range [][]float64{{mu}, {mu, 2 * mu}} {
			r, err := Priority(t.Context(), PriorityOptions{Lambdas: []float64{l0, l1}, Mus: mus, Servers: c, Preemptive: pre})
			checkResult(t, "Priority", r, err)
		}
	})
}

func ExamplePriority() {
	// calq's four classes on 4 workers of 1 job/s: 0.3 jobs/s of P0 and
	// 2.4 of P3 between them.
	r, _ := Priority(context.Background(), PriorityOptions{Lambdas: []float64{0.3, 0.5, 0.5, 2.4}, Mus: []float64{1}, Servers: 4})
	for k, pc := range r.Classes {
		fmt.Printf("P%d waits %.3f s\n", k, pc.Wq)
	}
	fmt.Printf("all classes FIFO wait %.3f s\n", r.FIFO.Wq)
	// Output:
	// P0 waits 0.227 s
	// P1 waits 0.283 s
	// P2 waits 0.388 s
	// P3 waits 4.143 s
	// all classes FIFO wait 2.797 s
}

// A class with no arrivals has no one waiting, and the wait of a job of
// that class as its rate goes to 0; the classes around it are as if it
// were not there.
func TestPriorityZeroRateClass(t *testing.T) {
	for _, tc := range priorityCases {
		for _, pre := range []bool{false, true} {
			insert := func(v float64) []float64 {
				return append([]float64{tc.lambdas[0], v}, tc.lambdas[1:]...)
			}
			with := priority(t, PriorityOptions{Lambdas: insert(0), Mus: []float64{tc.mu}, Servers: tc.c, Preemptive: pre})
			without := priority(t, PriorityOptions{Lambdas: tc.lambdas, Mus: []float64{tc.mu}, Servers: tc.c, Preemptive: pre})
			for i := range tc.lambdas {
				k := i + min(i, 1) // P1 is the empty class
				if got, want := with.Classes[k].Wq, without.Classes[i].Wq; math.Abs(got-want) > 1e-9*want {
					t.Errorf("%s, preemptive %v: P%d Wq = %.15g beside an empty class, want %.15g", tc.name, pre, k, got, want)
				}
			}
			// A small rate approaches the limit.
			small := priority(t, PriorityOptions{Lambdas: insert(1e-9 * tc.lambdas[0]), Mus: []float64{tc.mu}, Servers: tc.c, Preemptive: pre})
			zero, tiny := with.Classes[1], small.Classes[1]
			if zero.Lq != 0 || zero.L != 0 || math.Abs(tiny.Wq-zero.Wq) > 1e-4*zero.Wq {
				t.Errorf("%s, preemptive %v: empty P1 Wq %.10g, Lq %g, L %g; with a tiny rate Wq %.10g", tc.name, pre, zero.Wq, zero.Lq, zero.L, tiny.Wq)
			}
		}
	}
}
