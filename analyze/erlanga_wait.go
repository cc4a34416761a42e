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
// t = 0 and tends to 1 - PAbandon as t grows; t < 0 is 0.
func (r ErlangAResult) ServiceLevel(t float64) float64 {
	if t < 0 || math.IsNaN(t) {
		return 0
	}
	return math.Max(0, 1-r.PAbandon-r.servedAfter(t))
}

// ServedWithin is P(waited at most t | served), ServiceLevel among those
// served only.
func (r ErlangAResult) ServedWithin(t float64) float64 {
	return math.Min(1, r.ServiceLevel(t)/(1-r.PAbandon))
}

// WaitWithin is P(Wq ≤ t) among all arrivals, the time in queue whether
// it ended in service or in giving up: 1 - e^(-θt)·P(V > t).
func (r ErlangAResult) WaitWithin(t float64) float64 {
	if t < 0 || math.IsNaN(t) {
		return 0
	}
	return 1 - math.Exp(-r.Theta*t)*r.offeredAfter(t)
}

// offeredAfter is P(V > t), the offered wait's tail.
func (r ErlangAResult) offeredAfter(t float64) float64 {
	g, yu, ok := r.tailExp(t)
	if !ok {
		return 0
	}
	s, err := aSeries(context.Background(), r.x(), yu)
	if err != nil {
		return math.NaN()
	}
	return r.PWait * math.Exp(g+s.lnA()-r.lnA)
}

// servedAfter is P(served, V > t).
func (r ErlangAResult) servedAfter(t float64) float64 {
	g, yu, ok := r.tailExp(t)
	if !ok {
		return 0
	}
	s, err := aSeries(context.Background(), r.x()+1, yu)
	if err != nil {
		return math.NaN()
	}
	return (r.PWait - r.PAbandon) * math.Exp(g-r.Theta*t+s.lnA()-r.lnA1)
}

func (r ErlangAResult) x() float64 { return float64(r.Servers) * r.Mu / r.Theta }

// tailExp is -cμt + y(1-U) and yU for t; ok is false when t is so large
// that the tail is 0 (or t is infinite).
func (r ErlangAResult) tailExp(t float64) (g, yu float64, ok bool) {
	if math.IsInf(t, 1) {
		return 0, 0, false
	}
	y := r.Lambda / r.Theta
	g = -float64(r.Servers)*r.Mu*t - y*math.Expm1(-r.Theta*t)
	return g, y * math.Exp(-r.Theta*t), true
}
