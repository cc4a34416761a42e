package sched

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"
)

// EngineBenchOptions configure BenchEngine.
type EngineBenchOptions struct {
	Jobs        int // no-op jobs per in-memory pass; default 1,000,000
	JournalJobs int // no-op jobs per journal pass; default 100,000
	Workers     int // workers of the one backend; default 8
	Passes      int // passes per row, best kept; default 3
	// OpenJournal opens a journal at path; nil leaves out the journal rows.
	OpenJournal func(ctx context.Context, path string) (Journal, error)
	Dir         string // where journal files go (a fresh one per pass)
}

// EngineBenchRow is one line of the engine benchmark.
type EngineBenchRow struct {
	Name       string  `json:"name"`
	Jobs       int     `json:"jobs"`
	Seconds    float64 `json:"seconds"`
	JobsPerSec float64 `json:"jobs_per_sec"`
	Baseline   string  `json:"baseline,omitempty"` // the row Ratio is taken against
	Ratio      float64 `json:"ratio,omitempty"`    // JobsPerSec / the baseline's
	Target     float64 `json:"target,omitempty"`   // the goal in jobs/s, when there is one
	Met        bool    `json:"met"`
}

// Engine benchmark goals, in jobs per second.
const (
	EngineGoalMemory  = 1_000_000
	EngineGoalJournal = 20_000
)

// BenchEngine measures the scheduler's overhead per job with no-op jobs:
// a bare channel-fed worker pool as the baseline, the engine in memory
// (with metrics on), and, given OpenJournal, the journal driven directly
// and the engine with the journal. Each row is the best of Passes.
func BenchEngine(ctx context.Context, o EngineBenchOptions) ([]EngineBenchRow, error) {
	o = benchDefaults(o)
	var rows []EngineBenchRow
	add := func(name string, jobs int, target float64, baseline string, f func() (time.Duration, error)) error {
		best := time.Duration(0)
		for range o.Passes {
			if err := ctx.Err(); err != nil {
				return err
			}
			d, err := f()
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if best == 0 || d < best {
				best = d
			}
		}
		r := EngineBenchRow{Name: name, Jobs: jobs, Seconds: best.Seconds(), JobsPerSec: float64(jobs) / best.Seconds(), Target: target, Baseline: baseline}
		for _, b := range rows {
			if b.Name == baseline {
				r.Ratio = r.JobsPerSec / b.JobsPerSec
			}
		}
		r.Met = target == 0 || r.JobsPerSec >= target
		rows = append(rows, r)
		return nil
	}
	if err := add("channel pool (baseline)", o.Jobs, 0, "", func() (time.Duration, error) { return benchChannelPool(o.Jobs, o.Workers), nil }); err != nil {
		return rows, err
	}
	if err := add("engine, in memory", o.Jobs, EngineGoalMemory, "channel pool (baseline)", func() (time.Duration, error) {
		return benchEngineRun(ctx, o.Jobs, o.Workers, nil)
	}); err != nil {
		return rows, err
	}
	if o.OpenJournal == nil {
		return rows, nil
	}
	pass := 0
	open := func() (Journal, error) {
		pass++
		return o.OpenJournal(ctx, filepath.Join(o.Dir, fmt.Sprintf("bench-%d.db", pass)))
	}
	if err := add("journal alone (baseline)", o.JournalJobs, 0, "", func() (time.Duration, error) {
		jn, err := open()
		if err != nil {
			return 0, err
		}
		defer jn.Close()
		return benchJournalDirect(ctx, jn, o.JournalJobs, o.Workers)
	}); err != nil {
		return rows, err
	}
	err := add("engine + journal", o.JournalJobs, EngineGoalJournal, "journal alone (baseline)", func() (time.Duration, error) {
		jn, err := open()
		if err != nil {
			return 0, err
		}
		defer jn.Close()
		return benchEngineRun(ctx, o.JournalJobs, o.Workers, jn)
	})
	return rows, err
}

func benchDefaults(o EngineBenchOptions) EngineBenchOptions {
	if o.Jobs <= 0 {
		o.Jobs = 1_000_000
	}
	if o.JournalJobs <= 0 {
		o.JournalJobs = 100_000
	}
	if o.Workers <= 0 {
		o.Workers = 8
	}
	if o.Passes <= 0 {
		o.Passes = 3
	}
	return o
}

func noopJobs(n int, prefix string) []*Job {
	jobs := make([]*Job, n)
	for i := range jobs {
		jobs[i] = &Job{Kind: "noop", Key: fmt.Sprintf("%s/%d", prefix, i)}
	}
	return jobs
}

// benchChannelPool is the floor any dispatcher is measured against: jobs
// through one buffered channel to a pool of goroutines, no ordering, no
// bookkeeping.
func benchChannelPool(n, workers int) time.Duration {
	jobs := noopJobs(n, "chan")
	ch := make(chan *Job, 1024)
	var wg sync.WaitGroup
	w := WorkerFunc(func(context.Context, *Job) error { return nil })
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for j := range ch {
				_ = w.Run(context.Background(), j)
			}
		})
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
	return time.Since(start)
}

// benchEngineRun pushes n no-op jobs through an engine with metrics on,
// submitting in batches of 256 and keeping at most 64k pending, the way a
// producer feeding a busy engine would.
func benchEngineRun(ctx context.Context, n, workers int, jn Journal) (time.Duration, error) {
	noop := WorkerFunc(func(context.Context, *Job) error { return nil })
	ws := make([]Worker, workers)
	for i := range ws {
		ws[i] = noop
	}
	e, err := NewEngine(EngineOptions{Backends: []Backend{{Name: "noop", Workers: ws}}, Journal: jn, Metrics: NewMetrics()})
	if err != nil {
		return 0, err
	}
	defer e.Close()
	jobs := noopJobs(n, fmt.Sprintf("bench-%d", time.Now().UnixNano()))
	start := time.Now()
	e.Start()
	for i := 0; i < n; i += 256 {
		for e.pendingCount() > 64<<10 {
			time.Sleep(100 * time.Microsecond)
		}
		if err := e.Submit(ctx, jobs[i:min(i+256, n)]...); err != nil {
			return 0, err
		}
	}
	sum, err := e.Wait(ctx)
	if err == nil && sum.Done != n {
		err = fmt.Errorf("%d of %d jobs done: %+v", sum.Done, n, sum)
	}
	return time.Since(start), err
}

func (e *Engine) pendingCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.pending
}

// benchJournalDirect records n jobs' lives straight into the journal from
// `workers` goroutines: the journal's own ceiling, without the engine.
func benchJournalDirect(ctx context.Context, jn Journal, n, workers int) (time.Duration, error) {
	jobs := noopJobs(n, fmt.Sprintf("direct-%d", time.Now().UnixNano()))
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := w * 256; i < n; i += workers * 256 {
				batch := jobs[i:min(i+256, n)]
				if _, err := jn.Enqueue(ctx, batch); err != nil {
					errs <- err
					return
				}
				for _, j := range batch {
					now := time.Now()
					if _, err := jn.Claim(ctx, j, "noop", now); err != nil {
						errs <- err
						return
					}
					if err := jn.Finish(ctx, Attempt{Job: j, Backend: "noop", Attempt: 1, State: StateDone, Started: now, Finished: time.Now()}); err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return time.Since(start), <-errs
}
