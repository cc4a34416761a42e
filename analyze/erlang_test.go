package analyze

import (
	"math"
	"math/big"
	"testing"
	"time"
)

// bigErlangB runs Erlang B's recurrence in 256-bit floats.
func bigErlangB(c int, a float64) float64 {
	const prec = 256
	A := new(big.Float).SetPrec(prec).SetFloat64(a)
	b := new(big.Float).SetPrec(prec).SetInt64(1)
	num, den := new(big.Float).SetPrec(prec), new(big.Float).SetPrec(prec)
	for k := 1; k <= c; k++ {
		num.Mul(A, b)
		den.SetInt64(int64(k))
		den.Add(den, num)
		b.Quo(num, den)
	}
	f, _ := b.Float64()
	return f
}

// TestErlangBExact: Erlang B (and Erlang C from it) to a relative 1e-9 up
// to c = 10^6, below, near and above saturation.
func TestErlangBExact(t *testing.T) {
	for _, c := range []int{1, 10, 150, 1000, 100_000, 1_000_000} {
		for _, load := range []float64{0.5, 0.9, 0.999, 1.1} {
			a := load * float64(c)
			got, err := ErlangB(c, a)
			if err != nil {
				t.Fatal(err)
			}
			want := bigErlangB(c, a)
			if want < 1e-300 { // below float64's normal range: only "tiny" can be right
				if got > 1e-300 {
					t.Errorf("ErlangB(%d, %g) = %g, want < 1e-300 (exactly %g)", c, a, got, want)
				}
				continue
			}
			if rel := math.Abs(got-want) / want; rel > 1e-9 {
				t.Errorf("ErlangB(%d, %g) = %.15g, want %.15g (relative error %.2g)", c, a, got, want, rel)
			}
			if load < 1 {
				pc, _ := ErlangC(c, a)
				wantC := want / (1 - load*(1-want))
				if rel := math.Abs(pc-wantC) / wantC; rel > 1e-9 {
					t.Errorf("ErlangC(%d, %g) = %.15g, want %.15g", c, a, pc, wantC)
				}
			}
		}
	}
}

func TestInputErrors(t *testing.T) {
	tests := []struct {
		name string
		err  error
	}{
		{"negative lambda", func() error { _, err := MMc(-1, 1, 1); return err }()},
		{"zero servers", func() error { _, err := MMc(1, 1, 0); return err }()},
		{"NaN mu", func() error { _, err := MMc(1, math.NaN(), 2); return err }()},
		{"infinite load", func() error { _, err := ErlangB(3, math.Inf(1)); return err }()},
		{"K below c", func() error { _, err := MMcK(1, 1, 3, 2); return err }()},
		{"no target", func() error { _, _, err := Size(1, 1, Target{}); return err }()},
		{"two targets", func() error { _, _, err := Size(1, 1, Target{MaxPWait: 0.1, MaxWq: 1}); return err }()},
	}
	for _, tt := range tests {
		if tt.err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

// TestUnstable: ρ ≥ 1 is reported, not hidden.
func TestUnstable(t *testing.T) {
	r, err := MMc(10, 3, 3)
	if err != nil {
		t.Fatal(err)
	}
	if r.Stable || r.MinStable != 4 || r.Capacity != 9 {
		t.Errorf("MMc(10, 3, 3) = stable %v, capacity %v, min stable %d; want false, 9, 4", r.Stable, r.Capacity, r.MinStable)
	}
}

// TestMMcKAboveSaturation: finite capacity is exact near and above ρ = 1,
// where the closed forms cancel or overflow: ρ = 1 ± 1e-9 agree with the
// ρ = 1 limit L = N/2 (one server), and ρ = 1e3 with N = 10^4 fills it.
func TestMMcKAboveSaturation(t *testing.T) {
	for _, lambda := range []float64{1 - 1e-9, 1, 1 + 1e-9} {
		r, err := MM1N(lambda, 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.L-5) > 1e-6 {
			t.Errorf("MM1N(λ=%v, μ=1, N=10): L = %.12g, want 5 ± 1e-6", lambda, r.L)
		}
	}
	r, err := MM1N(1000, 1, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.L-(10_000-1.0/999)) > 1e-6 || math.IsNaN(r.W) {
		t.Errorf("MM1N(1000, 1, 10^4): L = %v, W = %v; want about N - 1/999", r.L, r.W)
	}
}

// TestSizeLinear: staffing at c around 10^6 finishes, and agrees with MMc
// at the answer and the one below it.
func TestSizeLinear(t *testing.T) {
	start := time.Now()
	c, rows, err := Size(1e6, 1, Target{MaxPWait: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Size(λ=10^6, μ=1, P(wait) ≤ 1%%) = %d in %v", c, time.Since(start))
	if rows[1].Servers != c || rows[1].PWait > 0.01 || rows[0].PWait <= 0.01 {
		t.Errorf("Size gave %d; P(wait) there %v and below %v, want ≤ 0.01 and > 0.01", c, rows[1].PWait, rows[0].PWait)
	}
}
