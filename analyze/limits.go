package analyze

import (
	"context"
	"fmt"
	"math"
)

// The limits every calculator checks before it starts, so that its work
// and memory are bounded whatever it is asked: each is far past real use.
const (
	// MaxServers bounds c (mmc, erlang, size's answer, mmck, simulate):
	// Erlang B is O(c), 10^7 servers about 0.15 s.
	MaxServers = 10_000_000
	// MaxCapacity bounds K and N (mmck, mm1n, resize, simulate): the
	// state probabilities are an array of K+1.
	MaxCapacity = 10_000_000
	// MinRate and MaxRate bound every rate, mean time and interval:
	// products and quotients of three of them stay inside float64, so no
	// measure overflows to ∞ or underflows a rate to 0.
	MinRate, MaxRate = 1e-100, 1e100
	// MaxLoad bounds the offered load λ/μ in Erlangs: the smallest stable
	// c, ⌊a⌋+1, stays an exact integer.
	MaxLoad = 1e15
	// MaxCustomers bounds simulate's customers per replication (a line
	// that grows without bound holds them all), MaxReplications its
	// replications and MaxSimulated their product: about 2·10^9 events,
	// minutes of work.
	MaxCustomers    = 10_000_000
	MaxReplications = 10_000
	MaxSimulated    = 1_000_000_000
	// MaxCV bounds lognormal service's coefficient of variation: σ² =
	// ln(1+CV²) ≤ 14 keeps its draws finite.
	MaxCV = 1000
	// MaxTraceBytes bounds a trace file, which must be a regular file:
	// room for MaxCustomers times with comments, a second or two to read.
	MaxTraceBytes = 1 << 30
	// MaxPoissonMean bounds poisson's mean λt, MaxPoissonRow the rows it
	// prints (--from, --to): twice the largest mean, past its upper tail;
	// MaxPoissonRows how many rows it prints (32 bytes each in memory).
	MaxPoissonMean = 10_000_000
	MaxPoissonRow  = 20_000_000
	MaxPoissonRows = 1_000_000
	// MaxConfidence bounds history's confidence level: at 1 - 10^-9 the
	// upper quantile 1 - α/2 still differs from 1 in float64.
	MaxConfidence = 1 - 1e-9
)

// checkEvery is how many steps a long loop takes between looks at its
// context: a branch a step, and a cancel is seen within a millisecond.
const checkEvery = 1 << 14

// stopped returns ctx.Err() on every checkEvery-th step i, else nil.
func stopped(ctx context.Context, i int) error {
	if i%checkEvery != 0 {
		return nil
	}
	return ctx.Err()
}

// InRange says whether v is a rate, mean or interval the calculators
// take: finite, in [MinRate, MaxRate].
func InRange(v float64) bool { return v >= MinRate && v <= MaxRate }

// RateProblem says what is wrong with v as a rate, mean or interval
// ("-1 is not a positive number", "1e+300 is outside the limits 1e-100
// to 1e+100"), or "" when InRange(v).
func RateProblem(v float64) string {
	switch {
	case InRange(v):
		return ""
	case !(v > 0):
		return fmt.Sprintf("%v is not a positive number", v)
	}
	return fmt.Sprintf("%v is outside the limits %g to %g", v, MinRate, MaxRate)
}

// checkRate rejects a rate or time outside [MinRate, MaxRate], NaN and
// the infinities included.
func checkRate(name string, v float64) error {
	if p := RateProblem(v); p != "" {
		return inputErr("%s = %s", name, p)
	}
	return nil
}

// checkRates checks λ and μ and their offered load λ/μ.
func checkRates(lambda, mu float64) error {
	if err := checkRate("lambda", lambda); err != nil {
		return err
	}
	if err := checkRate("mu", mu); err != nil {
		return err
	}
	return checkLoad(lambda / mu)
}

// checkLoad rejects an offered load above MaxLoad Erlangs.
func checkLoad(a float64) error {
	if !(a > 0 && a <= MaxLoad) || math.IsInf(a, 0) {
		return inputErr("load λ/μ = %v: want at most %g Erlangs", a, float64(MaxLoad))
	}
	return nil
}

// checkServers rejects c outside [1, MaxServers].
func checkServers(c int) error {
	if c < 1 || c > MaxServers {
		return inputErr("servers = %d: want 1 to %d", c, MaxServers)
	}
	return nil
}

// checkCapacity rejects k outside [c, MaxCapacity].
func checkCapacity(k, c int) error {
	if k < c || k > MaxCapacity {
		return inputErr("capacity = %d: want %d to %d", k, c, MaxCapacity)
	}
	return nil
}
