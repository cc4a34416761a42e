package analyze

import (
	"context"
	"errors"
	"math"
)

// MaxSCV bounds a squared coefficient of variation (MG1, GGc): MaxCV²,
// the most a lognormal service can have.
const MaxSCV = MaxCV * MaxCV

// MG1Result holds the steady-state measures of an M/G/1 queue: Poisson
// arrivals at λ, one server, service times of mean E[S] and squared
// coefficient of variation SCV. They are exact (Pollaczek–Khinchine).
// Times are in the unit of 1/λ.
type MG1Result struct {
	Lambda float64 `json:"lambda"`
	Mean   float64 `json:"mean"` // E[S]
	SCV    float64 `json:"scv"`  // Var(S)/E[S]²
	Rho    float64 `json:"rho"`  // λ·E[S], the server's utilisation
	Stable bool    `json:"stable"`
	// The measures below are zero when the queue is unstable, but PWait:
	// every arrival waits then, so it is 1.
	P0         float64 `json:"p0"`     // 1 − ρ
	PWait      float64 `json:"p_wait"` // ρ: Poisson arrivals see time averages
	Lq         float64 `json:"lq"`
	L          float64 `json:"l"`
	Wq         float64 `json:"wq"`
	W          float64 `json:"w"`
	Throughput float64 `json:"throughput"`
	// ThirdRatio is E[S³]/E[S]³ when the distribution is known (MG1Dist),
	// else 0; WqSD and WSD, the standard deviations of the wait and of the
	// time in system, are then set (Takács), else 0.
	ThirdRatio float64 `json:"third_ratio,omitempty"`
	WqSD       float64 `json:"wq_sd,omitempty"`
	WSD        float64 `json:"w_sd,omitempty"`
}

// MG1 computes the M/G/1 measures by the Pollaczek–Khinchine formula,
// Lq = ρ²(1 + SCV) / (2(1 − ρ)), and Little's law; exact for any service
// distribution with that mean and SCV. An unstable queue (ρ ≥ 1) is not
// an error: the result says Stable false. O(1). Errors wrap ErrInput for
// λ or the mean outside [MinRate, MaxRate], an SCV outside [0, MaxSCV] or
// a load λ·E[S] above MaxLoad; ctx.Err() when ctx is done.
func MG1(ctx context.Context, lambda, mean, scv float64) (MG1Result, error) {
	if err := checkGeneral(lambda, mean, scv); err != nil {
		return MG1Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return MG1Result{}, err
	}
	rho := lambda * mean
	r := MG1Result{Lambda: lambda, Mean: mean, SCV: scv, Rho: rho, PWait: 1}
	if rho >= 1 {
		return r, nil
	}
	r.Stable, r.P0, r.PWait, r.Throughput = true, 1-rho, rho, lambda
	r.Wq = rho * mean * (1 + scv) / (2 * (1 - rho))
	r.Lq = lambda * r.Wq
	r.W = r.Wq + mean
	r.L = lambda * r.W
	return r, nil
}

// MG1Dist is MG1 for a service distribution Simulate knows, which also
// gives the wait's spread: E[Wq²] = 2·Wq² + λ·E[S³]/(3(1 − ρ)) (Takács),
// and W = Wq + S with S independent of Wq. Errors as MG1's, and
// *OptionError for an invalid s.
func MG1Dist(ctx context.Context, lambda float64, s Service) (MG1Result, error) {
	if err := s.check(); err != nil {
		return MG1Result{}, err
	}
	r, err := MG1(ctx, lambda, s.MeanTime(), s.SCV())
	if err != nil || !r.Stable {
		return r, err
	}
	m := r.Mean
	r.ThirdRatio = s.ThirdRatio()
	// λ·E[S³] = ρ·E[S]²·ThirdRatio, which stays finite where E[S³] would not.
	varWq := r.Wq*r.Wq + r.Rho*m*m*r.ThirdRatio/(3*(1-r.Rho))
	r.WqSD = math.Sqrt(varWq)
	r.WSD = math.Sqrt(varWq + r.SCV*m*m)
	return r, nil
}

// checkGeneral checks λ, a mean service time, its SCV and their load.
func checkGeneral(lambda, mean, scv float64) error {
	if err := checkRate("lambda", lambda); err != nil {
		return err
	}
	if err := checkRate("mean", mean); err != nil {
		return err
	}
	if err := checkSCV("scv", scv); err != nil {
		return err
	}
	return checkLoad(lambda * mean)
}

// checkSCV rejects a squared coefficient of variation outside
// [0, MaxSCV], NaN included.
func checkSCV(name string, v float64) error {
	if !(v >= 0 && v <= MaxSCV) {
		return inputErr("%s = %v: want a squared coefficient of variation from 0 to %g", name, v, float64(MaxSCV))
	}
	return nil
}

// mg1Analytic is Simulate's analytic column for Poisson arrivals, one
// server, no capacity and any service: Pollaczek–Khinchine is exact there.
func mg1Analytic(ctx context.Context, o SimOptions) (name string, unstable bool, v [nMetrics]*float64, err error) {
	r, err := MG1Dist(ctx, o.Arrivals.Rate, o.Service)
	switch {
	case errors.Is(err, ErrInput) || (err == nil && !r.Stable):
		return "", err == nil, v, nil
	case err != nil:
		return "", false, v, err
	}
	return "M/G/1", false, pointers(r.W, r.Wq, r.L, r.Lq, r.Rho, r.PWait, math.NaN(), r.Throughput), nil
}
