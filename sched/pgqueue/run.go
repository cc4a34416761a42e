package pgqueue

// Running: starting claimed jobs in free slots, each in its own
// goroutine with its timeout, and stopping them.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"calq/sched"
)

// startReady starts ready jobs while slots are free.
func (w *Worker) startReady(ctx context.Context, jobs *sync.WaitGroup) {
	w.mu.Lock()
	defer w.unlock()
	for w.busy < w.o.Jobs && len(w.ready) > 0 && ctx.Err() == nil {
		t := w.ready[0]
		w.ready = w.ready[1:]
		w.busy++
		t.started = time.Now()
		var tctx context.Context = context.WithValue(ctx, taskKey{}, t)
		tctx, t.cancel = context.WithCancelCause(context.WithoutCancel(tctx))
		t.ctx = tctx
		jobs.Add(1)
		w.later(WorkerEvent{Type: "started", Key: t.job.Key, Kind: t.job.Kind, Attempt: t.job.Attempts})
		go w.runTask(t, jobs)
	}
}

func (w *Worker) runTask(t *task, jobs *sync.WaitGroup) {
	defer jobs.Done()
	ctx := t.ctx
	if t.job.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, t.job.Timeout, sched.ErrTimeout)
		defer cancel()
	}
	err := w.safeRun(ctx, t)
	if c := context.Cause(ctx); errors.Is(c, sched.ErrTimeout) && err != nil {
		err = fmt.Errorf("%w after %v", sched.ErrTimeout, t.job.Timeout)
	}
	w.mu.Lock()
	t.finished, t.err = time.Now(), err
	w.busy--
	w.results = append(w.results, t)
	w.mu.Unlock()
	t.cancel(nil)
	w.signal()
}

func (w *Worker) safeRun(ctx context.Context, t *task) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = sched.Permanent(fmt.Errorf("worker panicked: %v", p))
		}
	}()
	return w.handlers[t.job.Kind].Run(ctx, t.job)
}

// stopAll cancels every running job with cause.
func (w *Worker) stopAll(cause error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, t := range w.tasks {
		if t.cancel != nil {
			t.cancel(cause)
		}
	}
}
