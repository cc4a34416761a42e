package analyze

import (
	"context"
	"math"
)

// MMcResult holds the steady-state measures of an M/M/c queue. Times are
// in the unit of 1/λ.
type MMcResult struct {
	Lambda  float64 `json:"lambda"`
	Mu      float64 `json:"mu"`
	Servers int     `json:"servers"`
	Load    float64 `json:"load"` // a = λ/μ, in Erlangs
	Rho     float64 `json:"rho"`  // a/c, the servers' utilisation
	Stable  bool    `json:"stable"`
	// Capacity is cμ, the most the servers can do; MinStable the fewest
	// servers with ρ < 1.
	Capacity  float64 `json:"capacity"`
	MinStable int     `json:"min_stable_servers"`
	// The measures below are zero when the queue is unstable, but PWait:
	// every arrival waits then, so it is 1.
	P0      float64 `json:"p0"`
	PWait   float64 `json:"p_wait"`   // Erlang C
	ErlangB float64 `json:"erlang_b"` // blocking with c servers and no queue
	// Log10P0, Log10PWait and Log10ErlangB are the decimal logarithms of
	// P0, PWait and ErlangB, exact also where those underflow float64 to 0.
	Log10P0      float64 `json:"log10_p0"`
	Log10PWait   float64 `json:"log10_p_wait"`
	Log10ErlangB float64 `json:"log10_erlang_b"`
	Lq           float64 `json:"lq"`
	L            float64 `json:"l"` // mean number in system ("Ls")
	Wq           float64 `json:"wq"`
	W            float64 `json:"w"` // mean time in system ("Ws")
	Throughput   float64 `json:"throughput"`
}

// MMc computes the M/M/c measures. P0 comes from Erlang C in log space,
// log P0 = log C + log(1-ρ) + lgamma(c+1) - c·log a, so it stays exact
// where a^c/c! overflows. An unstable queue (ρ ≥ 1) is not an error: the
// result says Stable false, with its capacity and MinStable. O(c); it
// returns ctx.Err() when ctx is cancelled, and ErrInput past the limits
// (MinRate, MaxRate, MaxLoad, MaxServers).
func MMc(ctx context.Context, lambda, mu float64, c int) (MMcResult, error) {
	if err := checkRates(lambda, mu); err != nil {
		return MMcResult{}, err
	}
	if err := checkServers(c); err != nil {
		return MMcResult{}, err
	}
	return mmc(ctx, lambda, mu, c)
}

// mmc is MMc on checked rates, for any c ≥ 1.
func mmc(ctx context.Context, lambda, mu float64, c int) (MMcResult, error) {
	a := lambda / mu
	b, err := erlangB(ctx, c, a)
	if err != nil {
		return MMcResult{}, err
	}
	lb := math.Log(b)
	if b < tinyB {
		if lb, err = logErlangB(ctx, c, a); err != nil {
			return MMcResult{}, err
		}
	}
	if a/float64(c) >= 1 {
		return MMcResult{Lambda: lambda, Mu: mu, Servers: c, Load: a, Rho: a / float64(c),
			Capacity: float64(c) * mu, MinStable: int(math.Floor(a)) + 1, ErlangB: b,
			PWait: 1, Log10ErlangB: lb / math.Ln10}, nil
	}
	r := mmcFromB(lambda, mu, c, b)
	r.Log10ErlangB = lb / math.Ln10
	r.Log10PWait = (lb - math.Log1p(-r.Rho*(1-b))) / math.Ln10
	return r, nil
}

func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

// WaitTail is P(Wq > t) = C·e^(-(cμ-λ)t) for a stable M/M/c queue.
func (r MMcResult) WaitTail(t float64) float64 {
	if !r.Stable {
		return 1
	}
	if t < 0 {
		return 1
	}
	return r.PWait * math.Exp(-(r.Capacity-r.Lambda)*t)
}

// WaitPercentile is the p-quantile of the waiting time (0 < p < 1): zero
// while p ≤ 1 - C (that share of arrivals does not wait), else
// ln(C/(1-p)) / (cμ - λ).
func (r MMcResult) WaitPercentile(p float64) float64 {
	if !r.Stable {
		return math.Inf(1)
	}
	if p <= 1-r.PWait {
		return 0
	}
	return math.Log(r.PWait/(1-p)) / (r.Capacity - r.Lambda)
}
