package analyze

import "math"

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
// O(K).
func MMcK(lambda, mu float64, c, k int) (MMcKResult, error) {
	if err := checkRate("lambda", lambda); err != nil {
		return MMcKResult{}, err
	}
	if err := checkRate("mu", mu); err != nil {
		return MMcKResult{}, err
	}
	if c < 1 {
		return MMcKResult{}, inputErr("servers = %d: want at least 1", c)
	}
	if k < c {
		return MMcKResult{}, inputErr("capacity = %d: want at least the %d servers", k, c)
	}
	a := lambda / mu
	rho := a / float64(c)
	logw := make([]float64, k+1)
	for n := 1; n <= k; n++ {
		if n <= c {
			logw[n] = logw[n-1] + math.Log(a) - math.Log(float64(n))
		} else {
			logw[n] = logw[n-1] + math.Log(rho)
		}
	}
	top := logw[0]
	for _, v := range logw {
		top = max(top, v)
	}
	p := make([]float64, k+1)
	sum := 0.0
	for n, v := range logw {
		p[n] = math.Exp(v - top)
		sum += p[n]
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
	r.LambdaEff = lambda * (1 - r.PK)
	r.W, r.Wq = r.L/r.LambdaEff, r.Lq/r.LambdaEff
	return r, nil
}

// MM1N is MMcK with one server and room for n (the one in service
// included).
func MM1N(lambda, mu float64, n int) (MMcKResult, error) { return MMcK(lambda, mu, 1, n) }
