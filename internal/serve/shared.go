package serve

// The shared queue (Options.Shared): the server's jobs convert their
// files through it, and the server serves it with its pool as a calq
// worker of the convert kinds does.

import (
	"context"
	"errors"
	"fmt"

	"calq/convert"
	"calq/sched/pgqueue"
)

// SharedConns is how many connections to the shared queue a server
// needs at most, with instances LibreOffice instances and maxActive jobs
// at once (0: Options.MaxActive's default): each running job keeps one
// while it follows its batch, and needs another now and then; the
// server's worker keeps one for the queue's notifications, and its jobs
// and heartbeats take one each for a moment. Open the queue of
// Options.Shared with as many (pgqueue.Options.MaxConns): with fewer, the
// jobs' connections starve the worker, which stops its jobs for an
// outage, and the jobs wait for ever.
func SharedConns(instances, maxActive int) int {
	instances = max(instances, 1)
	if maxActive <= 0 {
		maxActive = defaultMaxActive(instances)
	}
	return maxActive + 2*instances + 4
}

// defaultMaxActive is Options.MaxActive's default: four jobs per
// instance.
func defaultMaxActive(instances int) int { return 4 * instances }

// servedQueue is the shared queue as the server's jobs see it. The
// server's own worker takes every conversion kind while its jobs run, so
// none is unserved: convert.Run's look for a live worker is skipped,
// which would also fail a job submitted in the seconds after an outage,
// before the worker's heartbeat is written again.
type servedQueue struct{ convert.Shared }

func (servedQueue) Unserved(context.Context, []string, string) error { return nil }

// sharedWorker is the server's worker on the shared queue, from Start
// to Stop.
type sharedWorker struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when it has stopped
	err    error         // why it stopped, once done is closed
}

// startWorker starts the server's worker: the convert kinds, on the
// server's pool, two jobs per instance at once (one converting, one
// fetching or storing its files).
func (s *Server) startWorker() error {
	rw, err := convert.NewSharedWorkerOn(s.opts.Shared, s.opts.Pool)
	if err != nil {
		return err
	}
	rw.PDF = s.pdf
	w := s.opts.Shared.NewWorker(pgqueue.WorkerOptions{Jobs: 2 * s.instances, Name: s.opts.SharedName, Events: s.opts.SharedEvents})
	for _, k := range convert.Kinds() {
		w.Handle(k, rw)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sw := &sharedWorker{cancel: cancel, done: make(chan struct{})}
	go func() {
		err := errors.Join(w.Run(ctx), rw.Close())
		if ctx.Err() == nil && err == nil {
			err = errors.New("it ended")
		}
		if err != nil {
			sw.err = fmt.Errorf("the shared queue's worker: %w", err)
		}
		close(sw.done)
	}()
	s.worker = sw
	return nil
}

// stopWorker stops the server's worker: its running jobs go back to the
// queue for another worker.
func (s *Server) stopWorker() {
	if s.worker == nil {
		return
	}
	if s.Err() != nil {
		return // it failed before: Err told the caller
	}
	s.worker.cancel()
	<-s.worker.done
	if s.worker.err != nil {
		s.opts.Log.Error("shared queue", "err", s.worker.err)
	}
}

// Failed is closed when the server's worker on the shared queue has
// stopped: by Stop, or before it when the worker failed (Err says why),
// and then the server's jobs may wait for ever: calq serve ends. It is
// nil, never closed, without Options.Shared.
func (s *Server) Failed() <-chan struct{} {
	if s.worker == nil {
		return nil
	}
	return s.worker.done
}

// Err is why the server's worker on the shared queue stopped, once
// Failed is closed; nil while it runs, and after a clean stop.
func (s *Server) Err() error {
	if s.worker == nil {
		return nil
	}
	select {
	case <-s.worker.done:
		return s.worker.err
	default:
		return nil
	}
}
