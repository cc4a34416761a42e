package sms

import (
	"cmp"
	"context"
	"sync"
	"time"

	"calq/sched"
	"calq/sms/store"
)

// daemonDispatcher is a dispatcher that never drains: submitDue adds the
// outbox's due messages as they appear, and inflight keeps one job per
// message in the engine until the engine settles it.
type daemonDispatcher struct {
	*dispatcher

	mu       sync.Mutex
	inflight map[int64]bool
	wake     chan struct{} // a message left the engine: claim more
	// claim, on a shared store, claims up to limit due messages for this
	// daemon instead of listing them all: limit bounds what it holds.
	claim func(ctx context.Context, limit int) ([]store.SMSMessage, error)
	limit int
}

// newDaemonDispatcher is newDispatcher with the inflight bookkeeping.
func newDaemonDispatcher(pool *Pool, st Store, o DaemonOptions) (*daemonDispatcher, error) {
	so := SendOptions{Journal: o.Journal, Store: st, AllowDuplicates: o.AllowDuplicates, Retries: o.Retries,
		Backoff: o.Backoff, FailLimit: o.FailLimit, Cooldown: o.Cooldown, HealthEvery: cmp.Or(o.HealthEvery, DefaultHealthEvery),
		Metrics: o.Metrics, Events: o.Events}
	dd := &daemonDispatcher{inflight: map[int64]bool{}, wake: make(chan struct{}, 1)}
	d, err := newDispatcher(pool, so, dd.event)
	if err != nil {
		return nil, err
	}
	dd.dispatcher = d
	return dd, nil
}

// event lets a message be submitted again once the engine is done with
// its job (and dispatcher.event has settled the outbox).
func (dd *daemonDispatcher) event(ev sched.Event) {
	if ev.Job == nil || ev.Job.Kind != Kind {
		return
	}
	switch ev.Type {
	case sched.EventDone, sched.EventFailed, sched.EventTimedOut, sched.EventCancelled, sched.EventSkipped:
		if id, ok := parseID(ev.Job.Payload); ok {
			dd.mu.Lock()
			delete(dd.inflight, id)
			dd.mu.Unlock()
			select {
			case dd.wake <- struct{}{}:
			default:
			}
		}
	}
}

// sending lists the messages in the engine.
func (dd *daemonDispatcher) sending() []int64 {
	dd.mu.Lock()
	defer dd.mu.Unlock()
	ids := make([]int64, 0, len(dd.inflight))
	for id := range dd.inflight {
		ids = append(ids, id)
	}
	return ids
}

// submitDue submits the queued messages that are due and not in the
// engine already, unless every modem is out (they would fail to route
// and stay queued anyway).
func (dd *daemonDispatcher) submitDue(ctx context.Context) error {
	if dd.allOut() {
		return nil
	}
	var msgs []store.SMSMessage
	var err error
	if dd.claim != nil {
		dd.mu.Lock()
		n := dd.limit - len(dd.inflight)
		dd.mu.Unlock()
		msgs, err = dd.claim(ctx, n)
	} else {
		msgs, err = dd.box.ListSMS(ctx, store.SMSFilter{State: store.SMSQueued, DueUntil: time.Now()})
	}
	if err != nil || len(msgs) == 0 {
		return err
	}
	var jobs []*sched.Job
	dd.mu.Lock()
	for _, m := range msgs {
		if !dd.inflight[m.ID] {
			dd.inflight[m.ID] = true
			jobs = append(jobs, jobFor(m, classOf(m), dd.retries()))
		}
	}
	dd.mu.Unlock()
	if len(jobs) == 0 {
		return nil
	}
	return dd.e.Submit(ctx, jobs...)
}
