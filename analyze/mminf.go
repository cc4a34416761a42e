package analyze

import (
	"context"
	"math"
)

// MMInfResult holds the measures of M/M/∞: every arrival is served at
// once, so the number in service N is Poisson with mean a = λ/μ.
type MMInfResult struct {
	Lambda     float64 `json:"lambda"`
	Mu         float64 `json:"mu"`
	Load       float64 `json:"load"` // a = λ/μ, the mean number in service
	L          float64 `json:"l"`
	Lq         float64 `json:"lq"` // 0: nobody waits
	W          float64 `json:"w"`  // 1/μ
	Wq         float64 `json:"wq"` // 0
	P0         float64 `json:"p0"` // e^-a
	Log10P0    float64 `json:"log10_p0"`
	Throughput float64 `json:"throughput"` // λ
}

// MMInf computes the M/M/∞ measures: L = a, W = 1/μ, nothing waits, and
// P(N = n) is Poisson's. It returns ErrInput past the limits (MinRate,
// MaxRate, and a at most MaxPoissonMean, so that the distribution's
// percentiles stay cheap: O(√a) each). ctx is taken for the convention:
// nothing here loops over a size.
func MMInf(ctx context.Context, lambda, mu float64) (MMInfResult, error) {
	if err := checkRate("lambda", lambda); err != nil {
		return MMInfResult{}, err
	}
	if err := checkRate("mu", mu); err != nil {
		return MMInfResult{}, err
	}
	a := lambda / mu
	if !(a <= MaxPoissonMean) {
		return MMInfResult{}, inputErr("load λ/μ = %v: want at most %d, the mean number in service", a, MaxPoissonMean)
	}
	if err := ctx.Err(); err != nil {
		return MMInfResult{}, err
	}
	return MMInfResult{Lambda: lambda, Mu: mu, Load: a, L: a, W: 1 / mu, P0: math.Exp(-a),
		Log10P0: -a / math.Ln10, Throughput: lambda}, nil
}

// P is P(N = n), from logs: n·ln a - a - ln n!.
func (r MMInfResult) P(n int) float64 {
	if n < 0 {
		return 0
	}
	return math.Exp(float64(n)*math.Log(r.Load) - r.Load - lgamma(float64(n)+1))
}

// AtMost is P(N ≤ n) = Q(n+1, a), the regularised upper incomplete gamma
// function, taken from whichever side of it keeps its digits.
func (r MMInfResult) AtMost(n int) float64 {
	if n < 0 {
		return 0
	}
	s := float64(n) + 1
	if r.Load < s+1 {
		return 1 - gammaSeries(s, r.Load)
	}
	return gammaCF(s, r.Load)
}

// Percentile is the smallest n with P(N ≤ n) ≥ p (0 < p < 1): at most n
// are in service a share p of the time (a pool of n servers is that
// often enough). Bisection over n, O(√a·log a).
func (r MMInfResult) Percentile(p float64) int {
	lo, hi := 0, int(r.Load+40*math.Sqrt(r.Load)+50)
	for lo < hi {
		mid := lo + (hi-lo)/2
		if r.AtMost(mid) >= p {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}
