package sms

import (
	"context"
	"errors"
	"fmt"
	"time"

	"calq/sched"
	"calq/sched/journal"
)

// dispatcher runs the outbox on the sched engine: each modem is a backend
// with one worker, so a modem sends one part at a time; a message goes to
// the modem with the greatest marginal service rate (the engine's default
// dispatch: its measured seconds per message and its queue).
//
// Circuit breaker: a modem that fails FailLimit messages in a row stops
// taking them and its queue moves to the others (the engine's
// kind_disabled); a modem whose device vanished is marked broken, its
// health check dials it again every HealthEvery and keeps the backend down
// (its queue moved) while that fails. A message some of whose parts a
// modem accepted is pinned to that modem (Job.Backend): if the modem is
// lost, the message fails with the reason rather than splitting.
type dispatcher struct {
	jn      *journal.Journal
	e       *sched.Engine
	workers []*modemWorker
	o       SendOptions
	atTime  []time.Duration // per worker, time in SendPDU
}

func newDispatcher(pool *Pool, o SendOptions) (*dispatcher, error) {
	d := &dispatcher{jn: o.Journal, o: o}
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
	e, err := sched.NewEngine(sched.EngineOptions{Backends: backends, Journal: o.Journal,
		Events: d.event, Backoff: o.Backoff, FailLimit: o.FailLimit})
	if err != nil {
		return nil, err
	}
	d.e = e
	e.Start()
	return d, nil
}

func (d *dispatcher) names() []string {
	var n []string
	for _, w := range d.workers {
		n = append(n, w.name)
	}
	return n
}

// run submits one job per message and waits until all are settled.
func (d *dispatcher) run(ctx context.Context, msgs []journal.SMSMessage) error {
	retries := d.o.Retries
	switch {
	case retries == 0:
		retries = sched.DefaultRetries
	case retries < 0:
		retries = 0
	}
	jobs := make([]*sched.Job, len(msgs))
	for i, m := range msgs {
		jobs[i] = jobFor(m, classOf(m), retries)
	}
	err := d.e.Submit(ctx, jobs...)
	if _, werr := d.e.Wait(ctx); werr != nil {
		err = errors.Join(err, werr)
	}
	return err
}

// close stops the engine; every event has been handled when it returns.
func (d *dispatcher) close() error { return d.e.Close() }

// event settles in the outbox what the engine decided alone: a message
// that ran out of retries, or that no modem can take any more.
func (d *dispatcher) event(ev sched.Event) {
	if d.o.Events != nil {
		d.o.Events(ev)
	}
	if ev.Job == nil || ev.Job.Kind != "sms" {
		return
	}
	id, ok := parseID(ev.Job.Payload)
	if !ok {
		return
	}
	ctx := context.Background()
	switch ev.Type {
	case sched.EventFailed, sched.EventTimedOut:
		reason := describe(ev.Err)
		if ev.Reason != "" && ev.Reason != "error" {
			reason = ev.Reason + ": " + reason
		}
		_, _ = d.jn.FinishSMS(ctx, id, journal.SMSFailed, reason)
	case sched.EventSkipped:
		if ev.State.Terminal() {
			_, _ = d.jn.FinishSMS(ctx, id, journal.SMSFailed, fmt.Sprintf("its job is %s in the journal", ev.State))
		}
	}
}
