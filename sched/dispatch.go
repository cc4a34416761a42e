package sched

import (
	"fmt"
	"strings"
)

// Dispatch is how a job chooses among the backends that can serve it.
type Dispatch uint8

const (
	// MarginalRate picks the backend with the greatest marginal service
	// rate 1 / (t̂ × (1 + load)), where t̂ is the mean of the backend's last
	// 100 service times for the job's kind and load is its queued plus
	// running jobs per worker. A backend with nothing learned for the kind
	// yet is credited with the best estimate of the others, so it gets
	// tried.
	MarginalRate Dispatch = iota
	// RoundRobin takes the backends in turn.
	RoundRobin
	// LeastLoaded picks the backend with the fewest queued plus running jobs
	// per worker.
	LeastLoaded
)

var dispatchNames = []string{"marginal-rate", "round-robin", "least-loaded"}

func (d Dispatch) String() string {
	if int(d) < len(dispatchNames) {
		return dispatchNames[d]
	}
	return fmt.Sprintf("dispatch(%d)", uint8(d))
}

// ParseDispatch reads a policy name: marginal-rate, round-robin or
// least-loaded.
func ParseDispatch(s string) (Dispatch, error) {
	for i, n := range dispatchNames {
		if strings.EqualFold(s, n) {
			return Dispatch(i), nil
		}
	}
	return 0, fmt.Errorf("dispatch %q: want one of %s", s, strings.Join(dispatchNames, ", "))
}

// pick chooses the backend for j, never avoid; nil when none takes it.
// e.mu is held.
func (e *Engine) pick(j *Job, avoid *backend) *backend {
	if j.Backend != "" {
		if b := e.byName[j.Backend]; b != avoid && b.takes(j.Kind) {
			return b
		}
		return nil
	}
	var cands []*backend
	for _, b := range e.backends {
		if b != avoid && b.takes(j.Kind) {
			cands = append(cands, b)
		}
	}
	switch {
	case len(cands) == 0:
		return nil
	case len(cands) == 1:
		return cands[0]
	}
	switch e.opts.Dispatch {
	case RoundRobin:
		e.rr++
		return cands[e.rr%len(cands)]
	case LeastLoaded:
		return argmax(cands, func(b *backend) float64 { return -b.load() })
	}
	best := 0.0
	for _, b := range cands {
		if t, ok := b.estimate(j.Kind); ok && (best == 0 || t < best) {
			best = t
		}
	}
	return argmax(cands, func(b *backend) float64 {
		t, ok := b.estimate(j.Kind)
		if !ok {
			t = max(best, 1e-9)
		}
		return 1 / (t * (1 + b.load()))
	})
}

// argmax returns the first backend with the greatest score.
func argmax(bs []*backend, score func(*backend) float64) *backend {
	best, bestScore := bs[0], score(bs[0])
	for _, b := range bs[1:] {
		if s := score(b); s > bestScore {
			best, bestScore = b, s
		}
	}
	return best
}
