package sched

import (
	"context"
	"time"

	"calq/sched/cq"
)

// timerKind says what a timer event does when it falls due.
type timerKind uint8

const (
	evReady   timerKind = iota // a delayed job or a retry may start
	evTimeout                  // an attempt ran past its timeout
	evHealth                   // time for a backend's health check
	evEnable                   // a backend's cooldown for a kind is over
)

// timerEvent is one entry of the engine's timeline: delays, backoffs,
// timeouts and health checks all wait in one calendar queue keyed by Unix
// nanoseconds, served by one goroutine, rather than a sleeping goroutine
// each.
type timerEvent struct {
	kind    timerKind
	job     *Job
	run     *run
	b       *backend
	jobKind string // evEnable
}

// pushTimer files ev at time at, waking the timer loop when it becomes the
// earliest. e.mu is held.
func (e *Engine) pushTimer(at time.Time, ev timerEvent) cq.Handle[int64] {
	k := at.UnixNano()
	h := e.timers.Push(k, ev)
	if first, _, _ := e.timers.Peek(); first == k {
		select {
		case e.wake <- struct{}{}:
		default:
		}
	}
	return h
}

// timerLoop fires due timer events, then sleeps until the next one, a
// poke, or Close.
func (e *Engine) timerLoop() {
	defer e.wg.Done()
	for {
		e.mu.Lock()
		now := e.clock.Now().UnixNano()
		for {
			k, ev, ok := e.timers.Peek()
			if !ok || k > now {
				break
			}
			e.timers.Pop()
			e.fire(ev, time.Unix(0, now))
		}
		wait := time.Duration(-1)
		if k, _, ok := e.timers.Peek(); ok {
			wait = time.Duration(k - now)
		}
		e.unlock()
		if !e.sleep(wait) {
			return
		}
	}
}

// sleep waits for d (forever when negative), a poke or Close; it returns
// false on Close.
func (e *Engine) sleep(d time.Duration) bool {
	var c <-chan time.Time
	if d >= 0 {
		t := e.clock.NewTimer(d)
		defer t.Stop()
		c = t.C()
	}
	select {
	case <-c:
	case <-e.wake:
	case <-e.quit:
		return false
	}
	return true
}

// retryAvoid is the backend a job becoming ready should not go to: the
// one its last attempt failed on, when another takes the job; nil
// otherwise (a first run, a job pinned to its backend, the only backend).
// e.mu is held.
func (e *Engine) retryAvoid(j *Job) *backend {
	avoid := j.failedOn
	j.failedOn = nil
	if avoid == nil || j.Backend != "" {
		return nil
	}
	for _, b := range e.backends {
		if b != avoid && b.takes(j.Kind) {
			return avoid
		}
	}
	return nil
}

// fire acts on a due timer event; e.mu is held.
func (e *Engine) fire(ev timerEvent, now time.Time) {
	switch ev.kind {
	case evReady:
		e.route(ev.job, e.retryAvoid(ev.job), now)
	case evTimeout:
		ev.run.hasTimeout = false
		if ev.run.live && !ev.run.ran {
			ev.run.cancel(ErrTimeout)
		}
	case evEnable:
		e.enable(ev.b, ev.jobKind, now)
	case evHealth:
		if !e.stopping {
			e.wg.Add(1)
			go e.checkHealth(ev.b)
		}
	}
}

// checkHealth runs a backend's health check: a failure marks it down and
// moves its queued jobs to backends that can take them; a success after
// that marks it up again.
func (e *Engine) checkHealth(b *backend) {
	defer e.wg.Done()
	every := b.HealthEvery
	if every <= 0 {
		every = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(e.base, every)
	err := b.Health(ctx)
	cancel()
	e.mu.Lock()
	defer e.unlock()
	now := e.clock.Now()
	switch {
	case err != nil && !b.down:
		b.down = true
		e.later(Event{Type: EventBackendDown, Time: now, Backend: b.Name, Err: err})
		e.evacuate(b, "")
	case err == nil && b.down:
		b.down = false
		e.later(Event{Type: EventBackendUp, Time: now, Backend: b.Name})
		for range len(b.idle) {
			b.wakeOne()
		}
	}
	e.opts.Metrics.backendUp(b)
	if !e.stopping && !e.closed {
		e.pushTimer(now.Add(every), timerEvent{kind: evHealth, b: b})
	}
}

// abandonQueued counts the jobs still queued at a stop as not run; they
// stay queued in the journal. e.mu is held.
func (e *Engine) abandonQueued() {
	for _, b := range e.backends {
		for {
			_, j, ok := b.ready.Pop()
			if !ok {
				break
			}
			e.classLen[j.Class.Index()]--
			e.notStarted(j)
		}
	}
	var keep []timerEvent
	var keys []int64
	for {
		k, ev, ok := e.timers.Pop()
		if !ok {
			break
		}
		if ev.kind == evReady {
			e.notStarted(ev.job)
			continue
		}
		keep, keys = append(keep, ev), append(keys, k)
	}
	for i, ev := range keep {
		h := e.timers.Push(keys[i], ev)
		if ev.kind == evTimeout {
			ev.run.timeout = h
		}
	}
}

// checkQuiet signals a stop's waiter once nothing runs. e.mu is held.
func (e *Engine) checkQuiet() {
	if e.stopping && !e.isQuiet && e.nrunning == 0 {
		e.isQuiet = true
		close(e.quiet)
	}
}
