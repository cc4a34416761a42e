package analyze

import (
	"context"
	"fmt"
)

// MaxClasses bounds the priority classes of Priority, and MaxPriorityWork
// the product K·c of the preemptive model on c > 1 servers, which
// evaluates one M/M/c, O(c), per class: about as long as one M/M/c at
// c = 10^8 (seconds).
const (
	MaxClasses      = 100
	MaxPriorityWork = 100_000_000
)

// PriorityOptions are Priority's inputs.
type PriorityOptions struct {
	// Lambdas are the classes' arrival rates, highest priority first.
	Lambdas []float64
	// Mus are the service rates: one for every class, or one per class.
	// Per-class rates that differ need Servers = 1 (see Priority).
	Mus        []float64
	Servers    int
	Preemptive bool // preemptive-resume; else non-preemptive (head of the line)
}

// PriorityClass is one class's measures. Rho is its own load λ/(cμ), Sigma
// the load of it and every class above it; the class is stable when
// Sigma < 1, and its times and numbers are zero when it is not. In the
// preemptive model Wq is W - 1/μ: all the time not in service, the
// interruptions included.
type PriorityClass struct {
	Lambda float64 `json:"lambda"`
	Mu     float64 `json:"mu"`
	Rho    float64 `json:"rho"`
	Sigma  float64 `json:"sigma"`
	Stable bool    `json:"stable"`
	Wq     float64 `json:"wq"`
	W      float64 `json:"w"`
	Lq     float64 `json:"lq"`
	L      float64 `json:"l"`
}

// PriorityMeasures are the mean wait, time in system and numbers of all
// the classes together.
type PriorityMeasures struct {
	Wq float64 `json:"wq"`
	W  float64 `json:"w"`
	Lq float64 `json:"lq"`
	L  float64 `json:"l"`
}

// PriorityResult is Priority's answer. Total is over all classes (Lq and L
// summed, Wq and W their λ-weighted means) and FIFO the same traffic
// served first come first served (M/M/c with the total λ and the one μ;
// with per-class μ on one server, the M/G/1 of their mixture); both are
// zero unless Stable, every class being stable.
type PriorityResult struct {
	Servers    int              `json:"servers"`
	Preemptive bool             `json:"preemptive"`
	Lambda     float64          `json:"lambda"` // the total arrival rate
	Rho        float64          `json:"rho"`    // the total load over c
	Stable     bool             `json:"stable"`
	Classes    []PriorityClass  `json:"classes"`
	Total      PriorityMeasures `json:"total"`
	FIFO       PriorityMeasures `json:"fifo"`
}

// Priority computes the M/M/c queue with K priority classes (Poisson
// arrivals per class, exponential service, strict priority between
// classes, FIFO within one). All its results are exact:
//
//   - Non-preemptive, one μ for all classes, any c (Cobham 1954):
//     Wq_k = W0 / ((1-σ_{k-1})(1-σ_k)), W0 = C(c, a)/(cμ) the mean time
//     until a server frees, C Erlang C of the total load.
//   - Non-preemptive, per-class μ_k, c = 1: the M/G/1 form with
//     W0 = Σ λ_i E[S_i²]/2 = Σ ρ_i/μ_i.
//   - Preemptive-resume, c = 1: W_k = (1/μ_k)/(1-σ_{k-1}) +
//     R_k/((1-σ_{k-1})(1-σ_k)), R_k = Σ_{i≤k} ρ_i/μ_i.
//   - Preemptive-resume, one μ, c > 1: classes 1..k do not see the ones
//     below, so they form an M/M/c of rate Λ_k = λ_1+...+λ_k and
//     Lq_k = Lq(Λ_k) - Lq(Λ_{k-1}). The difference loses digits when λ_k
//     is tiny beside Λ_{k-1} (relative error near ε·Lq(Λ_k)/Lq_k).
//
// A class may have no arrivals (λ = 0, but not all of them): its Lq and
// L are 0 and its Wq and W those of a job of that class as its rate goes
// to 0 (in the preemptive M/M/c, dLq/dΛ of the classes above).
//
// Per-class μ that differ with c > 1 have no exact result: Priority
// refuses them (ErrInput). When the total load is 1 or more the lower
// classes are unstable while the upper ones may not be: the upper ones
// get their measures (all c servers are then always busy, so W0 is the
// residual service of the work in service), the others Stable false.
// It costs O(c) (non-preemptive) or O(K·c) (preemptive, c > 1, with K·c
// at most MaxPriorityWork) and returns ctx.Err() when ctx is cancelled.
func Priority(ctx context.Context, o PriorityOptions) (PriorityResult, error) {
	mus, oneMu, err := o.check()
	if err != nil {
		return PriorityResult{}, err
	}
	r := newPriorityResult(o, mus)
	// whole is the FIFO M/M/c of all the traffic, when there is one.
	var whole *MMcResult
	if oneMu && r.Stable {
		m, err := mmc(ctx, r.Lambda, mus[0], r.Servers)
		if err != nil {
			return PriorityResult{}, err
		}
		whole = &m
	}
	switch {
	case o.Preemptive && o.Servers > 1:
		err = r.preemptiveMMc(ctx, mus[0])
	case o.Preemptive:
		r.preemptiveOne()
	default:
		r.nonPreemptive(mus, oneMu, whole)
	}
	if err != nil {
		return PriorityResult{}, err
	}
	r.totals(whole)
	return r, nil
}

