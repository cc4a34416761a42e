package sms

import (
	"context"
	"sync"
	"time"

	"calq/sched"
	"calq/sched/journal"
)

// daemonDispatcher is a dispatcher that never drains: submitDue adds the
// outbox's due messages as they appear, and inflight keeps one job per
// message in the engine until the engine settles it.
type daemonDispatcher struct {
	*dispatcher
	retries int

	mu       sync.Mutex
	inflight map[int64]bool
}

// newDaemonDispatcher is newDispatcher with the daemon's metrics and the
// inflight bookkeeping on the engine's events. TODO: fold into
// newDispatcher (a Metrics field in SendOptions) when send_dispatch.go is
// next edited.
func newDaemonDispatcher(pool *Pool, o DaemonOptions) (*daemonDispatcher, error) {
	so := SendOptions{Journal: o.Journal, AllowDuplicates: o.AllowDuplicates, Retries: o.Retries,
		Backoff: o.Backoff, FailLimit: o.FailLimit, HealthEvery: o.HealthEvery, Events: o.Events}
	dd := &daemonDispatcher{dispatcher: &dispatcher{jn: o.Journal, o: so}, inflight: map[int64]bool{}}
	d := dd.dispatcher
	conns := pool.Conns()
	d.atTime = make([]time.Duration, len(conns))
	var backends []sched.Backend
	for i, c := range conns {
		w := &modemWorker{name: c.Spec.Name, jn: o.Journal, allowDup: o.AllowDuplicates,
			limit: newBucket(c.Spec.RatePerMinute), atTime: &d.atTime[i], pool: pool, i: i}
		d.workers = append(d.workers, w)
		backends = append(backends, sched.Backend{Name: w.name, Kinds: []string{"sms"},
			Workers: []sched.Worker{w}, Health: w.health, HealthEvery: o.HealthEvery})
	}
	e, err := sched.NewEngine(sched.EngineOptions{Backends: backends, Journal: o.Journal, Metrics: o.Metrics,
		Events: dd.event, Backoff: o.Backoff, FailLimit: o.FailLimit})
	if err != nil {
		return nil, err
	}
	d.e = e
	switch {
	case o.Retries == 0:
		dd.retries = sched.DefaultRetries
	case o.Retries > 0:
		dd.retries = o.Retries
	}
	e.Start()
	return dd, nil
}

// event settles the outbox (dispatcher.event), then lets the message be
// submitted again once the engine is done with its job.
func (dd *daemonDispatcher) event(ev sched.Event) {
	dd.dispatcher.event(ev)
	if ev.Job == nil || ev.Job.Kind != "sms" {
		return
	}
	switch ev.Type {
	case sched.EventDone, sched.EventFailed, sched.EventTimedOut, sched.EventCancelled, sched.EventSkipped:
		if id, ok := parseID(ev.Job.Payload); ok {
			dd.mu.Lock()
			delete(dd.inflight, id)
			dd.mu.Unlock()
		}
	}
}

// submitDue submits the queued messages that are due and not in the
// engine already.
func (dd *daemonDispatcher) submitDue(ctx context.Context) error {
	msgs, err := dd.jn.ListSMS(ctx, journal.SMSFilter{State: journal.SMSQueued, DueUntil: time.Now()})
	if err != nil || len(msgs) == 0 {
		return err
	}
	var jobs []*sched.Job
	dd.mu.Lock()
	for _, m := range msgs {
		if !dd.inflight[m.ID] {
			dd.inflight[m.ID] = true
			jobs = append(jobs, jobFor(m, classOf(m), dd.retries))
		}
	}
	dd.mu.Unlock()
	if len(jobs) == 0 {
		return nil
	}
	return dd.e.Submit(ctx, jobs...)
}
