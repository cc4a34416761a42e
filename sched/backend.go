package sched

import "calq/sched/cq"

// backend is a Backend's runtime state; every field is guarded by Engine.mu.
type backend struct {
	Backend
	kinds    map[string]bool // nil: every kind
	ready    *cq.Queue[float64, *Job]
	vt       float64             // virtual time: the tag of the last job dispatched (self-clocked WFQ)
	finish   [NumClasses]float64 // each class's last virtual finish time
	busy     int
	down     bool
	idle     []*slot
	est      map[string]*serviceEstimate // per job kind
	streak   map[string]int              // failures in a row per kind
	disabled map[string]bool             // kinds the backend stopped taking
	warned   map[string]bool             // kinds whose current streak was reported without disabling
	series   *backendSeries              // its metrics; nil without
}

func newBackend(b Backend) *backend {
	nb := &backend{
		Backend:  b,
		ready:    cq.NewQueue[float64, *Job](cq.Options{}),
		est:      map[string]*serviceEstimate{},
		streak:   map[string]int{},
		disabled: map[string]bool{},
		warned:   map[string]bool{},
	}
	if len(b.Kinds) > 0 {
		nb.kinds = map[string]bool{}
		for _, k := range b.Kinds {
			nb.kinds[k] = true
		}
	}
	return nb
}

// serves reports whether the backend serves kind at all (down or not).
func (b *backend) serves(kind string) bool { return b.kinds == nil || b.kinds[kind] }

// takes reports whether the backend can be given a job of kind now.
func (b *backend) takes(kind string) bool { return b.serves(kind) && !b.down && !b.disabled[kind] }

// enqueue files j under its weighted-fair-queueing tag: the class's virtual
// finish time, max(V, F_c) + cost/w_c, where V is the tag of the job last
// dispatched (self-clocked fair queueing). A backlogged class therefore
// advances by cost/w_c per job, and under saturation the classes are served
// in proportion to their weights; an idle class re-enters at V, so it
// neither starves nor hoards credit.
func (b *backend) enqueue(j *Job, cost float64) {
	c := j.Class.Index()
	tag := max(b.vt, b.finish[c]) + cost/j.Class.Weight()
	b.finish[c] = tag
	b.ready.Push(tag, j)
}

// pop takes the job with the smallest tag and advances the virtual time.
func (b *backend) pop() (*Job, bool) {
	tag, j, ok := b.ready.Pop()
	if ok {
		b.vt = tag
	}
	return j, ok
}

// cost is the service a job of kind is expected to take here, in seconds:
// the learned mean, or 1 before anything is learned. Only ratios between
// classes matter to the tags.
func (b *backend) cost(kind string) float64 {
	if est, ok := b.estimate(kind); ok {
		return est
	}
	return 1
}

func (b *backend) estimate(kind string) (float64, bool) {
	if e := b.est[kind]; e != nil && e.n > 0 {
		return e.mean(), true
	}
	return 0, false
}

func (b *backend) learn(kind string, seconds float64) {
	e := b.est[kind]
	if e == nil {
		e = &serviceEstimate{}
		b.est[kind] = e
	}
	e.add(seconds)
}

// load is the backend's load factor: jobs queued or running per worker.
func (b *backend) load() float64 {
	return float64(b.ready.Len()+b.busy) / float64(len(b.Workers))
}

// wakeOne hands the backend's newest job to an idle worker, if any.
func (b *backend) wakeOne() {
	if n := len(b.idle); n > 0 && !b.down {
		s := b.idle[n-1]
		b.idle[n-1] = nil
		b.idle = b.idle[:n-1]
		s.wake <- struct{}{}
	}
}

// estimatorWindow is how many completions the service time estimate keeps.
const estimatorWindow = 100

// serviceEstimate is the mean of the last estimatorWindow service times.
type serviceEstimate struct {
	ring [estimatorWindow]float64
	next int
	n    int
	sum  float64
}

func (e *serviceEstimate) add(x float64) {
	if e.n == estimatorWindow {
		e.sum -= e.ring[e.next]
	} else {
		e.n++
	}
	e.ring[e.next] = x
	e.sum += x
	e.next = (e.next + 1) % estimatorWindow
	if e.next == 0 { // once per lap, drop the rounding the running sum gathered
		e.sum = 0
		for _, v := range e.ring[:e.n] {
			e.sum += v
		}
	}
}

func (e *serviceEstimate) mean() float64 { return max(e.sum/float64(e.n), 1e-9) }