// check checks o and returns the per-class μ, and whether they are all
// the same.
func (o PriorityOptions) check() ([]float64, bool, error) {
	k := len(o.Lambdas)
	if k < 1 || k > MaxClasses {
		return nil, false, inputErr("%d classes: want 1 to %d", k, MaxClasses)
	}
	if len(o.Mus) != 1 && len(o.Mus) != k {
		return nil, false, inputErr("%d service rates for %d classes: want one, or one per class", len(o.Mus), k)
	}
	if err := checkServers(o.Servers); err != nil {
		return nil, false, err
	}
	if o.Preemptive && o.Servers > 1 && k*o.Servers > MaxPriorityWork {
		return nil, false, inputErr("%d classes on %d servers, preemptive: K·c = %d is above the limit %d", k, o.Servers, k*o.Servers, MaxPriorityWork)
	}
	mus := make([]float64, k)
	oneMu, load := true, 0.0
	for i, l := range o.Lambdas {
		mus[i] = o.Mus[min(i, len(o.Mus)-1)]
		if err := checkClassRates(l, mus[i]); err != nil {
			return nil, false, fmt.Errorf("class P%d: %w", i, err)
		}
		oneMu = oneMu && mus[i] == mus[0]
		load += l / mus[i]
	}
	if load == 0 {
		return nil, false, inputErr("no class has arrivals: want a positive rate for one at least")
	}
	if err := checkLoad(load); err != nil {
		return nil, false, fmt.Errorf("all classes: %w", err)
	}
	if !oneMu && o.Servers > 1 {
		return nil, false, inputErr("per-class service rates with %d servers: no exact result (want one rate for all classes, or 1 server)", o.Servers)
	}
	return mus, oneMu, nil
}

// checkClassRates is checkRates, but a class may have no arrivals.
func checkClassRates(lambda, mu float64) error {
	if lambda == 0 {
		return checkRate("mu", mu)
	}
	return checkRates(lambda, mu)
}

func newPriorityResult(o PriorityOptions, mus []float64) PriorityResult {
	r := PriorityResult{Servers: o.Servers, Preemptive: o.Preemptive, Classes: make([]PriorityClass, len(mus))}
	c := float64(o.Servers)
	for i, l := range o.Lambdas {
		if l == 0 {
			l = 0 // not -0
		}
		rho := l / (c * mus[i])
		r.Lambda += l
		r.Rho += rho
		r.Classes[i] = PriorityClass{Lambda: l, Mu: mus[i], Rho: rho, Sigma: r.Rho, Stable: r.Rho < 1}
	}
	r.Stable = r.Rho < 1
	return r
}

// above is 1 - σ_{k-1}, the share of the servers class k can have.
func (r *PriorityResult) above(k int) float64 {
	if k == 0 {
		return 1
	}
	return 1 - r.Classes[k-1].Sigma
}

// nonPreemptive sets Cobham's waits.
func (r *PriorityResult) nonPreemptive(mus []float64, oneMu bool, whole *MMcResult) {
	w0 := r.residual(mus, oneMu, whole)
	for k := range r.Classes {
		if pc := &r.Classes[k]; pc.Stable {
			pc.set(w0 / (r.above(k) * (1 - pc.Sigma)))
		}
	}
}

