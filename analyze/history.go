package analyze

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// JobSample is one job as History reads it: what a job journal records,
// without depending on how it stores it.
type JobSample struct {
	Kind    string
	Backend string // where the job ran (its last attempt)
	// Class is the job's priority class, 0 for P0 (the highest) up:
	// sched.Class.Index(). History ignores it; PriorityHistory groups by it.
	Class int
	// Enqueued is when the job arrived. Started is its first start; a
	// job that never started (zero) has no backend and History skips it.
	// Finished is when its last attempt ended, zero while it runs.
	Enqueued, Started, Finished time.Time
	// Service is the last attempt's run time; zero or negative when
	// unknown, and then the job does not count towards μ.
	Service time.Duration
	OK      bool // it succeeded
}

// HistoryOptions are History's settings.
type HistoryOptions struct {
	MaxWq      float64 // seconds; > 0 asks for the workers that meet it
	Confidence float64 // of the χ² intervals, in (0, 1); 0 means 0.95
}

// Interval is a confidence interval.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// HistoryGroup is what History measures and predicts for the jobs of one
// kind on one backend. Rates are per second and times in seconds. A nil
// field could not be estimated from the jobs (see History).
type HistoryGroup struct {
	Kind      string  `json:"kind"`
	Backend   string  `json:"backend"`
	Jobs      int     `json:"jobs"`         // that started: the arrivals
	Completed int     `json:"completed"`    // finished with a service time: μ's sample
	Failed    int     `json:"failed"`       // finished, not successfully
	SpanS     float64 `json:"span_seconds"` // first to last enqueue

	Lambda   *float64  `json:"lambda,omitempty"`
	LambdaCI *Interval `json:"lambda_ci,omitempty"`
	Mu       *float64  `json:"mu,omitempty"` // per worker
	MuCI     *Interval `json:"mu_ci,omitempty"`

	MaxConcurrency int      `json:"max_concurrency"` // the c of the prediction
	MeanBusy       *float64 `json:"mean_busy,omitempty"`
	WqObserved     float64  `json:"wq_observed"`
	WObserved      *float64 `json:"w_observed,omitempty"`

	// The M/M/c prediction with λ, μ and c = MaxConcurrency. Stable is
	// false when ρ ≥ 1 or there is no prediction; the predicted times are
	// present exactly when it is true.
	Rho         *float64 `json:"rho,omitempty"`
	Stable      bool     `json:"stable"`
	WqPredicted *float64 `json:"wq_predicted,omitempty"`
	WPredicted  *float64 `json:"w_predicted,omitempty"`

	ServiceCV      *float64 `json:"service_cv,omitempty"`
	ArrivalCV      *float64 `json:"arrival_cv,omitempty"`
	WqAllenCunneen *float64 `json:"wq_allen_cunneen,omitempty"`

	WorkersForMaxWq *int     `json:"workers_for_max_wq,omitempty"`
	WqWithWorkers   *float64 `json:"wq_with_workers,omitempty"` // the Wq staffing predicts with them

	Warnings []string `json:"warnings,omitempty"`
}

// Thresholds of History's warnings.
const (
	// CVLow and CVHigh bound the coefficients of variation History takes
	// as exponential (service) or Poisson (arrivals), whose CV is 1.
	CVLow, CVHigh = 0.5, 1.5
	// CVMinSamples is the fewest values whose CV History judges: the
	// sample CV of ten exponential values has a standard error near 0.3.
	CVMinSamples = 10
	// maxStaffLoad bounds λ/μ for staffing: Size is linear in c.
	maxStaffLoad = 1e6
)

// History estimates, per kind and backend (sorted by both), the arrival
// rate λ and the service rate μ per worker with exact χ² intervals, the
// observed concurrency and times in queue and in system, and sets them
// against the M/M/c queue with those rates. It costs O(n log n).
//
//   - λ = (n-1)/T with T the span from the first to the last enqueue: the
//     first arrival opens the window and the n-1 gaps after it sum to
//     T ~ gamma(n-1, λ), so 2λT ~ χ²(2(n-1)) and the interval is
//     [χ²(α/2; 2(n-1)), χ²(1-α/2; 2(n-1))] / 2T. Not estimable with one
//     job or all enqueued at the same instant (T = 0).
//   - μ = m/S over the m jobs with a service time, S their sum; 2μS ~
//     χ²(2m) gives [χ²(α/2; 2m), χ²(1-α/2; 2m)] / 2S.
//   - max_concurrency is the most finished jobs between their first
//     start and their finish at once (a sweep; a job ending when another
//     starts does not overlap it). The samples do not tell the worker
//     count, so it stands for c: a lower bound on the workers, equal to
//     them once all were busy at some time. (A retried job counts from
//     its first start, across its backoff.) mean_busy is S over the time
//     from the first start to the last finish of those m jobs.
//   - wq_observed is the mean first start - enqueue of the jobs;
//     w_observed the mean finish - enqueue of the finished ones.
//   - The service CV (or the inter-arrival CV) outside [CVLow, CVHigh]
//     over at least CVMinSamples values warns that M/M/c does not fit,
//     and adds the Allen-Cunneen wait Wq·(Ca²+Cs²)/2.
//   - With o.MaxWq, workers_for_max_wq is the smallest c whose predicted
//     Wq, Allen-Cunneen's when it applies, is at most o.MaxWq.
//
// No field is NaN or infinite, so every group encodes as JSON. It returns
// ctx.Err() when ctx is cancelled.
func History(ctx context.Context, samples []JobSample, o HistoryOptions) ([]HistoryGroup, error) {
	o, err := o.check()
	if err != nil {
		return nil, err
	}
	type key struct{ kind, backend string }
	byKey := map[key][]JobSample{}
	for i, s := range samples {
		if s.Started.IsZero() {
			continue
		}
		if err := s.check(); err != nil {
			return nil, fmt.Errorf("job sample %d: %w", i, err)
		}
		k := key{s.Kind, s.Backend}
		byKey[k] = append(byKey[k], s)
	}
	groups := make([]HistoryGroup, 0, len(byKey))
	for k, ss := range byKey {
		groups = append(groups, historyGroup(ctx, k.kind, k.backend, ss, o))
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(groups, func(a, b HistoryGroup) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Backend, b.Backend))
	})
	return groups, nil
}

