package analyze

import (
	"context"
	"math"

	"calq/sched/cq"
)

// ResizeResult is what the calendar queue's PRAM policy predicts for a
// queue of events pushed at rate λ and popped at rate μ (ρ = λ/μ), modelled
// as M/M/1/N: the number of pending events is the number in system.
type ResizeResult struct {
	Lambda   float64 `json:"lambda"`
	Mu       float64 `json:"mu"`
	Rho      float64 `json:"rho"`
	Capacity int     `json:"capacity"` // N, the most events the queue holds
	Buckets  int     `json:"buckets"`  // NB now
	Events   int     `json:"events"`   // NE now
	// L is the predicted mean number of pending events
	// (cq.MM1NMeanLength, the queue's own predictor).
	L float64 `json:"l"`
	// TargetBuckets is the NB a PRAM resize at Events would choose
	// (cq.PRAMBuckets).
	TargetBuckets int `json:"target_buckets"`
	// GrowAbove and ShrinkBelow are the triggers for Buckets: a resize
	// when NE > GrowAbove or NE < ShrinkBelow (-1: never shrinks).
	GrowAbove   int `json:"grow_above"`
	ShrinkBelow int `json:"shrink_below"`
	// Trigger is "grow", "shrink" or "none": what Events does now.
	Trigger string `json:"trigger"`
	// PGrow and PShrink are the steady-state probabilities of a size past
	// each trigger: P(NE > GrowAbove) and P(NE < ShrinkBelow).
	PGrow   float64 `json:"p_grow"`
	PShrink float64 `json:"p_shrink"`
	// UpCrossings is the steady-state rate at which NE steps from
	// GrowAbove to GrowAbove+1 (λ·p(GrowAbove)), DownCrossings the rate
	// from ShrinkBelow to ShrinkBelow-1 (μ·p(ShrinkBelow)); per unit time.
	UpCrossings   float64 `json:"up_crossings_per_time"`
	DownCrossings float64 `json:"down_crossings_per_time"`
	// TimeToResize is the expected time from Events until NE first
	// crosses a trigger (0 if it already has); nil when no trigger can be
	// reached (or the time overflows float64): the queue keeps its size.
	TimeToResize *float64 `json:"time_to_resize"`
}

// PredictResize applies the calendar queue's PRAM policy (see
// cq.PolicyPRAM) to a queue with nb buckets holding ne events, pushed
// at rate λ and popped at rate μ, with room for capacity events. ne < 0
// means the predicted mean L, rounded. The expected time to the next
// resize is the mean first-passage time of the birth-death chain out of
// [ShrinkBelow, GrowAbove], solved as a tridiagonal system in O(N). It
// returns ctx.Err() when ctx is cancelled, and ErrInput past the limits
// (MinRate, MaxRate, MaxLoad; MaxCapacity for both N and NB).
func PredictResize(ctx context.Context, lambda, mu float64, capacity, nb, ne int) (ResizeResult, error) {
	if err := checkRates(lambda, mu); err != nil {
		return ResizeResult{}, err
	}
	if err := checkCapacity(capacity, 1); err != nil {
		return ResizeResult{}, err
	}
	if nb < 1 || nb > MaxCapacity {
		return ResizeResult{}, inputErr("buckets = %d: want 1 to %d", nb, MaxCapacity)
	}
	rho := lambda / mu
	l := cq.MM1NMeanLength(rho, capacity)
	if ne < 0 {
		ne = int(math.Round(l))
	}
	if ne > capacity {
		return ResizeResult{}, inputErr("events = %d: more than the capacity %d", ne, capacity)
	}
	grow, shrink := cq.ResizeThresholds(cq.PolicyPRAM, nb)
	r := ResizeResult{Lambda: lambda, Mu: mu, Rho: rho, Capacity: capacity, Buckets: nb, Events: ne,
		L: l, TargetBuckets: cq.PRAMBuckets(rho, capacity, ne), GrowAbove: grow, ShrinkBelow: shrink,
		Trigger: "none"}
	switch {
	case ne > grow:
		r.Trigger = "grow"
	case ne < shrink:
		r.Trigger = "shrink"
	}
	q, err := MM1N(ctx, lambda, mu, capacity)
	if err != nil {
		return ResizeResult{}, err
	}
	p := q.Probabilities
	for n, pn := range p {
		if n > grow {
			r.PGrow += pn
		}
		if n < shrink {
			r.PShrink += pn
		}
	}
	if grow < capacity {
		r.UpCrossings = lambda * p[grow]
	}
	if shrink >= 1 && shrink <= capacity {
		r.DownCrossings = mu * p[shrink]
	}
	t, err := firstPassage(ctx, lambda, mu, capacity, shrink, grow, ne)
	if err != nil {
		return ResizeResult{}, err
	}
	if !math.IsInf(t, 0) && !math.IsNaN(t) {
		r.TimeToResize = &t
	}
	return r, nil
}

// firstPassage is the mean time for the M/M/1/N birth-death chain started
// at n0 to leave [lo, hi]: to reach hi+1 (if hi < N) or lo-1 (if lo ≥ 1).
// With T(n) the time from n, (λn+μn)·T(n) − λn·T(n+1) − μn·T(n−1) = 1 on
// the states inside, T = 0 outside; the ends reflect at 0 and N. +Inf when
// neither exit exists.
func firstPassage(ctx context.Context, lambda, mu float64, capacity, lo, hi, n0 int) (float64, error) {
	lo, hi = max(lo, 0), min(hi, capacity)
	if n0 < lo || n0 > hi {
		return 0, nil
	}
	canUp, canDown := hi < capacity, lo >= 1
	if !canUp && !canDown {
		return math.Inf(1), nil
	}
	// Thomas algorithm over the states lo..hi: sub-diagonal -μn,
	// diagonal λn+μn, super-diagonal -λn, right side 1.
	m := hi - lo + 1
	cp := make([]float64, m) // modified super-diagonal
	dp := make([]float64, m) // modified right side
	for i := range m {
		if err := stopped(ctx, i+1); err != nil {
			return 0, err
		}
		n := lo + i
		ln, mn := lambda, mu
		if n == capacity {
			ln = 0
		}
		if n == 0 {
			mn = 0
		}
		diag, sub, sup := ln+mn, -mn, -ln
		if i > 0 {
			den := diag - sub*cp[i-1]
			cp[i] = sup / den
			dp[i] = (1 - sub*dp[i-1]) / den
		} else {
			cp[i] = sup / diag
			dp[i] = 1 / diag
		}
	}
	t := dp[m-1]
	for i := m - 2; i >= n0-lo; i-- {
		t = dp[i] - cp[i]*t
	}
	return t, nil
}
