package analyze

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// PriorityHistoryOptions are PriorityHistory's settings.
type PriorityHistoryOptions struct {
	// Servers is the c of the predictions; 0 takes the most jobs that ran
	// at once, as History does.
	Servers int
}

// PriorityHistoryClass is one class as the journal shows it and as the
// priority models predict it. Rates are per second, times in seconds; a
// nil field could not be estimated, or the class is not in the model, or
// the model says it is unstable.
type PriorityHistoryClass struct {
	Class      int      `json:"-"` // JobSample.Class
	Jobs       int      `json:"jobs"`
	Completed  int      `json:"completed"`
	Lambda     *float64 `json:"lambda"`
	Mu         *float64 `json:"mu"` // the class's own
	WqObserved float64  `json:"wq_observed"`
	WObserved  *float64 `json:"w_observed"`
	// The waits strict priority predicts, non-preemptive and
	// preemptive-resume.
	WqNonPreemptive *float64 `json:"wq_non_preemptive"`
	WqPreemptive    *float64 `json:"wq_preemptive"`
}

// PriorityHistoryResult is PriorityHistory's answer.
type PriorityHistoryResult struct {
	Servers        int                    `json:"servers"`         // the c of the predictions
	MaxConcurrency int                    `json:"max_concurrency"` // the most jobs at once
	PooledMu       *float64               `json:"pooled_mu"`       // one μ over all classes, used when c > 1
	Rho            *float64               `json:"rho"`             // the total load of the model's classes
	Classes        []PriorityHistoryClass `json:"classes"`         // by class, highest first
	Warnings       []string               `json:"warnings"`
}

// PriorityHistory fits each class's λ and μ from the jobs (as History
// does, the estimates and observed waits per class) and predicts each
// class's wait under strict priority with Priority, non-preemptive and
// preemptive-resume. With one server each class keeps its own μ; with
// more, the exact models need one μ, so the classes share the μ of all
// their jobs. A class whose λ (one job) or μ (none finished) cannot be
// estimated is left out of the model, with a warning. It costs
// O(n log n + K·c) and returns ctx.Err() when ctx is cancelled.
func PriorityHistory(ctx context.Context, samples []JobSample, o PriorityHistoryOptions) (PriorityHistoryResult, error) {
	if o.Servers < 0 || o.Servers > MaxServers {
		return PriorityHistoryResult{}, inputErr("servers = %d: want 0 (the most jobs at once) to %d", o.Servers, MaxServers)
	}
	byClass, all, err := splitByClass(samples)
	if err != nil {
		return PriorityHistoryResult{}, err
	}
	res := PriorityHistoryResult{MaxConcurrency: maxConcurrency(all), Servers: o.Servers, Warnings: []string{}}
	if res.Servers == 0 {
		res.Servers = res.MaxConcurrency
	}
	var pooled HistoryGroup
	pooled.service(all, 0.95)
	res.PooledMu = pooled.Mu
	for _, k := range slices.Sorted(maps.Keys(byClass)) {
		res.Classes = append(res.Classes, res.fitClass(k, byClass[k]))
	}
	return res, res.predict(ctx)
}

// splitByClass checks the samples that started and groups them by class.
func splitByClass(samples []JobSample) (map[int][]JobSample, []JobSample, error) {
	byClass := map[int][]JobSample{}
	var all []JobSample
	for i, s := range samples {
		if s.Started.IsZero() {
			continue
		}
		if err := s.check(); err != nil {
			return nil, nil, fmt.Errorf("job sample %d: %w", i, err)
		}
		if s.Class < 0 || s.Class >= MaxClasses {
			return nil, nil, fmt.Errorf("job sample %d: %w", i, inputErr("class %d: want 0 to %d", s.Class, MaxClasses-1))
		}
		byClass[s.Class] = append(byClass[s.Class], s)
		all = append(all, s)
	}
	return byClass, all, nil
}

func (res *PriorityHistoryResult) fitClass(k int, ss []JobSample) PriorityHistoryClass {
	g := HistoryGroup{Jobs: len(ss)}
	g.arrivals(ss, 0.95)
	g.service(ss, 0.95)
	g.observe(ss)
	for _, w := range g.Warnings {
		res.warn("P%d: %s", k, w)
	}
	return PriorityHistoryClass{Class: k, Jobs: g.Jobs, Completed: g.Completed, Lambda: g.Lambda, Mu: g.Mu,
		WqObserved: g.WqObserved, WObserved: g.WObserved}
}

// predict runs both priority models over the classes that can be in them.
func (res *PriorityHistoryResult) predict(ctx context.Context) error {
	if res.Servers < 1 {
		res.warn("no job finished: no worker count to predict with")
		return nil
	}
	var in []int
	o := PriorityOptions{Servers: res.Servers}
	for i, pc := range res.Classes {
		mu := pc.Mu
		if res.Servers > 1 {
			mu = res.PooledMu
		}
		if pc.Lambda == nil || mu == nil {
			res.warn("P%d is left out of the model: its arrival or service rate is not estimable (%d jobs started)", pc.Class, pc.Jobs)
			continue
		}
		in = append(in, i)
		o.Lambdas, o.Mus = append(o.Lambdas, *pc.Lambda), append(o.Mus, *mu)
	}
	if len(in) == 0 {
		return nil
	}
	for _, pre := range []bool{false, true} {
		o.Preemptive = pre
		r, err := Priority(ctx, o)
		if errors.Is(err, ErrInput) {
			res.warn("no prediction: %v", err)
			return nil
		}
		if err != nil {
			return err
		}
		res.Rho = &r.Rho
		if u := r.Unstable(); u >= 0 && !pre {
			res.warn("P%d and the classes below it are unstable under strict priority: the load of it and those above is %.3g ≥ 1",
				res.Classes[in[u]].Class, r.Classes[u].Sigma)
		}
		for j, i := range in {
			if pc := r.Classes[j]; pc.Stable {
				res.Classes[i].setPredicted(pre, pc.Wq)
			}
		}
	}
	return nil
}

func (pc *PriorityHistoryClass) setPredicted(preemptive bool, wq float64) {
	if preemptive {
		pc.WqPreemptive = ptr(wq)
	} else {
		pc.WqNonPreemptive = ptr(wq)
	}
}

func (res *PriorityHistoryResult) warn(format string, args ...any) {
	res.Warnings = append(res.Warnings, fmt.Sprintf(format, args...))
}
