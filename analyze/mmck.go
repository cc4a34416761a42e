package analyze

import (
	"context"
	"math"
)

// MMcKResult holds the measures of an M/M/c/K queue (K counts those in
// service): with finite room it is stable at any load.
type MMcKResult struct {
	Lambda        float64   `json:"lambda"`
	Mu            float64   `json:"mu"`
	Servers       int       `json:"servers"`
	Capacity      int       `json:"capacity"` // K
	Rho           float64   `json:"rho"`
	P0            float64   `json:"p0"`
	PK            float64   `json:"p_block"` // blocking probability: an arrival finds K
	LambdaEff     float64   `json:"lambda_eff"`
	L             float64   `json:"l"`
	Lq            float64   `json:"lq"`
	W             float64   `json:"w"`
	Wq            float64   `json:"wq"`
	Probabilities []float64 `json:"-"` // p_0..p_K
}

// MMcK computes the M/M/c/K measures from the state weights w_n = a^n/n!
// (n ≤ c) and a^c/c!·ρ^(n-c) (n > c), kept as logarithms and normalised by
// the largest: no closed form, so nothing to cancel near ρ = 1 and
// nothing to overflow above it (R's and Octave's closed forms fail there).
// O(K) time and one array of K+1; it returns ctx.Err() when ctx is
// cancelled, and ErrInput past the limits (MinRate, MaxRate, MaxLoad,
// MaxServers, MaxCapacity).
func MMcK(ctx context.Context, lambda, mu float64, c, k int) (MMcKResult, error) {
	if err := checkRates(lambda, mu); err != nil {
		return MMcKResult{}, err
	}
	if err := checkServers(c); err != nil {
		return MMcKResult{}, err
	}
	if err := checkCapacity(k, c); err != nil {
		return MMcKResult{}, err
	}
	a := lambda / mu
	rho := a / float64(c)
	p := make([]float64, k+1) // the log weights, then the probabilities
	top := 0.0
	for n := 1; n <= k; n++ {
		if err := stopped(ctx, n); err != nil {
			return MMcKResult{}, err
		}
		if n <= c {
			p[n] = p[n-1] + math.Log(a) - math.Log(float64(n))
		} else {
			p[n] = p[n-1] + math.Log(rho)
		}
		top = max(top, p[n])
	}
	// below is Σ p_n for n < K, summed apart so that 1 - PK keeps its
	// digits when nearly every arrival is blocked.
	sum, below := 0.0, 0.0
	for n, v := range p {
		p[n] = math.Exp(v - top)
		sum += p[n]
		if n < k {
			below += p[n]
		}
	}
	r := MMcKResult{Lambda: lambda, Mu: mu, Servers: c, Capacity: k, Rho: rho, Probabilities: p}
	for n := range p {
		p[n] /= sum
		r.L += float64(n) * p[n]
		if n > c {
			r.Lq += float64(n-c) * p[n]
		}
	}
	r.P0, r.PK = p[0], p[k]
	r.LambdaEff = lambda * (below / sum)
	r.W, r.Wq = r.L/r.LambdaEff, r.Lq/r.LambdaEff
	return r, nil
}

// MM1N is MMcK with one server and room for n (the one in service
// included).
func MM1N(ctx context.Context, lambda, mu float64, n int) (MMcKResult, error) {
	return MMcK(ctx, lambda, mu, 1, n)
}
