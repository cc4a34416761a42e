package sched

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"calq/sched/cq"
)

// slot is one worker goroutine of a backend.
type slot struct {
	b    *backend
	w    Worker
	wake chan struct{} // capacity 1: a job was queued for an idle slot
	cur  *run          // the attempt running, guarded by Engine.mu
	// ctx is the context its attempts run under, reused until a timeout
	// or a stop cancels it (a context per job was a tenth of the engine's
	// cost); guarded by Engine.mu.
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// run is one attempt of a job on a worker.
type run struct {
	job        *Job
	b          *backend
	ctx        context.Context
	cancel     context.CancelCauseFunc
	started    time.Time
	timeout    cq.Handle[int64]
	hasTimeout bool
	live       bool // running: not yet settled
	ran        bool // its worker has returned: a late timeout must not cancel the slot's next job
	abandoned  bool // recorded cancelled after it outlived the grace period
	slot       *slot
	claim      *claim              // set when the claim was made along with the last attempt's record
	res        result              // the attempt's outcome, allocated with it
	obs        prometheus.Observer // its processing-time series; nil without metrics
}

// claim is the outcome of a claim made ahead of the attempt.
type claim struct {
	won bool
	err error
}

// work is a worker goroutine: take a job, run it, settle it, repeat.
func (e *Engine) work(s *slot) {
	defer e.wg.Done()
	var prev *result
	for {
		r := e.next(s, prev)
		if r == nil {
			return
		}
		prev = e.attempt(s, r)
	}
}

// next settles the previous attempt and takes the backend's next job in
// one critical section, parking the worker while there is none.
func (e *Engine) next(s *slot, prev *result) *run {
	e.mu.Lock()
	if prev != nil {
		e.settle(prev)
		if prev.next != nil {
			e.unlock()
			return prev.next
		}
	}
	for {
		if e.closed {
			e.unlock()
			return nil
		}
		if !e.stopping && !s.b.down {
			if j, ok := s.b.pop(); ok {
				r := e.begin(s, j)
				e.unlock()
				return r
			}
		}
		s.b.idle = append(s.b.idle, s)
		e.unlock()
		select {
		case <-s.wake:
		case <-e.quit:
			return nil
		}
		e.mu.Lock()
	}
}

// begin starts an attempt: the worker is busy and the timeout is armed.
func (e *Engine) begin(s *slot, j *Job) *run {
	now := e.clock.Now()
	b := s.b
	e.classLen[j.Class.Index()]--
	e.opts.Metrics.queued(j.Class, e.classLen[j.Class.Index()])
	b.busy++
	e.opts.Metrics.backend(b)
	r := &run{job: j, b: b, started: now, live: true, slot: s}
	if s.ctx == nil || s.ctx.Err() != nil {
		// No parent: a stop cancels each slot itself.
		s.ctx, s.cancel = context.WithCancelCause(context.Background())
	}
	r.ctx, r.cancel = s.ctx, s.cancel
	if m := e.opts.Metrics; m != nil {
		r.obs = m.processing(b, j.Kind)
	}
	if j.Timeout > 0 {
		r.timeout = e.pushTimer(now.Add(j.Timeout), timerEvent{kind: evTimeout, run: r})
		r.hasTimeout = true
	}
	if e.opts.Journal == nil {
		j.Attempts++
	}
	s.cur = r
	e.nrunning++
	return r
}

// attempt claims the job in the journal, runs it and records the outcome.
// It runs without e.mu.
func (e *Engine) attempt(s *slot, r *run) *result {
	j := r.job
	if jn := e.opts.Journal; jn != nil {
		c := r.claim
		if c == nil {
			c = &claim{}
			c.won, c.err = jn.Claim(r.ctx, j, r.b.Name, r.started)
		}
		if c.err != nil {
			return e.classify(r, fmt.Errorf("claim in journal: %w", c.err), e.clock.Now())
		}
		if !c.won {
			res := &r.res
			res.run, res.skipped = r, true
			e.emit(Event{Type: EventSkipped, Time: r.started, Job: j, Backend: r.b.Name, Message: "another process holds it, or will retry it later"})
			return res
		}
	}
	if e.opts.Events != nil {
		e.emit(Event{Type: EventStarted, Time: r.started, Job: j, Backend: r.b.Name, Attempt: j.Attempts, Wait: r.started.Sub(j.Enqueued)})
	}
	e.opts.Metrics.started(j.Class, r.started.Sub(j.ready))
	err := safeRun(r.ctx, s.w, j)
	res := e.classify(r, err, e.clock.Now())
	e.opts.Metrics.attempt(res)
	e.record(s, res)
	if e.opts.Events != nil {
		e.emit(res.event())
	}
	return res
}

// ClaimFinisher is implemented by journals that can record an attempt and
// claim the worker's next job in one transaction. The engine then needs one
// commit per job instead of two, which is what lets it keep up with a
// SQLite journal.
type ClaimFinisher interface {
	// FinishClaim does Finish(a) and then Claim(next, backend, at), in one
	// transaction when it can; it returns the claim's outcome and each
	// call's error.
	FinishClaim(ctx context.Context, a Attempt, next *Job, backend string, at time.Time) (won bool, finishErr, claimErr error)
}

// record writes res to the journal. With a ClaimFinisher it first takes the
// worker's next job, if one is ready, and claims it in the same round trip;
// next hands that job on once res is settled.
func (e *Engine) record(s *slot, res *result) {
	jn := e.opts.Journal
	if jn == nil {
		return
	}
	ctx := context.WithoutCancel(res.run.ctx)
	var ferr error
	cf, ok := jn.(ClaimFinisher)
	if nr := e.takeAhead(s, ok); nr != nil {
		c := &claim{}
		c.won, ferr, c.err = cf.FinishClaim(ctx, res.attempt(), nr.job, nr.b.Name, nr.started)
		nr.claim, res.next = c, nr
	} else {
		ferr = jn.Finish(ctx, res.attempt())
	}
	if ferr != nil {
		e.emit(Event{Type: EventJournalError, Time: res.finished, Job: res.run.job, Err: fmt.Errorf("record attempt %d: %w", res.run.job.Attempts, ferr)})
	}
}

// takeAhead begins the worker's next job while its last is being recorded,
// when the journal can claim it in the same round trip.
func (e *Engine) takeAhead(s *slot, ok bool) *run {
	if !ok {
		return nil
	}
	e.mu.Lock()
	defer e.unlock()
	if s.cur != nil {
		s.cur.ran = true
	}
	if e.closed || e.stopping || s.b.down {
		return nil
	}
	if j, ok := s.b.pop(); ok {
		return e.begin(s, j)
	}
	return nil
}

// safeRun turns a worker's panic into a permanent failure of the job.
func safeRun(ctx context.Context, w Worker, j *Job) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = Permanent(fmt.Errorf("worker panicked: %v", p))
		}
	}()
	return w.Run(ctx, j)
}

