package analyze

import (
	"context"
	"fmt"
	"math"
)

// ErlangAResult holds the steady-state measures of the Erlang A queue
// (M/M/c+M, Palm's model): Poisson arrivals at λ, c exponential servers
// at μ, and callers who each give up after an exponential patience of
// rate θ (mean 1/θ) if not yet served. Times are in the unit of 1/λ; every
// probability is per arrival.
type ErlangAResult struct {
	Lambda  float64 `json:"lambda"`
	Mu      float64 `json:"mu"`
	Theta   float64 `json:"theta"`
	Servers int     `json:"servers"`
	Load    float64 `json:"load"` // a = λ/μ, in Erlangs
	// Rho is the offered load per server, a/c: Erlang A is stable at any
	// ρ, those who wait too long leave.
	Rho float64 `json:"rho"`
	// Utilisation is the share of time a server is busy, Throughput/(cμ).
	Utilisation float64 `json:"utilisation"`
	PWait       float64 `json:"p_wait"`    // P(all c servers busy at arrival)
	PAbandon    float64 `json:"p_abandon"` // P(an arrival gives up)
	// PAbandonWaited is P(abandon | wait), PAbandon/PWait.
	PAbandonWaited float64 `json:"p_abandon_if_waited"`
	// Log10PWait and Log10PAbandon are exact where the values underflow.
	Log10PWait    float64 `json:"log10_p_wait"`
	Log10PAbandon float64 `json:"log10_p_abandon"`
	ErlangB       float64 `json:"erlang_b"` // blocking with c servers and no queue
	Lq            float64 `json:"lq"`
	L             float64 `json:"l"`
	// Wq is the mean time in queue over all arrivals (0 for those served
	// at once; until service or until giving up for the others): Lq/λ =
	// PAbandon/θ. WqServed and WqAbandoned are its means among those
	// served and among those who abandon.
	Wq          float64 `json:"wq"`
	WqServed    float64 `json:"wq_served"`
	WqAbandoned float64 `json:"wq_abandoned"`
	// W is the mean time in system of those served, WqServed + 1/μ.
	W           float64 `json:"w_served"`
	Throughput  float64 `json:"throughput"`   // served per unit time, λ(1-PAbandon)
	AbandonRate float64 `json:"abandon_rate"` // λ·PAbandon = θ·Lq

	// For the waiting time's distribution: ln A(x, y), ln A(x+1, y),
	// ln P(N = c) and ln P(N < c).
	lnA, lnA1, lnPc, lnBelow float64
}

// ErlangA computes the Erlang A measures exactly: the normalising weight
// of the states below c from Erlang B (in logs where it underflows), and
// the waiting states from the sums of aSeries, which is Palm's A(x, y) =
// x·e^y·y^-x·γ(x, y) with its weighted companions. θ > 0 makes it stable
// at any load. O(c + the sum's terms: about 9·√(cμ/θ), plus λ/θ - cμ/θ
// when λ > cμ); it returns ctx.Err() when ctx is cancelled, and ErrInput
// past the limits (MinRate, MaxRate, MaxLoad, MaxServers) or when θ is
// so small against the rates that the sum would take more than 10^8
// terms (θ → 0 is Erlang C, MMc, when ρ < 1).
func ErlangA(ctx context.Context, lambda, mu, theta float64, c int) (ErlangAResult, error) {
	if err := checkErlangA(lambda, mu, theta, c); err != nil {
		return ErlangAResult{}, err
	}
	return erlangA(ctx, lambda, mu, theta, c)
}

func checkErlangA(lambda, mu, theta float64, c int) error {
	if err := checkRates(lambda, mu); err != nil {
		return err
	}
	if err := checkRate("theta", theta); err != nil {
		return err
	}
	if err := checkServers(c); err != nil {
		return err
	}
	return checkAbandonTerms(lambda, mu, theta, c)
}

// checkAbandonTerms rejects a θ so small that the sums would take more
// than maxAbandonTerms terms.
func checkAbandonTerms(lambda, mu, theta float64, c int) error {
	if p := ThetaProblem(lambda, mu, theta, c); p != "" {
		return inputErr("theta = %g %s", theta, p)
	}
	return nil
}

