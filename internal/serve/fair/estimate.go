package fair

import (
	"math"
	"slices"
	"time"
)

// cutFactor bounds a cut service time (Slot.ReleaseCut): it counts as at
// most this many typical service times.
const cutFactor = 4

// priorWeight is how many fresh samples the prior, Options.DefaultService,
// is worth in the estimate.
const priorWeight = 1.0

// estimate is the service time the prediction assumes: the mean of the
// last len(s) service times and of the prior, each sample weighed by its
// age (its weight halves every halfLife), the prior always at
// priorWeight. It resists outliers in three ways:
//
//   - a service that was cut (timed out, cancelled) says only that the
//     file would have taken longer; it counts as at most cutFactor times
//     the typical time, the larger of the prior and the window's median;
//   - the prior stays in the mean, so one slow first file after a start
//     moves the estimate half way, not all the way;
//   - with no new samples the old ones weigh less and less, and the
//     estimate goes back to the prior: a burst of slow files an hour ago
//     says little about the next file.
//
// With fresh samples of one time d, the estimate is (prior + n·d)/(1 + n):
// within 1/(n+1) of d for a full window (3 % for 32).
type estimate struct {
	prior    time.Duration
	halfLife time.Duration
	s        []sample // a ring of the last len(s) samples
	n        int      // how many of s hold a sample
	next     int      // where the next sample goes
}

// sample is one measured service time and when it ended.
type sample struct {
	d  time.Duration
	at time.Time
}

func newEstimate(prior, halfLife time.Duration, window int) estimate {
	return estimate{prior: prior, halfLife: halfLife, s: make([]sample, window)}
}

// add records a service time d that ended at. A cut one is capped.
func (e *estimate) add(d time.Duration, at time.Time, cut bool) {
	d = max(d, 0)
	if cut {
		d = min(d, e.cutCap())
	}
	e.s[e.next] = sample{d: d, at: at}
	e.next = (e.next + 1) % len(e.s)
	e.n = min(e.n+1, len(e.s))
}

// cutCap is the most a cut service time counts as: cutFactor times the
// larger of the prior and the median of the window.
func (e *estimate) cutCap() time.Duration {
	typical := e.prior
	if e.n > 0 {
		ds := make([]time.Duration, e.n)
		for i := range ds {
			ds[i] = e.s[i].d
		}
		slices.Sort(ds)
		typical = max(typical, ds[e.n/2])
	}
	return cutFactor * typical
}

// mean returns the estimated service time in seconds at now.
func (e *estimate) mean(now time.Time) float64 {
	sum, weight := priorWeight*e.prior.Seconds(), priorWeight
	for _, s := range e.s[:e.n] {
		age := max(now.Sub(s.at), 0)
		w := math.Exp2(-age.Seconds() / e.halfLife.Seconds())
		sum += w * s.d.Seconds()
		weight += w
	}
	return sum / weight
}

// rate returns one over the mean at now, 0 when the mean is 0 (a prior
// of 0 and nothing but instant services).
func (e *estimate) rate(now time.Time) float64 {
	if m := e.mean(now); m > 0 {
		return 1 / m
	}
	return 0
}