// settle applies an attempt's outcome to the engine; e.mu is held.
func (e *Engine) settle(res *result) {
	r := res.run
	if r.abandoned {
		return
	}
	e.unrun(r)
	if r.hasTimeout {
		e.timers.Remove(r.timeout)
	}
	b := r.b
	b.busy--
	e.opts.Metrics.backend(b)
	defer e.checkQuiet()
	if res.skipped {
		e.sum.Skipped++
		e.settled()
		return
	}
	e.track(b, res)
	if !res.retryAt.IsZero() {
		e.sum.Retries++
		if e.stopping {
			e.notStarted(r.job)
			return
		}
		r.job.failedOn = b
		e.pushTimer(res.retryAt, timerEvent{kind: evReady, job: r.job})
		return
	}
	e.count(res.state)
	e.settled()
}

// track learns service times and counts a backend's failures in a row.
func (e *Engine) track(b *backend, res *result) {
	kind := res.run.job.Kind
	switch {
	case res.state == StateDone:
		b.learn(kind, res.finished.Sub(res.run.started).Seconds())
		b.streak[kind] = 0
		delete(b.warned, kind) // a new streak is reported again
	case res.state == StateCancelled, res.permanent:
	default:
		b.streak[kind]++
		if e.opts.FailLimit > 0 && b.streak[kind] >= e.opts.FailLimit {
			e.tooManyFailures(b, kind)
		}
	}
}

