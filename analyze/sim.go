package analyze

import (
	"context"
	"errors"
	"math"
	"strconv"
)

// SimOptions configure Simulate. Every field is checked (Check); a field's
// errors are *OptionError naming it as the CLI's flag does.
type SimOptions struct {
	Arrivals Arrivals
	Service  Service
	Servers  int // c ≥ 1
	// Capacity is K, the most customers in the system, those in service
	// included: an arrival finding K is blocked and leaves. 0 means no
	// limit; otherwise K ≥ c.
	Capacity int
	// Customers is the number of arrivals per replication for exp
	// arrivals. Uniform and trace arrivals fix it: leave it 0 or equal.
	Customers int
	// Warmup is the number of customers, in order of arrival, left out of
	// the measures at the start of each replication: they find the system
	// empty, which is not its steady state.
	Warmup       int
	Replications int // independent runs, at least 1
	// Patience, when its Kind is set, is the distribution of how long a
	// customer who finds every server busy waits before it abandons
	// (reneges), drawn as it joins the line; a customer whose service has
	// begun stays, preempted or not. exp:θ gives M/M/c+M, Erlang A.
	Patience Service
	// Classes, when set, are priority classes, the highest first, each a
	// Poisson stream with its own service; Arrivals and Service are then
	// left unset. A free server takes the first customer of the highest
	// class waiting. Preemptive makes it preemptive-resume: an arrival
	// finding every server busy takes the server of a customer of a lower
	// class, who resumes later where it stopped.
	Classes    []SimClass
	Preemptive bool
	Seed       uint64 // equal seeds give equal results
	// Progress, when set, is called as each replication starts, with its
	// number from 1 and the number of replications, on Simulate's
	// goroutine: for a progress line.
	Progress func(replication, of int)
}

// Metric is a simulated measure: its point estimate, a 95 % confidence
// interval, and the analytic value when the model has one.
type Metric struct {
	Mean     float64  `json:"mean"`
	CILow    float64  `json:"ci_low"`
	CIHigh   float64  `json:"ci_high"`
	Analytic *float64 `json:"analytic,omitempty"`
}

// LittleCheck compares the two sides of Little's law, L = λ·W, measured
// independently: L by integrating the number in system over time, λ_eff·W
// from the customers' own times (each a mean over replications).
type LittleCheck struct {
	L       float64 `json:"l"`
	LambdaW float64 `json:"lambda_w"`
	RelDiff float64 `json:"rel_diff"` // |L - λW| / λW
}

// CI methods of SimResult.
const (
	CIReplications = "replications" // Student t over the replications' means
	CIBatchMeans   = "batch_means"  // Student t over batches of one replication
)

// SimResult is what Simulate measured. Times are in seconds, rates per
// second. Customer measures (W, Wq, P(wait)) are means over the measured
// customers that were served; time measures (L, Lq, ρ, throughput) are
// averages over each replication's window, from the arrival of its first
// measured customer until the system empties.
type SimResult struct {
	Model        string  `json:"model"` // Kendall notation: M/M/3, G/D/3, M/M/2/10
	Arrivals     string  `json:"arrivals"`
	Service      string  `json:"service"`
	Servers      int     `json:"servers"`
	Capacity     int     `json:"capacity"`  // 0: no limit
	Customers    int     `json:"customers"` // arrivals per replication
	Warmup       int     `json:"warmup"`
	Replications int     `json:"replications"`
	Seed         uint64  `json:"seed"`
	OfferedLoad  float64 `json:"offered_load"` // λ·E[S]/c, the utilisation asked of the servers
	// CIMethod is CIReplications with two replications or more, else
	// CIBatchMeans; CISamples is the number of replications or batches.
	CIMethod  string `json:"ci_method"`
	CISamples int    `json:"ci_samples"`
	// Analytic is "M/M/c", "M/M/c/K", "M/G/1", AnalyticErlangA (exp
	// patience), AnalyticPriority or AnalyticPreemptive (exp classes)
	// when the metrics carry analytic values; Unstable says an M/M/c or
	// M/G/1 model, or a class, has ρ ≥ 1 and so none.
	Analytic string `json:"analytic,omitempty"`
	Unstable bool   `json:"unstable,omitempty"`

	W        Metric  `json:"w"`  // mean time in system
	Wq       Metric  `json:"wq"` // mean wait before service
	L        Metric  `json:"l"`  // mean number in system
	Lq       Metric  `json:"lq"` // mean number waiting
	Rho      Metric  `json:"rho"`
	PWait    Metric  `json:"p_wait"`            // share of served customers that waited
	Blocking *Metric `json:"p_block,omitempty"` // share of arrivals blocked; only with a capacity
	// With patience: the share of arrivals that abandoned, the mean wait
	// of those who did, and how many abandoned per second. W, Wq and
	// P(wait) stay measures of the served.
	PAbandon    *Metric     `json:"p_abandon,omitempty"`
	WqAbandoned *Metric     `json:"wq_abandoned,omitempty"`
	AbandonRate *Metric     `json:"abandon_rate,omitempty"`
	Throughput  Metric      `json:"throughput"` // customers served per second
	Little      LittleCheck `json:"little"`
	// LastResponses are the response times (departure - arrival) of the
	// last 10 customers to arrive in the last replication, in order of
	// arrival, blocked ones left out; LastArrivals their arrival times.
	LastResponses []float64 `json:"last_responses"`
	LastArrivals  []float64 `json:"last_arrivals"`
	Events        int64     `json:"events"` // events taken from the event list, all replications
	// Patience is the patience spec; Classes the measures of each
	// priority class, highest first; Preemptive says they were
	// preemptive-resume.
	Patience   string           `json:"patience,omitempty"`
	Classes    []SimClassResult `json:"classes,omitempty"`
	Preemptive bool             `json:"preemptive,omitempty"`
}

