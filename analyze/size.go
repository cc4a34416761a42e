package analyze

import (
	"context"
	"fmt"
	"math"
)

// Target is what Size staffs for; set exactly one of its three goals.
type Target struct {
	MaxPWait     float64 // P(wait) ≤ MaxPWait
	MaxWq        float64 // mean wait ≤ MaxWq
	ServiceLevel float64 // P(Wq ≤ Within) ≥ ServiceLevel
	Within       float64
}

func (t Target) check() error {
	n := 0
	for _, v := range []float64{t.MaxPWait, t.MaxWq, t.ServiceLevel} {
		if math.IsNaN(v) || v < 0 {
			return inputErr("target %v: want a non-negative number", v)
		}
		if v > 0 {
			n++
		}
	}
	switch {
	case n != 1:
		return inputErr("want exactly one target (max P(wait), max Wq, or a service level)")
	case t.ServiceLevel >= 1 || t.MaxPWait >= 1:
		return inputErr("probability targets must be below 1")
	case t.ServiceLevel > 0 && !(t.Within >= 0):
		return inputErr("a service level needs a non-negative time to answer within")
	}
	return nil
}

// Met says whether r meets the target.
func (t Target) Met(r MMcResult) bool {
	switch {
	case !r.Stable:
		return false
	case t.MaxPWait > 0:
		return r.PWait <= t.MaxPWait
	case t.MaxWq > 0:
		return r.Wq <= t.MaxWq
	}
	return 1-r.WaitTail(t.Within) >= t.ServiceLevel
}

// Size returns the fewest servers that meet target for arrivals at λ and
// service at μ, with the measures at c-1 .. c+2 around it (c-1 left out
// when c is 1). The search starts at the smallest stable c and carries
// Erlang B's recurrence from one c to the next, so it is linear in c. It
// searches up to MaxServers: a load that needs more, or a target no c up
// to it meets, is ErrInput (ErrNoServers). It returns ctx.Err() when ctx
// is cancelled.
func Size(ctx context.Context, lambda, mu float64, target Target) (int, []MMcResult, error) {
	if err := checkRates(lambda, mu); err != nil {
		return 0, nil, err
	}
	if err := target.check(); err != nil {
		return 0, nil, err
	}
	a := lambda / mu
	if a >= MaxServers {
		return 0, nil, fmt.Errorf("load λ/μ = %g Erlangs: %w", a, ErrNoServers)
	}
	b := 1.0
	for c := 1; c <= MaxServers; c++ {
		if err := stopped(ctx, c); err != nil {
			return 0, nil, err
		}
		b = a * b / (float64(c) + a*b)
		if float64(c) <= a {
			continue
		}
		if target.Met(mmcFromB(lambda, mu, c, b)) {
			rows, err := around(ctx, lambda, mu, c)
			return c, rows, err
		}
	}
	return 0, nil, fmt.Errorf("the target: %w", ErrNoServers)
}

// ErrNoServers is Size's error when the answer would be more than
// MaxServers; it wraps ErrInput.
var ErrNoServers = fmt.Errorf("%w: it needs more than %d servers", ErrInput, MaxServers)

// mmcFromB is MMc given Erlang B, which the caller has carried.
func mmcFromB(lambda, mu float64, c int, b float64) MMcResult {
	a := lambda / mu
	r := MMcResult{Lambda: lambda, Mu: mu, Servers: c, Load: a, Rho: a / float64(c),
		Capacity: float64(c) * mu, MinStable: int(math.Floor(a)) + 1, ErlangB: b, Stable: true}
	r.PWait = erlangC(c, a, b)
	r.Lq = r.PWait * r.Rho / (1 - r.Rho)
	r.L, r.Wq = r.Lq+a, r.Lq/lambda
	r.W, r.Throughput = r.Wq+1/mu, lambda
	// P0 = (1/S)/(1 + B·ρ/(1-ρ)) with S = Σ_{k≤c} a^k/k! = a^c/(c!·B).
	// Where B is tiny, P(Poisson(a) > c) ≤ B·ρ/(1-ρ) is below float64's
	// resolution, so S = e^a exactly and P0 = e^-a; else 1/S in logs.
	lp0 := -a
	if b >= tinyB {
		lp0 = math.Log(b) + lgamma(float64(c)+1) - float64(c)*math.Log(a) - math.Log1p(b*r.Rho/(1-r.Rho))
	}
	r.P0, r.Log10P0 = math.Exp(lp0), lp0/math.Ln10
	r.Log10PWait = math.Log10(r.PWait)
	r.Log10ErlangB = math.Log10(b)
	return r
}

// around is MMc at c-1 .. c+2 (c+1 and c+2 may pass MaxServers: they
// only show what more servers would do).
func around(ctx context.Context, lambda, mu float64, c int) ([]MMcResult, error) {
	var rows []MMcResult
	for k := max(1, c-1); k <= c+2; k++ {
		r, err := mmc(ctx, lambda, mu, k)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}