func (e *Engine) count(s State) {
	switch s {
	case StateDone:
		e.sum.Done++
	case StateFailed:
		e.sum.Failed++
	case StateTimedOut:
		e.sum.TimedOut++
	case StateCancelled:
		e.sum.Cancelled++
	}
}

// tooManyFailures stops b taking kind when another backend can, and moves
// its queued jobs of that kind there; otherwise it says so once and goes
// on, since failure isolation needs somewhere else to send the work.
func (e *Engine) tooManyFailures(b *backend, kind string) {
	if b.disabled[kind] {
		return
	}
	for _, o := range e.backends {
		if o != b && o.takes(kind) {
			b.disabled[kind] = true
			now := e.clock.Now()
			msg := fmt.Sprintf("backend %s failed kind %q %d times in a row; it stops taking that kind", b.Name, kind, b.streak[kind])
			if e.opts.Cooldown > 0 {
				msg += fmt.Sprintf(" for %v", e.opts.Cooldown)
				e.pushTimer(now.Add(e.opts.Cooldown), timerEvent{kind: evEnable, b: b, jobKind: kind})
			}
			e.later(Event{Type: EventKindDisabled, Time: now, Backend: b.Name, Message: msg})
			e.evacuate(b, kind)
			return
		}
	}
	if !b.warned[kind] {
		b.warned[kind] = true
		e.later(Event{Type: EventKindKept, Time: e.clock.Now(), Backend: b.Name,
			Message: fmt.Sprintf("backend %s failed kind %q %d times in a row, but no other backend takes it, so it keeps it", b.Name, kind, b.streak[kind])})
	}
}

// enable gives b kind again after its cooldown, half-open: its failure
// streak stays one short of the limit, so one more failure takes it out
// again and a success closes the breaker. e.mu is held.
func (e *Engine) enable(b *backend, kind string, now time.Time) {
	if !b.disabled[kind] || e.stopping || e.closed {
		return
	}
	delete(b.disabled, kind)
	b.streak[kind] = e.opts.FailLimit - 1
	e.later(Event{Type: EventKindEnabled, Time: now, Backend: b.Name,
		Message: fmt.Sprintf("backend %s takes kind %q again after its cooldown", b.Name, kind)})
}

// evacuate moves b's queued jobs of kind (every kind when kind is empty)
// to other backends. A job pinned to b (Job.Backend) fails, as it would
// have had it been routed now; any other job that no other backend can
// take stays, for when b is back. e.mu is held.
func (e *Engine) evacuate(b *backend, kind string) {
	type tagged struct {
		tag float64
		j   *Job
	}
	var keep []tagged
	var move []*Job
	for {
		tag, j, ok := b.ready.Pop()
		if !ok {
			break
		}
		if (kind == "" || j.Kind == kind) && (j.Backend == b.Name || e.pick(j, b) != nil) {
			e.classLen[j.Class.Index()]--
			move = append(move, j)
			continue
		}
		keep = append(keep, tagged{tag, j})
	}
	for _, t := range keep {
		b.ready.Push(t.tag, t.j)
	}
	now := e.clock.Now()
	for _, j := range move {
		e.route(j, b, now)
	}
}

// unrun takes r off its slot; e.mu is held.
func (e *Engine) unrun(r *run) {
	r.live = false
	if r.slot.cur == r { // not yet replaced by a job taken ahead
		r.slot.cur = nil
	}
	e.nrunning--
}

// finishStuck records as cancelled an attempt whose worker did not return
// within the grace period.
func (e *Engine) finishStuck(r *run) {
	e.mu.Lock()
	if !r.live {
		e.mu.Unlock()
		return
	}
	e.unrun(r)
	r.abandoned = true
	r.b.busy--
	e.sum.Cancelled++
	e.settled()
	e.checkQuiet()
	e.unlock()
	now := e.clock.Now()
	a := Attempt{Job: r.job, Backend: r.b.Name, Attempt: r.job.Attempts, State: StateCancelled,
		Started: r.started, Finished: now, Err: "did not stop within the grace period", Reason: "stuck"}
	if jn := e.opts.Journal; jn != nil {
		_ = jn.Finish(context.Background(), a)
	}
	e.emit(Event{Type: EventCancelled, Time: now, Job: r.job, Backend: r.b.Name, Attempt: a.Attempt, Reason: a.Reason, Err: fmt.Errorf("%s", a.Err)})
}
