package schedbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Names accepted by Options, in the order Run produces rows.
var (
	// QueueNames are the queues Run drives: the calendar queue under each
	// resize policy, the typed heaps, and container/heap over boxed entries
	// (one allocation per push, as it boxes every element through an interface:
	// a typed heap is the fair baseline).
	QueueNames = []string{"cq-pram", "cq-brown", "heap2", "heap4", "container-heap"}
	// ModelNames are the workloads: classic hold, up/down and Markov hold.
	ModelNames = []string{"hold", "updown", "markov"}
	// DistNames are the increment distributions of bench_dist.go.
	DistNames = []string{"exp", "uniform", "triangular", "negtriangular", "bimodal", "camel"}
)

// ErrOptions is wrapped by every error Run returns for options it
// cannot run: unknown names, sizes or op counts out of range.
var ErrOptions = errors.New("invalid option")

// maxBenchN bounds Sizes and Ops so one row's queue and per-op timings
// (8 bytes per op) stay within a few hundred MB.
const maxBenchN = 10_000_000

// Options selects the rows Run measures. Empty Queues, Models or
// Dists mean all of QueueNames, ModelNames or DistNames.
type Options struct {
	Queues []string // subset of QueueNames
	Models []string // subset of ModelNames
	Dists  []string // subset of DistNames
	Sizes  []int    // pending events N, 1..10^7; required unless Trace is set
	// Ops is the number of operations measured per row, 0 for the default
	// clamp(N/2, 200_000, 500_000). A hold row at N = 10^6 costs two passes
	// of fill, N warm-up holds and Ops holds, about 2 s at that default
	// (3.5 s at 2·N), so the full grid at 10^3..10^6 takes about 5 minutes
	// on 2 cores, most of it in the fixed fill and warm-up at 10^6. Up/down
	// rounds it up to whole fill-and-drain cycles; the trace ignores it.
	Ops  int
	Seed int64 // seeds PCG; every queue in a row group sees the same keys
	// Trace is "" for the models × dists grid, or "bursty" for the
	// Markov-modulated trace of bench_dist.go alone, on cq-pram and cq-brown.
	Trace    string
	Progress io.Writer // if set, gets one line per finished row
}

// Row is one measured (queue, model, dist, size). An op is one hold
// (pop + push) in the hold model, one push or pop in up/down and in the
// trace, and one step (push, pop or a pop on empty) in the Markov model.
type Row struct {
	Queue string `json:"queue"`
	Model string `json:"model"` // a ModelNames entry, or "trace"
	Dist  string `json:"dist"`  // a DistNames entry, or "bursty"
	Size  int    `json:"size"`  // N, or the number of arrivals of the trace
	// NsPerOp is the wall time of the whole measured loop over its ops,
	// the best of throughputPasses passes.
	NsPerOp float64 `json:"ns_per_op"`
	// MaxOpNs and P999OpNs come from latencyReplays further passes over
	// the same workload timing each op alone, an op's time being its least
	// over the replays; they include the increment draw and the clock reads
	// (25-60 ns here).
	MaxOpNs  int64 `json:"max_op_ns"`
	P999OpNs int64 `json:"p999_op_ns"`
	Resizes  int   `json:"resizes"` // Stats().Resizes (bucket-count changes) after that pass; 0 for heaps
	// AllocsPerOp is the heap allocations per measured op of that pass
	// (runtime.MemStats.Mallocs). It feeds the allocation goal and is left
	// out of the JSON rows, whose schema is fixed.
	AllocsPerOp float64 `json:"-"`
}

func (r Row) String() string {
	return fmt.Sprintf("%-14s %-6s %-13s n=%-8d %9.1f ns/op  max %9d ns  p99.9 %7d ns  resizes %d",
		r.Queue, r.Model, r.Dist, r.Size, r.NsPerOp, r.MaxOpNs, r.P999OpNs, r.Resizes)
}

// Run measures each selected row in turn on the calling goroutine: a
// throughput pass, then a pass that times every op (see Row). A row
// costs about (N + 2·Ops) queue operations per pass. Run checks ctx
// between rows and every 65536 ops inside them; on cancellation it returns
// the rows finished so far with ctx.Err(). Calls share no state, but two at
// once skew each other's timings.
func Run(ctx context.Context, o Options) ([]Row, error) {
	jobs, err := o.jobs()
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	var lat []int64 // reused across rows: up to 32 MB at default Ops
	rows := make([]Row, 0, len(jobs))
	for _, j := range jobs {
		if err := ctx.Err(); err != nil {
			return rows, err
		}
		var row Row
		row, lat, err = j.measure(ctx, lat)
		if err != nil {
			return rows, err
		}
		rows = append(rows, row)
		if o.Progress != nil {
			fmt.Fprintln(o.Progress, row)
		}
	}
	return rows, nil
}

// benchJob is everything needed to replay one row's workload exactly.
type benchJob struct {
	queue, model, dist string
	n, ops             int
	seed               int64
}

