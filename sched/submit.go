package sched

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// ErrNoBackend is returned for a job that no backend of the engine serves.
var ErrNoBackend = errors.New("no backend serves the job")

// Submit queues jobs. Jobs are checked first: one that no backend serves,
// or with a class out of range, is rejected with an error naming it (joined
// into the returned error) and the rest are queued. With a journal, a job
// the journal has seen finish, or that another live process holds, is
// skipped (EventSkipped).
func (e *Engine) Submit(ctx context.Context, jobs ...*Job) error {
	now := e.clock.Now()
	ok, errs := e.admitShape(jobs, now)
	adm := make([]Admission, len(ok))
	for i := range adm {
		adm[i].Run = true
	}
	if e.opts.Journal != nil && len(ok) > 0 {
		var err error
		if adm, err = e.opts.Journal.Enqueue(ctx, ok); err != nil {
			return errors.Join(append(errs, fmt.Errorf("submit: journal: %w", err))...)
		}
	}
	var skipped []Event
	e.mu.Lock()
	if e.stopping {
		e.mu.Unlock()
		// The journal has them queued: they will not start.
		return errors.Join(append(errs, errors.New("submit: engine is stopping"), e.cancelUnstarted(ok))...)
	}
	for i, j := range ok {
		e.sum.Submitted++
		if !adm[i].Run {
			e.sum.Skipped++
			skipped = append(skipped, Event{Type: EventSkipped, Time: now, Job: j, State: adm[i].State, Owner: adm[i].Owner})
			continue
		}
		e.addPending()
		if adm[i].NotBefore.After(j.NotBefore) {
			j.NotBefore = adm[i].NotBefore // an earlier run's retry backoff
		}
		if j.NotBefore.After(now) {
			e.pushTimer(j.NotBefore, timerEvent{kind: evReady, job: j})
			continue
		}
		e.route(j, nil, now)
	}
	e.outbox = append(e.outbox, skipped...)
	e.unlock()
	return errors.Join(errs...)
}

// admitShape numbers the jobs and rejects those the engine cannot run.
func (e *Engine) admitShape(jobs []*Job, now time.Time) ([]*Job, []error) {
	ok := make([]*Job, 0, len(jobs))
	var errs []error
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, j := range jobs {
		e.nextID++
		j.ID = e.nextID
		if j.Key == "" {
			j.Key = e.instance + ":" + strconv.FormatInt(j.ID, 10)
		}
		if j.Enqueued.IsZero() {
			j.Enqueued = now
		}
		if j.Class == 0 {
			j.Class = P2
		}
		if err := e.servable(j); err != nil {
			errs = append(errs, fmt.Errorf("job %s (%s): %w", j.Key, j.Kind, err))
			continue
		}
		ok = append(ok, j)
	}
	return ok, errs
}

func (e *Engine) servable(j *Job) error {
	if !j.Class.valid() {
		return fmt.Errorf("priority %v out of range P0..P3", j.Class)
	}
	if j.Retries < 0 {
		return fmt.Errorf("negative retry budget %d", j.Retries)
	}
	if j.Backend != "" {
		b := e.byName[j.Backend]
		if b == nil {
			return fmt.Errorf("%w: no backend named %q", ErrNoBackend, j.Backend)
		}
		if !b.serves(j.Kind) {
			return fmt.Errorf("%w: backend %q does not serve kind %q", ErrNoBackend, j.Backend, j.Kind)
		}
		return nil
	}
	for _, b := range e.backends {
		if b.serves(j.Kind) {
			return nil
		}
	}
	return fmt.Errorf("%w: kind %q", ErrNoBackend, j.Kind)
}

func (e *Engine) addPending() {
	if e.pending == 0 && !e.drainDue {
		e.drained = make(chan struct{})
	}
	e.drainDue = false
	e.pending++
}

// settled marks one job's outcome; e.mu is held.
func (e *Engine) settled() {
	e.pending--
	if e.pending == 0 {
		e.drainDue = true // closed by unlock, after the events raised so far
	}
}

// route gives a ready job to a backend: it picks one by the dispatch
// policy, tags the job with its class's virtual finish time there, and
// wakes an idle worker of that backend. e.mu is held.
func (e *Engine) route(j *Job, avoid *backend, now time.Time) {
	if e.stopping {
		e.notStarted(j)
		return
	}
	b := e.pick(j, avoid)
	if b == nil {
		err := fmt.Errorf("%w: every backend for kind %q is down or has stopped taking it", ErrNoBackend, j.Kind)
		if j.Backend != "" {
			err = fmt.Errorf("%w: backend %s, the only one this job may run on, is down or has stopped taking kind %q", ErrNoBackend, j.Backend, j.Kind)
		}
		e.sum.Failed++
		e.settled()
		e.later(Event{Type: EventFailed, Time: now, Job: j, Attempt: j.Attempts, Err: err, Reason: "no backend"})
		return
	}
	j.ready = now
	b.enqueue(j, b.cost(j.Kind))
	e.classLen[j.Class.Index()]++
	e.opts.Metrics.queued(j.Class, e.classLen[j.Class.Index()])
	e.opts.Metrics.dispatched(b)
	b.wakeOne()
}
