package sched

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// result is the outcome of one attempt.
type result struct {
	run       *run
	skipped   bool // claimed by another process: not run here
	state     State
	err       error
	reason    string
	permanent bool
	finished  time.Time
	retryAt   time.Time
	next      *run // the worker's next job, taken ahead while this was recorded
}

// classify names an attempt's outcome and decides on a retry: failures and
// timeouts are retried while the job's budget lasts, unless permanent;
// jobs cancelled by a stop are not (a re-run resumes them).
func (e *Engine) classify(r *run, err error, finished time.Time) *result {
	res := &r.res
	*res = result{run: r, err: err, finished: finished, state: StateDone}
	if err == nil {
		return res
	}
	switch cause := context.Cause(r.ctx); {
	case errors.Is(cause, ErrStopped):
		res.state, res.reason = StateCancelled, "cancelled"
	case errors.Is(cause, ErrTimeout):
		res.state, res.reason = StateTimedOut, "timeout"
		res.err = fmt.Errorf("%w after %v", ErrTimeout, r.job.Timeout)
	case errors.Is(err, ErrTimeout):
		// The worker kept its own clock (it started it after a set-up
		// that the job's timeout must not cover) and ran out of it. It
		// may mark the timeout permanent: a document that hangs its
		// converter hangs it again.
		res.state, res.reason = StateTimedOut, "timeout"
		res.permanent = IsPermanent(err)
	default:
		res.state, res.reason = StateFailed, ReasonOf(err)
		res.permanent = IsPermanent(err)
	}
	j := r.job
	if res.state != StateCancelled && !res.permanent && j.Attempts <= j.Retries {
		res.retryAt = finished.Add(e.backoff(j.Attempts))
	}
	return res
}

// backoff is the delay before retry n (n ≥ 1).
func (e *Engine) backoff(n int) time.Duration {
	return e.opts.Backoff.Delay(n, e.opts.Rand())
}

// ReasonOf is the short reason a job failed with err, as the journal and
// the events record it: the error's own Reason (a Reasoner), else
// "permanent" or "error".
func ReasonOf(err error) string {
	var r Reasoner
	switch {
	case errors.As(err, &r):
		return r.Reason()
	case IsPermanent(err):
		return "permanent"
	}
	return "error"
}

// attempt is the journal's record of the outcome.
func (res *result) attempt() Attempt {
	r := res.run
	a := Attempt{Job: r.job, Backend: r.b.Name, Attempt: r.job.Attempts, State: res.state,
		Started: r.started, Finished: res.finished, Reason: res.reason, RetryAt: res.retryAt}
	if res.err != nil {
		a.Err = res.err.Error()
	}
	return a
}

// event reports the outcome to Options.Events.
func (res *result) event() Event {
	r := res.run
	ev := Event{Type: EventType(res.state), Time: res.finished, Job: r.job, Backend: r.b.Name,
		Attempt: r.job.Attempts, Err: res.err, Reason: res.reason,
		Run: res.finished.Sub(r.started), RetryAt: res.retryAt}
	if !res.retryAt.IsZero() {
		ev.Type = EventRetry
		ev.State = res.state
	}
	return ev
}
