package schedbench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"calq/sched"
	"calq/sched/pgqueue"
)

// SharedGoal is the shared queue's goal with three workers, in jobs per
// second: a prototype claiming in batches measured 2.0–2.3k here.
const SharedGoal = 2000

// SharedOptions configure RunShared.
type SharedOptions struct {
	URL     string // the PostgreSQL database; the bench's jobs stay there, in batches named bench:*
	Jobs    int    // no-op jobs per pass; default 3000
	Workers int    // slots of each worker; default 8
}

// RunShared measures the shared queue on PostgreSQL: no-op jobs run by
// 1, 2 and 3 workers (each with a connection pool of its own, as on
// separate machines), then dispatch by claims against round-robin with a
// fast and a slow worker.
func RunShared(ctx context.Context, o SharedOptions) ([]EngineRow, error) {
	if o.Jobs <= 0 {
		o.Jobs = 3000
	}
	if o.Workers <= 0 {
		o.Workers = 8
	}
	var rows []EngineRow
	noop := sched.WorkerFunc(func(context.Context, *sched.Job) error { return nil })
	for n := 1; n <= 3; n++ {
		secs, _, err := sharedPass(ctx, o.URL, o.Jobs, []sched.Worker{noop, noop, noop}[:n], o.Workers, false)
		if err != nil {
			return rows, err
		}
		r := EngineRow{Name: fmt.Sprintf("postgres, %d worker(s)", n), Jobs: o.Jobs, Seconds: secs,
			JobsPerSec: float64(o.Jobs) / secs}
		if n > 1 {
			r.Baseline, r.Ratio = rows[0].Name, r.JobsPerSec/rows[0].JobsPerSec
		}
		if n == 3 {
			r.Target = SharedGoal
			r.Met = r.JobsPerSec >= SharedGoal
		}
		rows = append(rows, r)
	}
	// Dispatch: a worker three times as fast as the other. Claims let the
	// fast one take more; round-robin gives each half the jobs.
	sleeper := func(d time.Duration) sched.Worker {
		return sched.WorkerFunc(func(ctx context.Context, _ *sched.Job) error {
			select {
			case <-time.After(d):
				return nil
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		})
	}
	ws := []sched.Worker{sleeper(2 * time.Millisecond), sleeper(6 * time.Millisecond)}
	const djobs = 800
	rr, _, err := sharedPass(ctx, o.URL, djobs, ws, 2, true)
	if err != nil {
		return rows, err
	}
	pull, fastShare, err := sharedPass(ctx, o.URL, djobs, ws, 2, false)
	if err != nil {
		return rows, err
	}
	rrRow := EngineRow{Name: "round-robin, fast+slow worker", Jobs: djobs, Seconds: rr, JobsPerSec: djobs / rr,
		Detail: "fast worker's share 50%"}
	rows = append(rows, rrRow, EngineRow{Name: "claims, fast+slow worker", Jobs: djobs, Seconds: pull,
		JobsPerSec: djobs / pull, Baseline: rrRow.Name, Ratio: rr / pull,
		Detail: fmt.Sprintf("fast worker's share %.0f%% (2 ms vs 6 ms a job, 2 slots each)", 100*fastShare)})
	return rows, nil
}

// sharedPass submits jobs and runs one worker per handler until they are
// all done; with split, each worker takes only its own half (round-robin
// assignment). It returns the seconds from submit to the last record and
// the first worker's share of the jobs.
func sharedPass(ctx context.Context, url string, jobs int, handlers []sched.Worker, slots int, split bool) (float64, float64, error) {
	q, err := pgqueue.Open(ctx, url, pgqueue.Options{})
	if err != nil {
		return 0, 0, err
	}
	defer q.Close()
	batches := make([]string, len(handlers))
	for i := range batches {
		if batches[i], err = q.Batch(ctx, fmt.Sprintf("bench:%d", time.Now().UnixNano()), true); err != nil {
			return 0, 0, err
		}
		if !split {
			batches = batches[:1]
			break
		}
	}
	qs := make([]*pgqueue.Queue, len(handlers))
	for i := range qs {
		if qs[i], err = pgqueue.Open(ctx, url, pgqueue.Options{}); err != nil {
			return 0, 0, err
		}
		defer qs[i].Close()
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	var errs []error
	var mu sync.Mutex
	ran := make([]atomic.Int64, len(handlers))
	start := time.Now()
	for i, h := range handlers {
		wo := pgqueue.WorkerOptions{Jobs: slots}
		if split {
			wo.Batch = batches[i]
		}
		w := qs[i].NewWorker(wo)
		w.Handle("bench", sched.WorkerFunc(func(ctx context.Context, j *sched.Job) error {
			ran[i].Add(1)
			return h.Run(ctx, j)
		}))
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Run(wctx); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	for _, b := range batches {
		n := jobs / len(batches)
		js := make([]*sched.Job, n)
		for k := range js {
			js[k] = &sched.Job{Key: fmt.Sprintf("%s/%d", b, k+1), Kind: "bench"}
		}
		if _, err := q.Submit(ctx, b, js); err != nil {
			return 0, 0, err
		}
	}
	for {
		open := 0
		for _, b := range batches {
			p, err := q.Progress(ctx, b)
			if err != nil {
				return 0, 0, err
			}
			open += p.Open()
		}
		if open == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return 0, 0, context.Cause(ctx)
		case <-time.After(5 * time.Millisecond):
		}
	}
	secs := time.Since(start).Seconds()
	stop()
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, 0, err
	}
	return secs, float64(ran[0].Load()) / float64(jobs), nil
}