func (o HistoryOptions) check() (HistoryOptions, error) {
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	if !(o.Confidence > 0 && o.Confidence <= MaxConfidence) {
		return o, inputErr("confidence %v: want a number above 0 and at most %v", o.Confidence, MaxConfidence)
	}
	if math.IsNaN(o.MaxWq) || math.IsInf(o.MaxWq, 0) || o.MaxWq < 0 {
		return o, inputErr("max Wq %v: want a non-negative number of seconds", o.MaxWq)
	}
	return o, nil
}

func (s JobSample) check() error {
	switch {
	case s.Enqueued.IsZero():
		return inputErr("started but never enqueued")
	case s.Started.Before(s.Enqueued):
		return inputErr("started %s before it was enqueued", s.Enqueued.Sub(s.Started))
	case !s.Finished.IsZero() && s.Finished.Before(s.Started):
		return inputErr("finished %s before it started", s.Started.Sub(s.Finished))
	}
	return nil
}

func historyGroup(ctx context.Context, kind, backend string, ss []JobSample, o HistoryOptions) HistoryGroup {
	g := HistoryGroup{Kind: kind, Backend: backend, Jobs: len(ss)}
	g.arrivals(ss, o.Confidence)
	g.service(ss, o.Confidence)
	g.observe(ss)
	factor, corrected := g.judgeCV()
	g.predict(ctx, o.MaxWq, factor, corrected)
	return g
}

func (g *HistoryGroup) arrivals(ss []JobSample, conf float64) {
	enq := make([]time.Time, len(ss))
	for i, s := range ss {
		enq[i] = s.Enqueued
	}
	slices.SortFunc(enq, time.Time.Compare)
	g.SpanS = enq[len(enq)-1].Sub(enq[0]).Seconds()
	gaps := len(enq) - 1
	switch {
	case gaps == 0:
		return
	case g.SpanS <= 0:
		g.warn("all %d jobs were enqueued at once: the arrival rate is not estimable", len(enq))
		return
	}
	g.Lambda = ptr(float64(gaps) / g.SpanS)
	g.LambdaCI = ptr(gammaCI(gaps, g.SpanS, conf))
	between := make([]float64, gaps)
	for i := range between {
		between[i] = enq[i+1].Sub(enq[i]).Seconds()
	}
	if _, cv, ok := meanCV(between); ok {
		g.ArrivalCV = ptr(cv)
	}
}

func (g *HistoryGroup) service(ss []JobSample, conf float64) {
	var times []float64
	var total float64
	for _, s := range ss {
		if s.Finished.IsZero() {
			continue
		}
		if !s.OK {
			g.Failed++
		}
		if s.Service > 0 {
			times = append(times, s.Service.Seconds())
			total += s.Service.Seconds()
		}
	}
	g.Completed = len(times)
	if g.Completed == 0 {
		return
	}
	g.Mu = ptr(float64(g.Completed) / total)
	g.MuCI = ptr(gammaCI(g.Completed, total, conf))
	if _, cv, ok := meanCV(times); ok {
		g.ServiceCV = ptr(cv)
	}
}

// observe measures the waits and the concurrency.
func (g *HistoryGroup) observe(ss []JobSample) {
	var wq, w, busy float64
	var finished int
	var first, last time.Time
	for _, s := range ss {
		wq += s.Started.Sub(s.Enqueued).Seconds()
		if s.Finished.IsZero() {
			continue
		}
		finished++
		w += s.Finished.Sub(s.Enqueued).Seconds()
		if s.Service > 0 {
			busy += s.Service.Seconds()
			if first.IsZero() || s.Started.Before(first) {
				first = s.Started
			}
			last = maxTime(last, s.Finished)
		}
	}
	g.WqObserved = wq / float64(len(ss))
	if finished > 0 {
		g.WObserved = ptr(w / float64(finished))
	}
	if window := last.Sub(first).Seconds(); busy > 0 && window > 0 {
		g.MeanBusy = ptr(busy / window)
	}
	g.MaxConcurrency = maxConcurrency(ss)
}