// Measures, in the order of a tally's values.
const (
	mW = iota
	mWq
	mL
	mLq
	mRho
	mPWait
	mBlock
	mX
	mAbandon
	mWqAbandoned
	mAbandonRate
	nMetrics
)

const (
	maxBatches = 20 // batch means with one replication
	lastN      = 10 // LastResponses
)

// Check reports every invalid field of o, joined.
func (o SimOptions) Check() error {
	errs := append(o.checkClasses(), o.checkPatience())
	add := func(field, format string, args ...any) {
		errs = append(errs, optionErr(field, format, args...))
	}
	// bounded adds field's error when v is below lo or above the limit hi.
	bounded := func(field string, v, lo, hi int) bool {
		switch {
		case v < lo:
			add(field, "%d is less than %d", v, lo)
		case v > hi:
			add(field, "%d is above the limit %d", v, hi)
		default:
			return true
		}
		return false
	}
	bounded("servers", o.Servers, 1, MaxServers)
	switch {
	case o.Capacity < 0:
		add("capacity", "%d is negative (0 means no limit)", o.Capacity)
	case o.Capacity > MaxCapacity:
		add("capacity", "%d is above the limit %d", o.Capacity, MaxCapacity)
	case o.Capacity > 0 && o.Capacity < o.Servers:
		add("capacity", "%d is less than the %d servers", o.Capacity, o.Servers)
	}
	fixed := o.Arrivals.count()
	switch {
	case fixed == 0:
		bounded("customers", o.Customers, 1, MaxCustomers)
	case o.Customers != 0 && o.Customers != fixed:
		add("customers", "%d, but the arrivals %s fix the number at %d", o.Customers, o.Arrivals, fixed)
	}
	n := o.customers()
	if o.Warmup < 0 {
		add("warmup", "%d is negative", o.Warmup)
	} else if n > 0 && o.Warmup >= n {
		add("warmup", "%d leaves none of the %d customers to measure", o.Warmup, n)
	}
	if bounded("replications", o.Replications, 1, MaxReplications) && n > 0 && n <= MaxCustomers &&
		o.Replications > MaxSimulated/n {
		add("replications", "%d of %d customers each is more than the limit of %d customers in all",
			o.Replications, n, MaxSimulated)
	}
	return errors.Join(errs...)
}

func (o SimOptions) customers() int {
	if n := o.Arrivals.count(); n > 0 {
		return n
	}
	return o.Customers
}

