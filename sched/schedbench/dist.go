package schedbench

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"time"
)

// Increment distributions of the classic priority-queue benchmarks (Rönngren
// and Ayani, "A comparative study of parallel and sequential priority queue
// algorithms", ACM TOMACS 7(2), 1997). All are non-negative, so a hold
// never schedules into the past. Means: exp, uniform, triangular and camel
// 1; negtriangular 0.5; bimodal 0.1·(9.5238+0.47619) + 0.9·0.47619 ≈ 1.4286
// as the formula is written.
var dists = map[string]func(*rand.Rand) float64{
	"exp":           func(r *rand.Rand) float64 { return r.ExpFloat64() },
	"uniform":       func(r *rand.Rand) float64 { return 2 * r.Float64() },
	"triangular":    func(r *rand.Rand) float64 { return 1.5 * math.Sqrt(r.Float64()) },
	"negtriangular": func(r *rand.Rand) float64 { return 1.5 * (1 - math.Sqrt(r.Float64())) },
	"bimodal":       bimodalIncr,
	"camel":         camelIncr,
}

func bimodalIncr(r *rand.Rand) float64 {
	if r.Float64() < 0.1 {
		return 9.5238 + 0.95238*r.Float64()
	}
	return 0.95238 * r.Float64()
}

// Camel: two humps of width camelWidth centred at 0.5 and 1.5, chosen with
// equal odds, take camelHumpMass of the draws, uniform inside the hump; the
// rest is uniform on [0,2). The humps cover 2·0.001 = 0.1 % of [0,2) and
// hold 99.9 % of the mass (99.9001 % counting the uniform part falling in
// them), which crowds each calendar bucket that overlaps a hump.
const (
	camelWidth    = 0.001
	camelHumpMass = 0.999
)

func camelIncr(r *rand.Rand) float64 {
	if r.Float64() >= camelHumpMass {
		return 2 * r.Float64()
	}
	c := 0.5
	if r.Uint64()&1 == 1 {
		c = 1.5
	}
	return c + camelWidth*(r.Float64()-0.5)
}

// The bursty trace is a Markov-modulated Poisson arrival process feeding a
// single exponential server. The arrival rate is traceBaseRate, or k times
// that in a burst, k ~ U[5,20] drawn at each burst start; periods are
// exponential with the means below. The base period is 10000 rather than a
// shorter one so the queue is stable: the mean arrival rate is
// (10000·1 + 200·12.5)/10200 ≈ 1.23 < μ = 1.5 (with 2000 it would be 2.05
// and the backlog would grow without bound). A burst adds ≈ (12.5-1.5)·200
// = 2200 events, drained in ≈ 4400 time units, so the backlog rises and
// falls by thousands: the resize policy's test.
const (
	traceBaseRate  = 1.0
	traceServeRate = 1.5
	traceBaseMean  = 10_000.0
	traceBurstMean = 200.0
)

// traceMinArrivals is the least trace length; a variable for tests.
var traceMinArrivals = 200_000

// ctxEvery is how many ops run between checks of ctx.
const ctxEvery = 1 << 16

// workload is one pass of a row: a queue, the seeded increments, and the
// time and ops measured so far.
type workload struct {
	j       benchJob
	q       pq
	rng     *rand.Rand
	incr    func(*rand.Rand) float64
	now     float64 // key of the last event popped
	lat     []int64 // per-op times, nil in the throughput pass
	elapsed time.Duration
	done    int    // ops measured
	mallocs uint64 // heap allocations during the measured ops (throughput pass)
	burst   bool
	rate    float64 // current arrival rate of the trace
	arrived int
}

func newWorkload(j benchJob, lat []int64) *workload {
	w := &workload{j: j, q: newPQ(j.queue), lat: lat, rate: traceBaseRate}
	w.rng = rand.New(rand.NewPCG(uint64(j.seed), 0x9e3779b97f4a7c15))
	w.incr = dists[j.dist]
	return w
}

// pass runs j once on a fresh queue; lat, if not nil, gets each op's time.
func (j benchJob) pass(ctx context.Context, lat []int64) (*workload, error) {
	w := newWorkload(j, lat)
	var err error
	switch j.model {
	case "hold":
		err = w.hold(ctx)
	case "updown":
		err = w.updown(ctx)
	case "markov":
		err = w.markov(ctx)
	case "trace":
		err = w.measure(ctx, 2*j.n, w.traceStep)
	}
	return w, err
}