func (o Options) jobs() ([]benchJob, error) {
	queues, err1 := pick("queue", o.Queues, QueueNames)
	models, err2 := pick("model", o.Models, ModelNames)
	dists, err3 := pick("dist", o.Dists, DistNames)
	if err := errors.Join(err1, err2, err3, o.checkNumbers()); err != nil {
		return nil, err
	}
	switch o.Trace {
	case "":
	case "bursty":
		return o.traceJobs(queues)
	default:
		return nil, fmt.Errorf("%w: unknown trace %q (want bursty)", ErrOptions, o.Trace)
	}
	if len(o.Sizes) == 0 {
		return nil, fmt.Errorf("%w: no sizes", ErrOptions)
	}
	var jobs []benchJob
	for _, m := range models {
		for _, d := range dists {
			for _, n := range o.Sizes {
				for _, q := range queues {
					jobs = append(jobs, benchJob{q, m, d, n, o.opsFor(n), o.Seed})
				}
			}
		}
	}
	return jobs, nil
}

func (o Options) traceJobs(queues []string) ([]benchJob, error) {
	n := traceMinArrivals
	if len(o.Sizes) > 0 {
		n = max(n, slices.Max(o.Sizes))
	}
	var jobs []benchJob
	for _, q := range queues {
		if q == "cq-pram" || q == "cq-brown" {
			jobs = append(jobs, benchJob{q, "trace", "bursty", n, 0, o.Seed})
		}
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%w: the bursty trace needs cq-pram or cq-brown", ErrOptions)
	}
	return jobs, nil
}

func (o Options) checkNumbers() error {
	var errs []error
	for _, n := range o.Sizes {
		if n < 1 || n > maxBenchN {
			errs = append(errs, fmt.Errorf("%w: size %d out of range 1..%d", ErrOptions, n, maxBenchN))
		}
	}
	if o.Ops < 0 || o.Ops > maxBenchN {
		errs = append(errs, fmt.Errorf("%w: ops %d out of range 0..%d", ErrOptions, o.Ops, maxBenchN))
	}
	return errors.Join(errs...)
}

func (o Options) opsFor(n int) int {
	if o.Ops > 0 {
		return o.Ops
	}
	return min(max(n/2, 200_000), 500_000)
}

// pick returns got, or all of valid when got is empty.
func pick(kind string, got, valid []string) ([]string, error) {
	if len(got) == 0 {
		return valid, nil
	}
	for _, g := range got {
		if !slices.Contains(valid, g) {
			return nil, fmt.Errorf("%w: unknown %s %q (want one of %s)",
				ErrOptions, kind, g, strings.Join(valid, ", "))
		}
	}
	return got, nil
}

// measure runs j twice, the second time timing each op into lat (grown as
// needed and returned for reuse).
// latencyReplays is how many identical replays (same seed, fresh queue)
// time each operation; an operation's time is its least over the replays.
// A stall of the queue itself (a rebuild, a long scan) happens at the same
// operation in every replay and survives the minimum; the process being
// descheduled or a page fault hits one replay at random and does not. On a
// shared 2-core machine that noise alone reaches milliseconds, which would
// hide what the max-op figure is about.
const latencyReplays = 3

// throughputPasses is how many untimed-per-op passes a row runs; ns_per_op
// is the best of them. The first row of a size meets a cold process (fresh
// pages from the OS, a heap the collector has not sized yet) and one pass
// alone made the same combination vary by half between runs here.
const throughputPasses = 2

func (j benchJob) measure(ctx context.Context, lat []int64) (Row, []int64, error) {
	var first *workload
	for range throughputPasses {
		w, err := j.pass(ctx, nil)
		if err != nil {
			return Row{}, lat, err
		}
		if first == nil || w.elapsed.Seconds()/float64(max(w.done, 1)) < first.elapsed.Seconds()/float64(max(first.done, 1)) {
			first = w
		}
	}
	c := j.maxOps()
	if cap(lat) < 2*c {
		lat = make([]int64, 2*c)
	}
	best, cur := lat[:c], lat[c:2*c]
	done := 0
	for r := range latencyReplays {
		buf := cur
		if r == 0 {
			buf = best
		}
		w, err := j.pass(ctx, buf)
		if err != nil {
			return Row{}, lat, err
		}
		if r == 0 {
			done = w.done
			continue
		}
		for i := range min(done, w.done) {
			best[i] = min(best[i], cur[i])
		}
	}
	maxNs, p999 := tail(best[:done])
	return Row{
		Queue: j.queue, Model: j.model, Dist: j.dist, Size: j.n,
		NsPerOp: float64(first.elapsed.Nanoseconds()) / float64(max(first.done, 1)),
		MaxOpNs: maxNs, P999OpNs: p999, Resizes: first.q.resizes(),
		AllocsPerOp: float64(first.mallocs) / float64(max(first.done, 1)),
	}, lat, nil
}

// tail returns the largest value of lat and its 99.9th percentile (the
// smallest value at least 99.9 % of lat do not exceed). It reorders lat.
func tail(lat []int64) (maxNs, p999 int64) {
	if len(lat) == 0 {
		return 0, 0
	}
	k := (len(lat)*999+999)/1000 - 1 // ceil(0.999·n) - 1
	return slices.Max(lat), nth(lat, k)
}

// nth reorders a so that a[k] holds what it would hold were a sorted, and
// returns it: Hoare's quickselect, expected O(len(a)), no allocation.
// Stopping on equal values keeps the splits balanced when timings repeat.
func nth(a []int64, k int) int64 {
	lo, hi := 0, len(a)-1
	for lo < hi {
		p := a[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for a[i] < p {
				i++
			}
			for a[j] > p {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i, j = i+1, j-1
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default: // j < k < i: a[k] == p
			return a[k]
		}
	}
	return a[k]
}