// Simulate runs a discrete-event simulation of a FIFO queue with
// o.Servers servers: o.Replications independent runs of o.Customers
// arrivals each, run one after another. Its pending events are kept in a
// cq.Queue, the calendar queue, so an event costs O(1) amortised and
// memory is O(number waiting), whatever the run's length (uniform and
// trace arrivals also keep their times). It returns ctx.Err() when ctx is
// cancelled, which it checks every 4096 events, and errors wrapping
// ErrInput (as *OptionError) for invalid options. Safe for concurrent use.
func Simulate(ctx context.Context, o SimOptions) (SimResult, error) {
	if err := o.Check(); err != nil {
		return SimResult{}, err
	}
	res := o.header()
	batches := 1
	if o.Replications == 1 {
		batches = min(maxBatches, o.customers()-o.Warmup)
	}
	var reps []tally
	var classReps [][]tally // [replication][class]
	var sim *replication
	for i := range o.Replications {
		if err := ctx.Err(); err != nil {
			return SimResult{}, err
		}
		if o.Progress != nil {
			o.Progress(i+1, o.Replications)
		}
		sim = newReplication(o, i, batches)
		if err := sim.run(ctx); err != nil {
			return SimResult{}, err
		}
		res.Events += sim.events
		reps = append(reps, sumTallies(sim.tallies))
		classReps = append(classReps, sim.classSums())
	}
	res.LastArrivals, res.LastResponses = sim.lastCustomers()
	res.Little = littleCheck(reps)
	var est [nMetrics]estimate
	if o.Replications > 1 {
		res.CIMethod, res.CISamples = CIReplications, len(reps)
		est = overReplications(reps, o.Servers)
	} else {
		res.CIMethod, res.CISamples = CIBatchMeans, len(sim.tallies)
		est = overBatches(reps[0], sim.tallies, o.Servers)
	}
	res.Classes = classResults(o, classReps, sim)
	return res, res.setMetrics(ctx, est, o)
}

func (o SimOptions) header() SimResult {
	r := SimResult{Model: kendall(o), Arrivals: o.Arrivals.String(), Service: o.Service.String(),
		Servers: o.Servers, Capacity: o.Capacity, Customers: o.customers(), Warmup: o.Warmup,
		Replications: o.Replications, Seed: o.Seed, OfferedLoad: offeredLoad(o),
		LastResponses: []float64{}, LastArrivals: []float64{}, Preemptive: o.Preemptive}
	if o.Patience.Kind != "" {
		r.Patience = o.Patience.String()
	}
	if len(o.Classes) > 0 {
		r.Arrivals, r.Service = o.classSpecs()
	}
	return r
}

func (r *SimResult) setMetrics(ctx context.Context, est [nMetrics]estimate, o SimOptions) error {
	x, err := modelAnalytic(ctx, o)
	if err != nil {
		return err
	}
	r.Analytic, r.Unstable = x.name, x.unstable
	r.setClassAnalytic(x)
	ms := make([]Metric, nMetrics)
	for i, e := range est {
		ms[i] = Metric{Mean: finite(e.mean), CILow: finite(e.low), CIHigh: finite(e.high), Analytic: x.v[i]}
	}
	r.W, r.Wq, r.L, r.Lq, r.Rho, r.PWait, r.Throughput = ms[mW], ms[mWq], ms[mL], ms[mLq], ms[mRho], ms[mPWait], ms[mX]
	if o.Capacity > 0 {
		r.Blocking = &ms[mBlock]
	}
	if o.Patience.Kind != "" {
		r.PAbandon, r.WqAbandoned, r.AbandonRate = &ms[mAbandon], &ms[mWqAbandoned], &ms[mAbandonRate]
	}
	return nil
}