// maxConcurrency sweeps the [Started, Finished) intervals of the finished
// jobs; one still running is left out, its end being unknown.
func maxConcurrency(ss []JobSample) int {
	type event struct {
		t     time.Time
		delta int
	}
	var events []event
	for _, s := range ss {
		if !s.Finished.IsZero() {
			events = append(events, event{s.Started, +1}, event{s.Finished, -1})
		}
	}
	// At the same instant ends come first: half-open intervals.
	slices.SortFunc(events, func(a, b event) int {
		return cmp.Or(a.t.Compare(b.t), cmp.Compare(a.delta, b.delta))
	})
	running, most := 0, 0
	for _, e := range events {
		running += e.delta
		most = max(most, running)
	}
	return most
}

// judgeCV warns of service times far from exponential and arrivals far
// from Poisson; when it does, and both CVs are known, it returns the
// Allen-Cunneen factor (Ca²+Cs²)/2 and true.
func (g *HistoryGroup) judgeCV() (float64, bool) {
	far := func(cv *float64, n int) bool {
		return cv != nil && n >= CVMinSamples && (*cv < CVLow || *cv > CVHigh)
	}
	service, arrival := far(g.ServiceCV, g.Completed), far(g.ArrivalCV, g.Jobs-1)
	if service {
		g.warn("service times are far from exponential (CV %.3g over %d jobs, M/M/c assumes 1): "+
			"trust the Allen-Cunneen wait over the M/M/c one", *g.ServiceCV, g.Completed)
	}
	if arrival {
		g.warn("arrivals are far from Poisson (inter-arrival CV %.3g over %d gaps, M/M/c assumes 1): "+
			"trust the Allen-Cunneen wait over the M/M/c one", *g.ArrivalCV, g.Jobs-1)
	}
	if !(service || arrival) || g.ServiceCV == nil || g.ArrivalCV == nil {
		return 1, false
	}
	return (*g.ArrivalCV**g.ArrivalCV + *g.ServiceCV**g.ServiceCV) / 2, true
}

// predict sets the observed rates against M/M/c with c = MaxConcurrency,
// its wait scaled by factor when corrected, and staffs for maxWq.
func (g *HistoryGroup) predict(ctx context.Context, maxWq, factor float64, corrected bool) {
	if g.Lambda == nil || g.Mu == nil || g.MaxConcurrency < 1 {
		return
	}
	lambda, mu := *g.Lambda, *g.Mu
	r, err := MMc(ctx, lambda, mu, g.MaxConcurrency)
	if errors.Is(err, ErrInput) {
		g.warn("no M/M/c prediction: %v", err)
		return
	}
	if err != nil {
		return // cancelled: History returns ctx.Err()
	}
	g.Rho, g.Stable = ptr(r.Rho), r.Stable
	if !r.Stable {
		g.warn("the M/M/%d queue with these rates is unstable (ρ = %.3g): jobs arrived faster than "+
			"%d workers serve them, which needs at least %d", r.Servers, r.Rho, r.Servers, r.MinStable)
	} else {
		g.WqPredicted, g.WPredicted = ptr(r.Wq), ptr(r.W)
		if corrected {
			g.WqAllenCunneen = ptr(factor * r.Wq)
		}
	}
	if maxWq > 0 {
		g.staff(ctx, lambda, mu, maxWq, factor, corrected)
	}
}

// staff finds the fewest workers whose predicted Wq, times factor when
// corrected, is at most maxWq: Size's smallest c for maxWq/factor (any
// stable c when factor is 0).
func (g *HistoryGroup) staff(ctx context.Context, lambda, mu, maxWq, factor float64, corrected bool) {
	if lambda/mu > maxStaffLoad {
		g.warn("the load λ/μ = %.3g Erlangs is too large to staff for", lambda/mu)
		return
	}
	target := maxWq
	if corrected {
		target = min(maxWq/factor, math.MaxFloat64)
	}
	c, rows, err := Size(ctx, lambda, mu, Target{MaxWq: target})
	if errors.Is(err, ErrNoServers) {
		g.warn("no number of workers up to %d keeps the predicted wait at most %.3g s", MaxServers, maxWq)
		return
	}
	if err != nil {
		return // cancelled: History returns ctx.Err()
	}
	r := rows[min(1, c-1)] // rows start at c-1, or at c when c is 1
	if corrected {
		r.Wq *= factor
	}
	g.WorkersForMaxWq, g.WqWithWorkers = ptr(c), ptr(r.Wq)
}

func (g *HistoryGroup) warn(format string, args ...any) {
	g.Warnings = append(g.Warnings, fmt.Sprintf(format, args...))
}

func ptr[T any](v T) *T { return &v }

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
