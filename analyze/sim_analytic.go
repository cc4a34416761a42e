package analyze

import (
	"context"
	"errors"
	"math"
)

// Names of SimResult.Analytic for the models with abandonment and
// priority classes.
const (
	AnalyticErlangA    = "M/M/c+M"
	AnalyticPriority   = "M/M/c priority"
	AnalyticPreemptive = "M/M/c preemptive priority"
)

// simExact is what calq computes exactly for a simulated model: the
// values of its measures in the order of a tally's (nil where there is
// none) and, with classes, of each class's.
type simExact struct {
	name     string
	unstable bool
	v        [nMetrics]*float64
	classes  [][nMetrics]*float64
}

// modelAnalytic returns the exact values of o's model: ErlangA's for
// M/M/c+M, Priority's for priority classes with exponential service (one
// μ, or one server), analytic's M/M/c or M/M/c/K otherwise; nothing where
// calq has no exact result. An error only when ctx is cancelled.
func modelAnalytic(ctx context.Context, o SimOptions) (simExact, error) {
	switch {
	case o.Patience.Kind != "":
		return erlangAExact(ctx, o)
	case len(o.Classes) > 0:
		return priorityExact(ctx, o)
	}
	name, unstable, v, err := analytic(ctx, o)
	return simExact{name: name, unstable: unstable, v: v}, err
}

// erlangAExact is ErlangA's values for M/M/c+M without a capacity or
// classes. P(wait) is the share of the served who waited: everyone who
// abandons waited, so it is (P(wait) − P(abandon))/(1 − P(abandon)).
func erlangAExact(ctx context.Context, o SimOptions) (simExact, error) {
	if o.Arrivals.Kind != KindExp || o.Service.Kind != KindExp || o.Patience.Kind != KindExp ||
		o.Capacity > 0 || len(o.Classes) > 0 {
		return simExact{}, nil
	}
	r, err := ErlangA(ctx, o.Arrivals.Rate, o.Service.Rate, o.Patience.Rate, o.Servers)
	if errors.Is(err, ErrInput) {
		return simExact{}, nil
	}
	if err != nil {
		return simExact{}, err
	}
	served := (r.PWait - r.PAbandon) / (1 - r.PAbandon)
	return simExact{name: AnalyticErlangA, v: pointers(r.W, r.WqServed, r.L, r.Lq, r.Utilisation, served,
		math.NaN(), r.Throughput, r.PAbandon, r.WqAbandoned, r.AbandonRate)}, nil
}

// priorityExact is Priority's values for exponential classes without a
// capacity (modelAnalytic sends runs with patience elsewhere): each class's W, Wq, L, Lq and throughput, and the
// totals; none when Priority has no exact result (per-class μ on more
// than one server), and unstable when a class is.
func priorityExact(ctx context.Context, o SimOptions) (simExact, error) {
	po := PriorityOptions{Servers: o.Servers, Preemptive: o.Preemptive}
	for _, c := range o.Classes {
		if c.Service.Kind != KindExp {
			return simExact{}, nil
		}
		po.Lambdas, po.Mus = append(po.Lambdas, c.Rate), append(po.Mus, c.Service.Rate)
	}
	if o.Capacity > 0 { // patience is erlangAExact's, which gives none with classes
		return simExact{}, nil
	}
	r, err := Priority(ctx, po)
	if errors.Is(err, ErrInput) {
		return simExact{}, nil
	}
	if err != nil || !r.Stable {
		return simExact{unstable: err == nil}, err
	}
	nan := math.NaN()
	x := simExact{name: AnalyticPriority, v: pointers(r.Total.W, r.Total.Wq, r.Total.L, r.Total.Lq, r.Rho, nan, nan, r.Lambda)}
	if o.Preemptive {
		x.name = AnalyticPreemptive
	}
	for _, c := range r.Classes {
		x.classes = append(x.classes, pointers(c.W, c.Wq, c.L, c.Lq, nan, nan, nan, c.Lambda))
	}
	return x, nil
}

// setClassAnalytic puts each class's exact values beside its measures.
func (r *SimResult) setClassAnalytic(x simExact) {
	for k, v := range x.classes {
		c := &r.Classes[k]
		c.W.Analytic, c.Wq.Analytic, c.L.Analytic, c.Lq.Analytic, c.Throughput.Analytic = v[mW], v[mWq], v[mL], v[mLq], v[mX]
	}
}
