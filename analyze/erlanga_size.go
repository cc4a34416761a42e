package analyze

import (
	"context"
	"fmt"
	"math"
)

// ErlangATarget is what SizeErlangA staffs for: every goal set (non-zero)
// must be met, and at least one must be set.
type ErlangATarget struct {
	// ServiceLevel: ServiceLevel(Within) ≥ ServiceLevel, the share of all
	// arrivals answered within Within (pyworkforce's service level).
	ServiceLevel float64 `json:"service_level,omitempty"`
	Within       float64 `json:"within,omitempty"`
	MaxAbandon   float64 `json:"max_abandon,omitempty"` // PAbandon ≤ MaxAbandon
	MaxPWait     float64 `json:"max_p_wait,omitempty"`  // PWait ≤ MaxPWait
	MaxWq        float64 `json:"max_wq,omitempty"`      // Wq (all arrivals) ≤ MaxWq
	// MaxUtilisation: Utilisation ≤ MaxUtilisation (pyworkforce's
	// max_occupancy), in (0, 1].
	MaxUtilisation float64 `json:"max_utilisation,omitempty"`
}

func (t ErlangATarget) check() error {
	n := 0
	for _, g := range []struct {
		name string
		v    float64
		prob bool
	}{{"service level", t.ServiceLevel, true}, {"max P(abandon)", t.MaxAbandon, true},
		{"max P(wait)", t.MaxPWait, true}, {"max Wq", t.MaxWq, false}, {"max utilisation", t.MaxUtilisation, false}} {
		switch {
		case math.IsNaN(g.v) || g.v < 0 || g.v > MaxRate:
			return inputErr("%s = %v: want a non-negative number", g.name, g.v)
		case g.prob && g.v >= 1:
			return inputErr("%s = %v: want a probability below 1", g.name, g.v)
		case g.v > 0:
			n++
		}
	}
	switch {
	case n == 0:
		return inputErr("no target: want a service level, a max P(abandon), P(wait), Wq or utilisation")
	case t.MaxUtilisation > 1:
		return inputErr("max utilisation = %v: want at most 1", t.MaxUtilisation)
	case t.ServiceLevel > 0 && !(t.Within >= 0 && t.Within <= MaxRate):
		return inputErr("a service level needs a time from 0 to %g to answer within, not %v", MaxRate, t.Within)
	}
	return nil
}

// Met says whether r meets every goal of t.
func (t ErlangATarget) Met(r ErlangAResult) bool {
	return (t.MaxAbandon == 0 || r.PAbandon <= t.MaxAbandon) &&
		(t.MaxPWait == 0 || r.PWait <= t.MaxPWait) &&
		(t.MaxWq == 0 || r.Wq <= t.MaxWq) &&
		(t.MaxUtilisation == 0 || r.Utilisation <= t.MaxUtilisation) &&
		(t.ServiceLevel == 0 || r.ServiceLevel(t.Within) >= t.ServiceLevel)
}

// SizeErlangA returns the fewest servers c for which Erlang A meets
// target, with the measures at c. Every goal improves as c grows (P(wait),
// P(abandon), Wq and utilisation fall, the service level rises), so it
// doubles c until the target is met and then bisects: O(c·log c) with
// ErlangA's cost per step. A target no c up to MaxServers meets is
// ErrNoServers (it wraps ErrInput); it returns ctx.Err() when cancelled.
func SizeErlangA(ctx context.Context, lambda, mu, theta float64, target ErlangATarget) (int, ErlangAResult, error) {
	if err := checkRates(lambda, mu); err != nil {
		return 0, ErlangAResult{}, err
	}
	if err := checkRate("theta", theta); err != nil {
		return 0, ErlangAResult{}, err
	}
	if err := target.check(); err != nil {
		return 0, ErlangAResult{}, err
	}
	met := func(c int) (bool, ErlangAResult, error) {
		if err := checkAbandonTerms(lambda, mu, theta, c); err != nil {
			return false, ErlangAResult{}, err
		}
		r, err := erlangA(ctx, lambda, mu, theta, c)
		return err == nil && target.Met(r), r, err
	}
	lo, hi := 0, 1 // the target is not met at lo (0 stands for none), is at hi
	for {
		ok, _, err := met(hi)
		if err != nil {
			return 0, ErlangAResult{}, err
		}
		if ok {
			break
		}
		if hi == MaxServers {
			return 0, ErlangAResult{}, fmt.Errorf("the target: %w", ErrNoServers)
		}
		lo, hi = hi, min(2*hi, MaxServers)
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		ok, _, err := met(mid)
		if err != nil {
			return 0, ErlangAResult{}, err
		}
		if ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	_, r, err := met(hi)
	return hi, r, err
}
