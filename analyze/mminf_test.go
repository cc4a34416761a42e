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
	registerModel("mminf", func(t *testing.T, p modelParams) map[string]float64 {
		r, err := MMInf(t.Context(), p.float(t, "lambda"), p.float(t, "mu"))
		if err != nil {
			t.Fatalf("MMInf(%v): %v", p, err)
		}
		q := map[string]float64{"l": r.L, "w": r.W, "wq": r.Wq, "p0": r.P0, "throughput": r.Throughput}
		if _, ok := p["n"]; ok {
			q["p_n"], q["at_most"] = r.P(p.int(t, "n")), r.AtMost(p.int(t, "n"))
		}
		if _, ok := p["p"]; ok {
			q["percentile"] = float64(r.Percentile(p.float(t, "p")))
		}
		return q
	})
}

// TestMMInfIsPoisson: P(N = n) and P(N ≤ n) are the Poisson table's, and
// the percentile is where that table's P(N ≤ n) first reaches p.
func TestMMInfIsPoisson(t *testing.T) {
	for _, a := range []float64{0.3, 6, 150, 1e4} {
		t.Run(fmt.Sprint(a), func(t *testing.T) {
			r, err := MMInf(t.Context(), a*2, 2)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := Poisson(t.Context(), a, 1, -1, -1)
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range rows {
				if !near(r.P(row.N), row.P, 1e-12) || !near(r.AtMost(row.N), row.AtMost, 1e-9) {
					t.Fatalf("n = %d: P %.15g, P(N ≤ n) %.15g; want Poisson's %.15g, %.15g", row.N, r.P(row.N), r.AtMost(row.N), row.P, row.AtMost)
				}
			}
			for _, p := range []float64{0.5, 0.9, 0.99, 0.999} {
				n := r.Percentile(p)
				if r.AtMost(n) < p || (n > 0 && r.AtMost(n-1) >= p) {
					t.Errorf("percentile %g = %d: P(N ≤ n) = %.15g, P(N ≤ n-1) = %.15g", p, n, r.AtMost(n), r.AtMost(n-1))
				}
			}
		})
	}
}

// TestMMInfIsMMcWithManyServers: M/M/c with c far above the load has
// M/M/∞'s measures (and M/M/c's P0 is e^-a).
func TestMMInfIsMMcWithManyServers(t *testing.T) {
	const lambda, mu = 30.0, 1.5
	r, err := MMInf(t.Context(), lambda, mu)
	if err != nil {
		t.Fatal(err)
	}
	m, err := MMc(t.Context(), lambda, mu, 200)
	if err != nil {
		t.Fatal(err)
	}
	if !near(m.L, r.L, 1e-13) || !near(m.W, r.W, 1e-13) || m.Wq > 1e-40 || !near(m.P0, r.P0, 1e-13) {
		t.Errorf("M/M/200: L %g, W %g, Wq %g, P0 %g; want M/M/∞'s %g, %g, 0, %g", m.L, m.W, m.Wq, m.P0, r.L, r.W, r.P0)
	}
}

// TestMMInfInput: bad rates and a load past MaxPoissonMean are ErrInput.
func TestMMInfInput(t *testing.T) {
	for _, tt := range []struct {
		lambda, mu float64
		want       string
	}{{0, 1, "lambda = 0"}, {1, math.Inf(1), "mu = +Inf"}, {1e8, 1, "load λ/μ = 1e+08"}, {math.NaN(), 1, "lambda = NaN"}} {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := MMInf(ctx, tt.lambda, tt.mu)
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("MMInf(%g, %g) = %v, want ErrInput saying %q", tt.lambda, tt.mu, err, tt.want)
		}
	}
	r, err := MMInf(t.Context(), MaxPoissonMean, 1)
	checkResult(t, "MMInf", r, err)
	if n := r.Percentile(0.999); n < MaxPoissonMean || n > MaxPoissonMean+20_000 {
		t.Errorf("a = 10^7: p99.9 = %d, want a few √a above a", n)
	}
}

// Sessions open at 2 a minute and last 20 minutes on average: 40 are open
// on average, and 55 are enough 99 % of the time.
func ExampleMMInf() {
	r, err := MMInf(context.Background(), 2, 0.05)
	if err != nil {
		panic(err)
	}
	fmt.Println(r.L, r.Percentile(0.99))
	// Output: 40 55
}