// residual is W0, the mean time until a server frees, at an arrival.
func (r *PriorityResult) residual(mus []float64, oneMu bool, whole *MMcResult) float64 {
	c := float64(r.Servers)
	if whole != nil {
		return whole.PWait / (c * mus[0])
	}
	if oneMu {
		return 1 / (c * mus[0]) // unstable: the servers are always busy
	}
	// One server: the class in service is i with probability ρ_i; past
	// the first unstable class u, u takes the time the ones above leave.
	var w0 float64
	for k, pc := range r.Classes {
		if !pc.Stable {
			return w0 + r.above(k)/pc.Mu
		}
		w0 += pc.Rho / pc.Mu
	}
	return w0
}

// preemptiveOne sets the preemptive-resume times on one server.
func (r *PriorityResult) preemptiveOne() {
	var rk float64
	for k := range r.Classes {
		pc := &r.Classes[k]
		rk += pc.Rho / pc.Mu
		if !pc.Stable {
			return
		}
		up := r.above(k)
		pc.set(1/pc.Mu/up + rk/(up*(1-pc.Sigma)) - 1/pc.Mu)
	}
}

// preemptiveMMc sets the preemptive-resume times on c servers with one μ
// from the M/M/c of each class and the ones above it.
func (r *PriorityResult) preemptiveMMc(ctx context.Context, mu float64) error {
	var lambda, lq float64
	for k := range r.Classes {
		pc := &r.Classes[k]
		if !pc.Stable {
			return nil
		}
		if pc.Lambda == 0 {
			wq, err := lqSlope(ctx, lambda, mu, r.Servers)
			if err != nil {
				return err
			}
			pc.set(wq)
			continue
		}
		lambda += pc.Lambda
		m, err := mmc(ctx, lambda, mu, r.Servers)
		if err != nil {
			return err
		}
		pc.set((m.Lq - lq) / pc.Lambda)
		lq = m.Lq
	}
	return nil
}

// lqSlope is dLq/dλ of a stable M/M/c at λ: the wait of a class with no
// arrivals of its own below classes of total rate λ, the limit of
// (Lq(λ+ε) - Lq(λ))/ε. With B Erlang B, ρ = a/c, D = 1-ρ(1-B) and
// C = B/D: dB/da = B(c/a - 1 + B), dC/da = (B'(1-ρ) + B(1-B)/c)/D², and
// Lq = C·a/(c-a) gives dLq/da = C'·a/(c-a) + C·c/(c-a)².
func lqSlope(ctx context.Context, lambda, mu float64, c int) (float64, error) {
	if lambda == 0 {
		return 0, nil // nothing above: a server is free
	}
	a, cf := lambda/mu, float64(c)
	b, err := erlangB(ctx, c, a)
	if err != nil {
		return 0, err
	}
	rho := a / cf
	d := 1 - rho*(1-b)
	db := b * (cf/a - 1 + b)
	dc := (db*(1-rho) + b*(1-b)/cf) / (d * d)
	return (dc*a/(cf-a) + b/d*cf/((cf-a)*(cf-a))) / mu, nil
}

// set fills a stable class's measures from its mean wait.
func (pc *PriorityClass) set(wq float64) {
	pc.Wq = max(wq, 0)
	pc.W = pc.Wq + 1/pc.Mu
	pc.Lq = pc.Lambda * pc.Wq
	pc.L = pc.Lambda * pc.W
}

// totals sums the classes and sets the FIFO queue of the same traffic:
// whole, else (per-class μ, one server) M/G/1.
func (r *PriorityResult) totals(whole *MMcResult) {
	if !r.Stable {
		return
	}
	for _, pc := range r.Classes {
		r.Total.Lq += pc.Lq
		r.Total.L += pc.L
	}
	r.Total.Wq, r.Total.W = r.Total.Lq/r.Lambda, r.Total.L/r.Lambda
	if whole != nil {
		r.FIFO = PriorityMeasures{Wq: whole.Wq, W: whole.W, Lq: whole.Lq, L: whole.L}
		return
	}
	// M/G/1 (Pollaczek-Khinchine) with the classes' mixture of services.
	var w0, s float64
	for _, pc := range r.Classes {
		w0 += pc.Rho / pc.Mu
		s += pc.Lambda / pc.Mu
	}
	wq := w0 / (1 - r.Rho)
	w := wq + s/r.Lambda
	r.FIFO = PriorityMeasures{Wq: wq, W: w, Lq: r.Lambda * wq, L: r.Lambda * w}
}

// Unstable returns the index of the first unstable class, or -1.
func (r PriorityResult) Unstable() int {
	for k, pc := range r.Classes {
		if !pc.Stable {
			return k
		}
	}
	return -1
}
