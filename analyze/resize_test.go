package analyze

import (
	"math"
	"testing"

	"calq/sched/cq"
)

// TestFirstPassage checks the tridiagonal solve against two closed forms:
// the symmetric walk absorbed at both ends (mean steps (n0-a)(b-n0), each
// step taking 1/(λ+μ)), and the climb from 0 with a reflecting floor,
// where the time to go from k to k+1 is E_k = 1/λ + (μ/λ)·E_{k-1}.
func TestFirstPassage(t *testing.T) {
	// Absorbed below lo and above hi: a = lo-1, b = hi+1.
	for _, tt := range []struct{ lo, hi, n0 int }{{5, 20, 5}, {5, 20, 12}, {1, 1, 1}, {100, 1000, 300}} {
		got, _ := firstPassage(t.Context(), 1, 1, 1_000_000, tt.lo, tt.hi, tt.n0)
		a, b := float64(tt.lo-1), float64(tt.hi+1)
		want := (float64(tt.n0) - a) * (b - float64(tt.n0)) / 2
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("symmetric walk in [%d, %d] from %d: %v, want %v", tt.lo, tt.hi, tt.n0, got, want)
		}
	}
	for _, tt := range []struct{ lambda, mu float64 }{{1, 1}, {0.7, 1}, {2, 1}, {1, 3}} {
		const hi = 40
		want, e := 0.0, 0.0
		for k := 0; k <= hi; k++ {
			e = 1/tt.lambda + tt.mu/tt.lambda*e
			want += e
		}
		got, _ := firstPassage(t.Context(), tt.lambda, tt.mu, 1000, -1, hi, 0)
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("λ=%v μ=%v, from 0 past %d: %v, want %v", tt.lambda, tt.mu, hi, got, want)
		}
	}
	if got, _ := firstPassage(t.Context(), 1, 1, 50, -1, 50, 10); !math.IsInf(got, 1) {
		t.Errorf("no exit: got %v, want +Inf", got)
	}
	if got, _ := firstPassage(t.Context(), 1, 1, 50, 5, 20, 30); got != 0 {
		t.Errorf("already outside: got %v, want 0", got)
	}
}

// TestPredictResizeMatchesQueue: the calculator reports the queue's own
// predictor and triggers, so the two cannot disagree.
func TestPredictResizeMatchesQueue(t *testing.T) {
	for _, tt := range []struct {
		lambda, mu float64
		n, nb, ne  int
		trigger    string
	}{
		{0.9, 1, 100_000, 64, -1, "none"},
		{1.2, 1, 100_000, 4096, 10_000, "none"},
		{1.2, 1, 100_000, 1024, 10_000, "grow"},
		{0.5, 1, 100_000, 4096, 100, "shrink"},
	} {
		r, err := PredictResize(t.Context(), tt.lambda, tt.mu, tt.n, tt.nb, tt.ne)
		if err != nil {
			t.Fatal(err)
		}
		rho := tt.lambda / tt.mu
		grow, shrink := cq.ResizeThresholds(cq.PolicyPRAM, tt.nb)
		if r.L != cq.MM1NMeanLength(rho, tt.n) || r.GrowAbove != grow || r.ShrinkBelow != shrink ||
			r.TargetBuckets != cq.PRAMBuckets(rho, tt.n, r.Events) || r.Trigger != tt.trigger {
			t.Errorf("%+v: got L %v, triggers %d/%d, target %d, trigger %q", tt, r.L, r.GrowAbove, r.ShrinkBelow, r.TargetBuckets, r.Trigger)
		}
		if (r.Trigger != "none") != (r.TimeToResize != nil && *r.TimeToResize == 0) {
			t.Errorf("%+v: trigger %q but time to resize %v", tt, r.Trigger, r.TimeToResize)
		}
		if r.PGrow < 0 || r.PGrow > 1 || r.PShrink < 0 || r.PShrink > 1 {
			t.Errorf("%+v: probabilities %v, %v", tt, r.PGrow, r.PShrink)
		}
	}
	// A growing queue drifts up at λ-μ: the time to pass the trigger is
	// about the distance over the drift.
	r, _ := PredictResize(t.Context(), 1.2, 1, 100_000, 4096, 10_000)
	if want := float64(r.GrowAbove+1-10_000) / 0.2; math.Abs(*r.TimeToResize-want) > 1e-3*want {
		t.Errorf("drift: time to resize %v, want about %v", *r.TimeToResize, want)
	}
	// At the smallest calendar, with room below the grow trigger, nothing
	// can trigger.
	r, _ = PredictResize(t.Context(), 1, 1, 100, cq.MinBuckets, 10)
	if r.TimeToResize != nil {
		t.Errorf("no reachable trigger: time to resize %v, want nil", *r.TimeToResize)
	}
	if _, err := PredictResize(t.Context(), 1, 1, 10, 64, 11); err == nil {
		t.Error("events above capacity: no error")
	}
}

// TestPoisson: the table sums to 1, both tails agree with each other, and
// a known value (λt = 3, n = 3: 4.5·e^-3) is exact; the tails keep their
// digits far out.
func TestPoisson(t *testing.T) {
	rows, err := Poisson(t.Context(), 2, 1.5, -1, -1)
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].N != 0 || rows[3].N != 3 || math.Abs(rows[3].P-4.5*math.Exp(-3)) > 1e-15 {
		t.Errorf("rows %+v", rows[:4])
	}
	for _, r := range rows {
		if math.Abs(r.AtMost+r.More-1) > 1e-12 {
			t.Errorf("n=%d: P(N ≤ n) + P(N > n) = %v", r.N, r.AtMost+r.More)
		}
	}
	if last := rows[len(rows)-1]; last.More >= 1e-6 || last.More+last.P < 1e-6 {
		t.Errorf("last row %+v: want the upper tail to pass 1e-6 there", last)
	}
	// P(N > 30) for mean 3, summed exactly: about 1.7e-20.
	far, _ := Poisson(t.Context(), 3, 1, 30, 30)
	want := 0.0
	for n := 31; n < 200; n++ {
		want += math.Exp(float64(n)*math.Log(3) - 3 - lgamma(float64(n)+1))
	}
	if math.Abs(far[0].More-want) > 1e-12*want {
		t.Errorf("P(N > 30) = %v, want %v", far[0].More, want)
	}
	big, err := Poisson(t.Context(), 1e6, 1, -1, -1)
	if err != nil {
		t.Fatal(err)
	}
	mid := big[len(big)/2]
	if math.Abs(float64(mid.N)-1e6) > 50 || math.Abs(mid.AtMost-0.5) > 0.01 {
		t.Errorf("mean 10^6: middle row %+v", mid)
	}
	for _, bad := range [][2]float64{{-1, 1}, {1, 0}, {math.NaN(), 1}, {1e8, 1}} {
		if _, err := Poisson(t.Context(), bad[0], bad[1], -1, -1); err == nil {
			t.Errorf("Poisson(%v, %v): no error", bad[0], bad[1])
		}
	}
}