// ThetaProblem says why θ is too small for ErlangA with these rates and
// c (its sums would take more than 10^8 terms), or "" when it is not;
// the rates themselves are checked by RateProblem.
func ThetaProblem(lambda, mu, theta float64, c int) string {
	x, y := float64(c)*mu/theta, lambda/theta
	if n := abandonTerms(x, y); !(n <= maxAbandonTerms) {
		return fmt.Sprintf("is too small for these rates: cμ/θ = %g and λ/θ = %g need about %.3g terms of the exact sum, more than the limit %g (θ → 0 is Erlang C: calq analyze mmc)",
			x, y, n, float64(maxAbandonTerms))
	}
	return ""
}

func erlangA(ctx context.Context, lambda, mu, theta float64, c int) (ErlangAResult, error) {
	a, fc := lambda/mu, float64(c)
	lnB, err := logErlangB(ctx, c, a)
	if err != nil {
		return ErlangAResult{}, err
	}
	x, y := fc*mu/theta, lambda/theta
	s, err := aSeries(ctx, x, y)
	if err != nil {
		return ErlangAResult{}, err
	}
	s1, err := aSeries(ctx, x+1, y)
	if err != nil {
		return ErlangAResult{}, err
	}
	// P(N < c) : P(N = c) = 1/B - 1 : 1, and P(N ≥ c) : P(N = c) = A : 1.
	b := math.Exp(lnB)
	lnBelow := math.Log1p(-b) - lnB
	lnPc := -logAddExp(lnBelow, s.lnA())
	// π_c·e^scale, the sums' factor, without subtracting the scale.
	pc := math.Exp(-logAddExp(lnBelow-s.scale, math.Log(s.s0)))
	r := ErlangAResult{Lambda: lambda, Mu: mu, Theta: theta, Servers: c, Load: a, Rho: a / fc,
		ErlangB: b, lnA: s.lnA(), lnA1: s1.lnA(), lnPc: lnPc, lnBelow: lnBelow}
	r.Log10PWait = (lnPc + s.lnA()) / math.Ln10
	r.PWait = math.Exp(lnPc + s.lnA())
	r.Lq = pc * s.s1
	r.PAbandon = theta * r.Lq / lambda
	r.Log10PAbandon = (lnPc + s.scale + math.Log(s.s1) - math.Log(y)) / math.Ln10
	r.Throughput = lambda * (1 - r.PAbandon)
	if r.Rho > 1 {
		// Overloaded, 1 - P(abandon) is the servers' busy share over ρ,
		// and the idle share is a short sum below c: no difference of
		// nearly equal numbers, and the utilisation stays below 1.
		idle, err := erlangAIdle(ctx, a, c, math.Exp(lnPc))
		if err != nil {
			return ErlangAResult{}, err
		}
		r.PAbandon = (1 - 1/r.Rho) + idle/r.Rho
		r.Log10PAbandon = math.Log10(r.PAbandon)
		r.Throughput = fc * mu * (1 - idle)
		r.Lq = lambda * r.PAbandon / theta
	}
	r.PAbandonWaited = math.Exp((r.Log10PAbandon - r.Log10PWait) * math.Ln10)
	r.Wq = r.Lq / lambda
	r.WqServed = pc * x * s.served / theta / (1 - r.PAbandon)
	// E[Wq; abandons]/P(abandon), with π_c cancelled: no underflow.
	r.WqAbandoned = s.abandoned * y / (theta * s.s1)
	if math.IsNaN(s.abandoned) {
		// Summed from its peak (λ well above cμ): the rest of Wq.
		r.WqAbandoned = (r.Wq - (1-r.PAbandon)*r.WqServed) / r.PAbandon
	}
	r.W = r.WqServed + 1/mu
	r.AbandonRate = lambda * r.PAbandon
	r.Utilisation = r.Throughput / (fc * mu)
	r.L = r.Lq + r.Throughput/mu
	return r, nil
}

// erlangAIdle is the servers' idle share, Σ_{n<c} (c-n)/c·π_n, from
// π_c down by π_{n-1} = π_n·n/a: when a > c the terms fall at least as
// fast as (c/a)^k, and it stops once they are below 1e-17 of the sum.
func erlangAIdle(ctx context.Context, a float64, c int, pc float64) (float64, error) {
	idle, w, fc := 0.0, pc, float64(c)
	for n := c - 1; n >= 0; n-- {
		if err := stopped(ctx, c-n); err != nil {
			return 0, err
		}
		w *= float64(n+1) / a
		d := (fc - float64(n)) / fc * w
		idle += d
		if d < 1e-17*idle {
			break
		}
	}
	return idle, nil
}
