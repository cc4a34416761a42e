package analyze

import (
	"fmt"
	"strings"
)

// SimClass is one priority class of a simulation: its customers arrive
// as a Poisson stream at Rate per second and take Service. A simulation
// has at most MaxClasses, as Priority: each event looks at every class's
// counts.
type SimClass struct {
	Rate    float64
	Service Service
}

// SimClassResult is what Simulate measured for one class, as SimResult
// does for all: W and Wq over its served customers (with preemption Wq is
// W less the customer's own service time), L and Lq time averages.
type SimClassResult struct {
	Class       int         `json:"class"` // 1 is the highest priority
	Lambda      float64     `json:"lambda"`
	Service     string      `json:"service"`
	W           Metric      `json:"w"`
	Wq          Metric      `json:"wq"`
	L           Metric      `json:"l"`
	Lq          Metric      `json:"lq"`
	PWait       Metric      `json:"p_wait"`
	PAbandon    *Metric     `json:"p_abandon,omitempty"`
	WqAbandoned *Metric     `json:"wq_abandoned,omitempty"`
	Throughput  Metric      `json:"throughput"`
	Little      LittleCheck `json:"little"`
}

// checkClasses reports what is wrong with o's classes, or with
// Preemptive without them; with classes, Arrivals and Service must be
// left unset, the classes having their own.
func (o SimOptions) checkClasses() []error {
	if len(o.Classes) == 0 {
		if o.Preemptive {
			return []error{optionErr("preemptive", "needs priority classes")}
		}
		return []error{o.Arrivals.check(), o.Service.check()}
	}
	if len(o.Classes) > MaxClasses {
		return []error{optionErr("lambda", "%d classes is above the limit %d", len(o.Classes), MaxClasses)}
	}
	var errs []error
	if o.Arrivals.Kind != "" {
		errs = append(errs, optionErr("arrivals", "priority classes arrive at their own rates: leave arrivals unset"))
	}
	if o.Service.Kind != "" {
		errs = append(errs, optionErr("service", "priority classes have their own service: leave service unset"))
	}
	for i, c := range o.Classes {
		if p := RateProblem(c.Rate); p != "" {
			errs = append(errs, optionErr("lambda", "class %d: rate %s", i+1, p))
		}
		if err := c.Service.check(); err != nil {
			errs = append(errs, optionErr("service", "class %d: %s", i+1, reason(err)))
		}
	}
	return errs
}

// classSpecs returns the arrivals and service of o's classes as specs:
// exp:0.5,1,2 and one service, or one per class when they differ.
func (o SimOptions) classSpecs() (arrivals, service string) {
	rates, svcs := make([]string, len(o.Classes)), make([]string, len(o.Classes))
	same := true
	for i, c := range o.Classes {
		rates[i], svcs[i] = fmt.Sprint(c.Rate), c.Service.String()
		same = same && svcs[i] == svcs[0]
	}
	if same {
		svcs = svcs[:1]
	}
	return "exp:" + strings.Join(rates, ","), strings.Join(svcs, ",")
}

// classLetter is the Kendall letter of the classes' service: theirs when
// they share it, G otherwise.
func (o SimOptions) classLetter(letter func(string) string) string {
	l := letter(o.Classes[0].Service.Kind)
	for _, c := range o.Classes[1:] {
		if letter(c.Service.Kind) != l {
			return "G"
		}
	}
	return l
}

// classLoad is Σ λ_k·E[S_k].
func (o SimOptions) classLoad() float64 {
	var a float64
	for _, c := range o.Classes {
		a += c.Rate * c.Service.MeanTime()
	}
	return a
}

// setClasses gives r o's classes: one Poisson stream at the total rate,
// each arrival's class drawn in proportion to the rates.
func (r *replication) setClasses(o SimOptions, batches int) {
	k := len(o.Classes)
	var total float64
	r.svc, r.share = make([]sampler, k), make([]float64, k)
	for i, c := range o.Classes {
		r.svc[i] = c.Service.sampler()
		total += c.Rate
		r.share[i] = total
	}
	for i := range r.share {
		r.share[i] /= total
	}
	r.arr = Arrivals{Kind: KindExp, Rate: total}.stream(r.rnd)
	r.classTallies = make([][]tally, batches)
	for i := range r.classTallies {
		r.classTallies[i] = make([]tally, k)
	}
	if o.Preemptive {
		r.pre = &preemption{serving: make([][]int, k)}
	}
}

// drawClass draws an arrival's class; 0 without classes or with one,
// which draws nothing, so that those runs are what a run without classes
// always was.
func (r *replication) drawClass() int {
	if len(r.share) < 2 {
		return 0
	}
	u := r.rnd.Float64()
	for k, s := range r.share {
		if u < s {
			return k
		}
	}
	return len(r.share) - 1
}

// advanceClasses adds dt to each class's time integrals in the current
// batch.
func (r *replication) advanceClasses(dt float64) {
	ts := r.classTallies[r.cur]
	for k := range ts {
		t := &ts[k]
		t.area += float64(r.inClass[k]) * dt
		t.queueArea += float64(r.inClass[k]-r.busyClass[k]) * dt
		t.busyArea += float64(r.busyClass[k]) * dt
		t.dur += dt
	}
}

// classSums returns each class's tally summed over r's batches, nil
// without classes.
func (r *replication) classSums() []tally {
	if r.classTallies == nil {
		return nil
	}
	sums := make([]tally, len(r.classTallies[0]))
	for k := range sums {
		sums[k] = sumTallies(r.classColumn(k))
	}
	return sums
}

// classColumn returns class k's tally in each of r's batches.
func (r *replication) classColumn(k int) []tally {
	col := make([]tally, len(r.classTallies))
	for b, ts := range r.classTallies {
		col[b] = ts[k]
	}
	return col
}

// classResults estimates each class's measures as Simulate does for all:
// over the replications' sums, or over the batches of the one there is.
func classResults(o SimOptions, reps [][]tally, last *replication) []SimClassResult {
	if len(o.Classes) == 0 {
		return nil
	}
	out := make([]SimClassResult, len(o.Classes))
	for k, c := range o.Classes {
		col := make([]tally, len(reps))
		for i := range reps {
			col[i] = reps[i][k]
		}
		var est [nMetrics]estimate
		if len(reps) > 1 {
			est = overReplications(col, o.Servers)
		} else {
			est = overBatches(col[0], last.classColumn(k), o.Servers)
		}
		m := func(i int) Metric {
			return Metric{Mean: finite(est[i].mean), CILow: finite(est[i].low), CIHigh: finite(est[i].high)}
		}
		out[k] = SimClassResult{Class: k + 1, Lambda: c.Rate, Service: c.Service.String(),
			W: m(mW), Wq: m(mWq), L: m(mL), Lq: m(mLq), PWait: m(mPWait), Throughput: m(mX), Little: littleCheck(col)}
		if o.Patience.Kind != "" {
			pa, wa := m(mAbandon), m(mWqAbandoned)
			out[k].PAbandon, out[k].WqAbandoned = &pa, &wa
		}
	}
	return out
}
