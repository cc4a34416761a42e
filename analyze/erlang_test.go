package analyze

import (
	"fmt"
	"math"
	"math/big"
	"testing"
	"time"
)

// bigErlangB runs Erlang B's recurrence in 64-bit-mantissa floats (11 bits more than float64; a million roundings cost under 1e-13), whose exponent
// range holds values far below float64's (10^-54000 at c = 10^6).
func bigErlangB(c int, a float64) *big.Float {
	const prec = 64
	A := new(big.Float).SetPrec(prec).SetFloat64(a)
	b := new(big.Float).SetPrec(prec).SetInt64(1)
	num, den := new(big.Float).SetPrec(prec), new(big.Float).SetPrec(prec)
	for k := 1; k <= c; k++ {
		num.Mul(A, b)
		den.SetInt64(int64(k))
		// Adding a number 2^200 times smaller cannot change den at this
		// precision, and big.Float would shift a mantissa that far first.
		if num.MantExp(nil) > -200 {
			den.Add(den, num)
		}
		b.Quo(num, den)
	}
	return b
}

// bigLog is ln x for a positive big.Float, from its mantissa and exponent.
func bigLog(x *big.Float) float64 {
	m := new(big.Float)
	e := x.MantExp(m)
	f, _ := m.Float64()
	return math.Log(f) + float64(e)*math.Ln2
}

// TestErlangBExact: Erlang B (and Erlang C from it) to a relative 1e-9 up
// to c = 10^6, below, near and above saturation, against math/big; where B
// underflows float64, LogErlangB's ln B to an absolute 1e-9 (a relative
// 1e-9 of B itself).
func TestErlangBExact(t *testing.T) {
	for _, c := range []int{1, 10, 150, 1000, 100_000, 1_000_000} {
		for _, load := range []float64{0.01, 0.5, 0.9, 0.999, 1.1} {
			t.Run(fmt.Sprintf("c=%d/load=%g", c, load), func(t *testing.T) {
				t.Parallel()
				a := load * float64(c)
				got, err := ErlangB(t.Context(), c, a)
				if err != nil {
					t.Fatal(err)
				}
				exact := bigErlangB(c, a)
				lnWant := bigLog(exact)
				lnGot, err := LogErlangB(t.Context(), c, a)
				if err != nil {
					t.Fatal(err)
				}
				if d := math.Abs(lnGot - lnWant); d > 1e-9 {
					t.Errorf("LogErlangB(%d, %g) = %.15g, want %.15g (off by %.2g)", c, a, lnGot, lnWant, d)
				}
				want, _ := exact.Float64()
				if want < 1e-300 { // below float64's normal range: only "tiny" can be right
					if got > 1e-300 {
						t.Errorf("ErlangB(%d, %g) = %g, want < 1e-300 (exactly e^%g)", c, a, got, lnWant)
					}
					return
				}
				if rel := math.Abs(got-want) / want; rel > 1e-9 {
					t.Errorf("ErlangB(%d, %g) = %.15g, want %.15g (relative error %.2g)", c, a, got, want, rel)
				}
				if load < 1 {
					pc, _ := ErlangC(t.Context(), c, a)
					wantC := want / (1 - load*(1-want))
					if rel := math.Abs(pc-wantC) / wantC; rel > 1e-9 {
						t.Errorf("ErlangC(%d, %g) = %.15g, want %.15g", c, a, pc, wantC)
					}
				}
			})
		}
	}
}

// TestP0Underflow: P0 stays right where Erlang B underflows (a = 1 on
// 1000 servers: B ≈ 10^-2568, P0 = e^-1), and its log fields are finite.
func TestP0Underflow(t *testing.T) {
	for _, tt := range []struct {
		lambda float64
		c      int
	}{{1, 1000}, {5, 1_000_000}, {300, 2000}} {
		r, err := MMc(t.Context(), tt.lambda, 1, tt.c)
		if err != nil {
			t.Fatal(err)
		}
		if want := math.Exp(-tt.lambda); math.Abs(r.P0-want)/want > 1e-12 {
			t.Errorf("MMc(%g, 1, %d): P0 = %.15g, want e^-a = %.15g", tt.lambda, tt.c, r.P0, want)
		}
		lb, _ := LogErlangB(t.Context(), tt.c, tt.lambda)
		if math.Abs(r.Log10ErlangB-lb/math.Ln10) > 1e-9 || r.Log10PWait > -300 || math.IsInf(r.Log10PWait, 0) {
			t.Errorf("MMc(%g, 1, %d): log10 B = %g, log10 P(wait) = %g; want %g and a finite value below -300",
				tt.lambda, tt.c, r.Log10ErlangB, r.Log10PWait, lb/math.Ln10)
		}
	}
}

func TestInputErrors(t *testing.T) {
	tests := []struct {
		name string
		err  error
	}{
		{"negative lambda", func() error { _, err := MMc(t.Context(), -1, 1, 1); return err }()},
		{"zero servers", func() error { _, err := MMc(t.Context(), 1, 1, 0); return err }()},
		{"NaN mu", func() error { _, err := MMc(t.Context(), 1, math.NaN(), 2); return err }()},
		{"infinite load", func() error { _, err := ErlangB(t.Context(), 3, math.Inf(1)); return err }()},
		{"K below c", func() error { _, err := MMcK(t.Context(), 1, 1, 3, 2); return err }()},
		{"no target", func() error { _, _, err := Size(t.Context(), 1, 1, Target{}); return err }()},
		{"two targets", func() error { _, _, err := Size(t.Context(), 1, 1, Target{MaxPWait: 0.1, MaxWq: 1}); return err }()},
	}
	for _, tt := range tests {
		if tt.err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

// TestUnstable: ρ ≥ 1 is reported, not hidden.
func TestUnstable(t *testing.T) {
	r, err := MMc(t.Context(), 10, 3, 3)
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
		r, err := MM1N(t.Context(), lambda, 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.L-5) > 1e-6 {
			t.Errorf("MM1N(λ=%v, μ=1, N=10): L = %.12g, want 5 ± 1e-6", lambda, r.L)
		}
	}
	r, err := MM1N(t.Context(), 1000, 1, 10_000)
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
	c, rows, err := Size(t.Context(), 1e6, 1, Target{MaxPWait: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Size(λ=10^6, μ=1, P(wait) ≤ 1%%) = %d in %v", c, time.Since(start))
	if rows[1].Servers != c || rows[1].PWait > 0.01 || rows[0].PWait <= 0.01 {
		t.Errorf("Size gave %d; P(wait) there %v and below %v, want ≤ 0.01 and > 0.01", c, rows[1].PWait, rows[0].PWait)
	}
}