// maxOps is the most ops one pass of j measures.
func (j benchJob) maxOps() int {
	switch j.model {
	case "updown":
		return j.updownReps() * 2 * j.n
	case "trace":
		return 2 * j.n
	}
	return j.ops
}

// updownReps is how many fill-and-drain cycles make at least ops ops.
func (j benchJob) updownReps() int { return max(1, (j.ops+2*j.n-1)/(2*j.n)) }

func (w *workload) hold(ctx context.Context) error {
	if err := w.untimed(ctx, w.j.n, w.pushStep); err != nil {
		return err
	}
	if err := w.untimed(ctx, w.j.n, w.holdStep); err != nil {
		return err
	}
	return w.measure(ctx, w.j.ops, w.holdStep)
}

// updown fills a fresh queue with N events and drains it, as many times as
// it takes to reach Ops (rounded up to a whole cycle, so the Ops figures of
// a row are comparable across N); only pushes and pops are timed.
func (w *workload) updown(ctx context.Context) error {
	for i := range w.j.updownReps() {
		if i > 0 {
			w.q, w.now = newPQ(w.j.queue), 0
		}
		if err := w.measure(ctx, w.j.n, w.pushStep); err != nil {
			return err
		}
		if err := w.measure(ctx, w.j.n, w.popStep); err != nil {
			return err
		}
	}
	return nil
}

func (w *workload) markov(ctx context.Context) error {
	if err := w.untimed(ctx, w.j.n, w.pushStep); err != nil {
		return err
	}
	return w.measure(ctx, w.j.ops, w.markovStep)
}

// Steps do one op and report whether they did; false ends the loop.
func (w *workload) pushStep() bool { w.q.push(w.now + w.incr(w.rng)); return true }
func (w *workload) popStep() bool  { w.now = w.q.pop(); return true }

func (w *workload) holdStep() bool {
	t := w.q.pop()
	w.q.push(t + w.incr(w.rng))
	return true
}

func (w *workload) markovStep() bool {
	if w.rng.Uint64()&1 == 0 {
		return w.pushStep()
	}
	if w.q.len() > 0 {
		w.now = w.q.pop()
	}
	return true
}

// traceStep advances the trace to its next push or pop and does it;
// switches of state and services of an empty queue are not ops.
func (w *workload) traceStep() bool {
	for w.arrived < w.j.n {
		switchRate := 1 / traceBaseMean
		if w.burst {
			switchRate = 1 / traceBurstMean
		}
		total := w.rate + traceServeRate + switchRate
		w.now += w.rng.ExpFloat64() / total
		switch u := w.rng.Float64() * total; {
		case u < w.rate:
			w.arrived++
			w.q.push(w.now)
			return true
		case u < w.rate+traceServeRate:
			if w.q.len() > 0 {
				w.q.pop()
				return true
			}
		default:
			w.burst = !w.burst
			w.rate = traceBaseRate
			if w.burst {
				w.rate *= 5 + 15*w.rng.Float64()
			}
		}
	}
	return false
}

// measure runs up to n steps, adding their time and count to w; before the
// pass's first measured loop it collects garbage, so that the fill's
// garbage is not charged to it.
func (w *workload) measure(ctx context.Context, n int, step func() bool) error {
	if w.done == 0 {
		runtime.GC()
	}
	var lat []int64
	if w.lat != nil {
		lat = w.lat[w.done:]
	}
	var before, after runtime.MemStats
	if w.lat == nil { // the throughput pass also counts allocations
		runtime.ReadMemStats(&before)
	}
	d, k, err := loop(ctx, n, lat, step)
	if w.lat == nil {
		runtime.ReadMemStats(&after)
		w.mallocs += after.Mallocs - before.Mallocs
	}
	w.elapsed += d
	w.done += k
	return err
}

func (w *workload) untimed(ctx context.Context, n int, step func() bool) error {
	_, _, err := loop(ctx, n, nil, step)
	return err
}

// loop runs step up to n times or until it returns false, checking ctx
// every ctxEvery steps; with lat it also times each step into lat[i].
func loop(ctx context.Context, n int, lat []int64, step func() bool) (time.Duration, int, error) {
	start := time.Now()
	for i := range n {
		if i%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return time.Since(start), i, err
			}
		}
		if lat == nil {
			if !step() {
				return time.Since(start), i, nil
			}
			continue
		}
		t0 := time.Now()
		ok := step()
		lat[i] = int64(time.Since(t0))
		if !ok {
			return time.Since(start), i, nil
		}
	}
	return time.Since(start), n, nil
}
