package analyze

import (
	"context"
	"math"
)

// The waiting time in Erlang A. Let V be the offered wait, the time an
// arrival would wait if it never gave up, and τ its patience (exponential,
// rate θ): it is served if V ≤ τ, and waits W = min(V, τ). Given that it
// must wait, V has the density
//
//	f(v) ∝ cμ·exp(-cμ·v + (λ/θ)(1 - e^(-θv)))
//
// (Erlang C's C·(cμ-λ)·e^(-(cμ-λ)v) as θ → 0), whose tail and tilted tail
// are ratios of incomplete gamma functions (Mandelbaum and Zeltyn), here
// with U = e^(-θt):
//
//	P(V > t)         = P(wait)·e^(-cμt + y(1-U))·A(x, yU)/A(x, y)
//	P(served, V > t) = (P(wait) - P(abandon))·e^(-(cμ+θ)t + y(1-U))·A(x+1, yU)/A(x+1, y)
//
// (x = cμ/θ, y = λ/θ). ServiceLevel and its companions are these; each
// sums aSeries twice, on arguments no larger than ErlangA's own, so their
// work is bounded by ErlangA's checks.

// ServiceLevel is P(served and waited at most t), among all arrivals:
// the share of arrivals answered within t, as pyworkforce's
// ErlangA.service_level and call-centre practice count it (an arrival
// who gives up within t is not answered within t). It is 1 - PWait at
// t = 0 and tends to 1 - PAbandon as t grows; t < 0 is 0. It is summed
// as P(no wait) + P(served, wait; V ≤ t), every part positive, so that
// it keeps its digits where it is small (an overloaded pool).
func (r ErlangAResult) ServiceLevel(t float64) float64 {
	if t < 0 || math.IsNaN(t) {
		return 0
	}
	// P(served, wait) is PWait - PAbandon, or where that would cancel,
	// π_c·x/(x+1)·A(x+1, y) (whose logarithms are large in heavy
	// traffic, so it is the second choice).
	x := r.x()
	served := r.PWait - r.PAbandon
	if r.PAbandon > r.PWait/2 {
		served = math.Exp(r.lnPc + math.Log(x/(x+1)) + r.lnA1)
	}
	return math.Min(1, r.noWait()+served*r.within(t, x+1, r.lnA1, r.Theta*t))
}

// ServedWithin is P(waited at most t | served), ServiceLevel among those
// served only.
func (r ErlangAResult) ServedWithin(t float64) float64 {
	return math.Min(1, r.ServiceLevel(t)/(1-r.PAbandon))
}

// WaitWithin is P(Wq ≤ t) among all arrivals, the time in queue whether
// it ended in service or in giving up: P(no wait) + P(wait)·(1 -
// e^(-θt)·P(V > t | wait)).
func (r ErlangAResult) WaitWithin(t float64) float64 {
	if t < 0 || math.IsNaN(t) {
		return 0
	}
	return math.Min(1, r.noWait()+r.PWait*r.within(t, r.x(), r.lnA, r.Theta*t))
}

// noWait is P(N < c), 1 - PWait with its digits where PWait is near 1.
func (r ErlangAResult) noWait() float64 { return math.Exp(r.lnPc + r.lnBelow) }

// within is 1 - e^(-cμt + y(1-U) - extra)·A(z, yU)/e^lnAz, U = e^(-θt):
// with z = x it is P(V ≤ t | wait) (extra 0), with z = x+1 and extra θt
// P(V ≤ t | served, wait); expm1 keeps its digits near t = 0.
func (r ErlangAResult) within(t, z, lnAz, extra float64) float64 {
	if math.IsInf(t, 1) {
		return 1
	}
	y := r.Lambda / r.Theta
	g := -float64(r.Servers)*r.Mu*t - y*math.Expm1(-r.Theta*t) - extra
	s, err := aSeries(context.Background(), z, y*math.Exp(-r.Theta*t))
	if err != nil {
		return math.NaN()
	}
	// In heavy traffic ln A is large and its last digits are noise of
	// about 1e-16·ln A; the ratio is at most 1.
	return math.Max(0, -math.Expm1(g+s.lnA()-lnAz))
}

func (r ErlangAResult) x() float64 { return float64(r.Servers) * r.Mu / r.Theta }
