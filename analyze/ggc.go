package analyze

import "context"

// Names of GGc's approximations.
const (
	AllenCunneen = "Allen-Cunneen"
	Kingman      = "Kingman"
)

// GGcResult holds approximate steady-state measures of a G/G/c queue:
// arrivals at rate λ whose gaps have squared coefficient of variation
// Ca2, c servers, service times of mean E[S] and SCV. Times are in the
// unit of 1/λ.
type GGcResult struct {
	Lambda  float64 `json:"lambda"`
	Ca2     float64 `json:"ca2"`
	Mean    float64 `json:"mean"`
	SCV     float64 `json:"scv"`
	Servers int     `json:"servers"`
	Load    float64 `json:"load"` // a = λ·E[S], in Erlangs
	Rho     float64 `json:"rho"`  // a/c
	Stable  bool    `json:"stable"`
	// Capacity is c/E[S], the most the servers can do; MinStable the
	// fewest servers with ρ < 1.
	Capacity  float64 `json:"capacity"`
	MinStable int     `json:"min_stable_servers"`
	// Approximation is Kingman for c = 1, else AllenCunneen (Kingman's
	// formula is Allen–Cunneen's at c = 1). ExactFor names the model for
	// which these values are exact, if the arrivals are Poisson: "M/M/c"
	// when Ca2 = SCV = 1, "M/G/1" when Ca2 = 1 and c = 1; else "".
	Approximation string `json:"approximation"`
	ExactFor      string `json:"exact_for"`
	// Factor is (Ca2 + SCV)/2, what M/M/c's wait is multiplied by.
	Factor float64 `json:"factor"`
	// The measures below are zero when the queue is unstable, but PWait,
	// which is 1. PWait is M/M/c's Erlang C, the approximation's own.
	PWait      float64 `json:"p_wait"`
	MMcWq      float64 `json:"mmc_wq"` // M/M/c's Wq at the same λ and E[S]
	Lq         float64 `json:"lq"`
	L          float64 `json:"l"`
	Wq         float64 `json:"wq"`
	W          float64 `json:"w"`
	Throughput float64 `json:"throughput"`
}

// GGc approximates the G/G/c measures by Allen–Cunneen,
// Wq ≈ Wq(M/M/c) · (Ca2 + SCV)/2, with M/M/c's Wq from MMc (Erlang C in
// log space, so stable at any c up to MaxServers), and Little's law
// (Lq = λ·Wq, W = Wq + E[S], L = λ·W); at c = 1 this is Kingman's
// formula, Wq ≈ ρ/(1 − ρ) · (Ca2 + SCV)/2 · E[S]. It is exact for M/M/c
// and, at c = 1, for M/G/1 (Pollaczek–Khinchine); otherwise it is an
// approximation, best in heavy traffic. An unstable queue (ρ ≥ 1) is not
// an error: Stable false. O(c), ctx checked as MMc does; errors wrap
// ErrInput for λ or the mean outside [MinRate, MaxRate], Ca2 or SCV
// outside [0, MaxSCV], c outside [1, MaxServers], a load above MaxLoad.
func GGc(ctx context.Context, lambda, ca2, mean, scv float64, c int) (GGcResult, error) {
	if err := checkGeneral(lambda, mean, scv); err != nil {
		return GGcResult{}, err
	}
	if err := checkSCV("ca2", ca2); err != nil {
		return GGcResult{}, err
	}
	if err := checkServers(c); err != nil {
		return GGcResult{}, err
	}
	m, err := mmc(ctx, lambda, 1/mean, c)
	if err != nil {
		return GGcResult{}, err
	}
	r := GGcResult{Lambda: lambda, Ca2: ca2, Mean: mean, SCV: scv, Servers: c, Load: m.Load, Rho: m.Rho,
		Stable: m.Stable, Capacity: m.Capacity, MinStable: m.MinStable, Approximation: AllenCunneen,
		Factor: (ca2 + scv) / 2, PWait: m.PWait}
	switch {
	case c == 1:
		r.Approximation = Kingman
		if ca2 == 1 {
			r.ExactFor = "M/G/1"
		}
	case ca2 == 1 && scv == 1:
		r.ExactFor = "M/M/c"
	}
	if !r.Stable {
		return r, nil
	}
	r.MMcWq, r.Wq = m.Wq, m.Wq*r.Factor
	r.Lq, r.W = lambda*r.Wq, r.Wq+mean
	r.L, r.Throughput = lambda*r.W, lambda
	return r, nil
}