// finite keeps NaN, which JSON cannot carry, out of results: a measure
// with nothing to measure (no customer served) reads 0.
func finite(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// kendall names the model in Kendall's notation: M for exponential, D for
// constant, G for anything else.
func kendall(o SimOptions) string {
	letter := func(kind string) string {
		switch kind {
		case KindExp:
			return "M"
		case KindConst:
			return "D"
		}
		return "G"
	}
	arr, svc := letter(o.Arrivals.Kind), letter(o.Service.Kind)
	if len(o.Classes) > 0 {
		arr, svc = "M", o.classLetter(letter)
	}
	name := arr + "/" + svc + "/" + strconv.Itoa(o.Servers)
	if o.Capacity > 0 {
		name += "/" + strconv.Itoa(o.Capacity)
	}
	if o.Patience.Kind != "" {
		name += "+" + letter(o.Patience.Kind)
	}
	return name
}

// offeredLoad is λ·E[S]/c, λ the rate of arrivals: a uniform spec's N/T, a
// trace's count over its last time.
func offeredLoad(o SimOptions) float64 {
	if len(o.Classes) > 0 {
		return o.classLoad() / float64(o.Servers)
	}
	var lambda float64
	switch a := o.Arrivals; a.Kind {
	case KindExp:
		lambda = a.Rate
	case KindUniform:
		lambda = float64(a.Count) / a.Span
	case KindTrace:
		if last := a.Times[len(a.Times)-1]; last > 0 {
			lambda = float64(len(a.Times)) / last
		}
	}
	return lambda * o.Service.MeanTime() / float64(o.Servers)
}

// analytic returns the exact measures of an M/M/c, M/M/c/K or M/G/1
// model, in the order of a tally's values (nil where there is none), or
// nothing for other models, for an unstable M/M/c or M/G/1 and for a load
// past MaxLoad; an error only when ctx is cancelled.
func analytic(ctx context.Context, o SimOptions) (name string, unstable bool, v [nMetrics]*float64, err error) {
	if o.Arrivals.Kind != KindExp || (o.Service.Kind != KindExp && (o.Servers > 1 || o.Capacity > 0)) {
		return "", false, v, nil
	}
	if o.Service.Kind != KindExp {
		return mg1Analytic(ctx, o)
	}
	lambda, mu, c := o.Arrivals.Rate, o.Service.Rate, o.Servers
	if o.Capacity == 0 {
		r, err := MMc(ctx, lambda, mu, c)
		if errors.Is(err, ErrInput) || (err == nil && !r.Stable) {
			return "", err == nil, v, nil
		}
		if err != nil {
			return "", false, v, err
		}
		return "M/M/c", false, pointers(r.W, r.Wq, r.L, r.Lq, r.Rho, r.PWait, math.NaN(), r.Throughput), nil
	}
	r, err := MMcK(ctx, lambda, mu, c, o.Capacity)
	if errors.Is(err, ErrInput) {
		return "", false, v, nil
	}
	if err != nil {
		return "", false, v, err
	}
	// An accepted arrival waits when it finds c to K-1 in the system.
	wait := 0.0
	for n := c; n < o.Capacity; n++ {
		wait += r.Probabilities[n]
	}
	return "M/M/c/K", false, pointers(r.W, r.Wq, r.L, r.Lq, r.LambdaEff/(float64(c)*mu),
		wait/(1-r.PK), r.PK, r.LambdaEff), nil
}

// pointers returns pointers to vs, nil for NaN.
func pointers(vs ...float64) (p [nMetrics]*float64) {
	for i, v := range vs {
		if !math.IsNaN(v) {
			p[i] = &vs[i]
		}
	}
	return p
}

// tally accumulates one replication's measures, or one batch's.
type tally struct {
	arrivals, blocked, served, waited int
	abandoned                         int
	w, wq                             float64 // sums over served customers
	abandonWait                       float64 // sum over those who abandoned
	area, queueArea, busyArea, dur    float64 // ∫N dt, ∫Nq dt, ∫busy dt, ∫dt
}

func sumTallies(ts []tally) tally {
	var s tally
	for _, t := range ts {
		s.arrivals, s.blocked, s.served, s.waited = s.arrivals+t.arrivals, s.blocked+t.blocked, s.served+t.served, s.waited+t.waited
		s.w, s.wq = s.w+t.w, s.wq+t.wq
		s.abandoned, s.abandonWait = s.abandoned+t.abandoned, s.abandonWait+t.abandonWait
		s.area, s.queueArea, s.busyArea, s.dur = s.area+t.area, s.queueArea+t.queueArea, s.busyArea+t.busyArea, s.dur+t.dur
	}
	return s
}

// values are t's measures, NaN where there is nothing to divide by.
func (t tally) values(c int) (v [nMetrics]float64) {
	div := func(a, b float64) float64 {
		if b == 0 {
			return math.NaN()
		}
		return a / b
	}
	served := float64(t.served)
	v[mW], v[mWq], v[mPWait] = div(t.w, served), div(t.wq, served), div(float64(t.waited), served)
	v[mL], v[mLq], v[mX] = div(t.area, t.dur), div(t.queueArea, t.dur), div(served, t.dur)
	v[mRho] = div(t.busyArea, float64(c)*t.dur)
	v[mBlock] = div(float64(t.blocked), float64(t.arrivals))
	v[mAbandon], v[mAbandonRate] = div(float64(t.abandoned), float64(t.arrivals)), div(float64(t.abandoned), t.dur)
	v[mWqAbandoned] = div(t.abandonWait, float64(t.abandoned))
	return v
}
