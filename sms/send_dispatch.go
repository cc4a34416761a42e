package sms

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"calq/sched"
	"calq/sms/store"
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
	box     Outbox
	e       *sched.Engine
	workers []*modemWorker
	o       SendOptions
	after   func(sched.Event) // called after event, for the daemon's bookkeeping
	used    []string          // the modems open at the start

	mu  sync.Mutex
	out map[string]bool // modems down or taken out by the circuit breaker
}

// newDispatcher starts an engine with one backend per modem of pool,
// open or not (a broken modem's health check dials it again). after, when
// not nil, sees every event once the outbox is settled.
func newDispatcher(pool *Pool, o SendOptions, after func(sched.Event)) (*dispatcher, error) {
	d := &dispatcher{box: o.Store, o: o, after: after, out: map[string]bool{}}
	for _, c := range pool.Conns() {
		d.used = append(d.used, c.Spec.Name)
	}
	var backends []sched.Backend
	for i, spec := range pool.specs {
		w := &modemWorker{name: spec.Name, box: o.Store, allowDup: o.AllowDuplicates,
			limit: newBucket(spec.RatePerMinute), pool: pool, i: i}
		d.workers = append(d.workers, w)
		backends = append(backends, sched.Backend{Name: w.name, Kinds: []string{Kind},
			Workers: []sched.Worker{w}, Health: w.health, HealthEvery: o.HealthEvery})
	}
	e, err := sched.NewEngine(sched.EngineOptions{Backends: backends, Journal: o.Journal, Metrics: o.Metrics,
		Events: d.event, Backoff: o.Backoff, FailLimit: o.FailLimit, Cooldown: o.Cooldown})
	if err != nil {
		return nil, err
	}
	d.e = e
	e.Start()
	return d, nil
}

// retries is the engine's retry budget per message from o.Retries.
func (d *dispatcher) retries() int {
	switch r := d.o.Retries; {
	case r == 0:
		return sched.DefaultRetries
	case r < 0:
		return 0
	default:
		return r
	}
}

// allOut reports whether no modem takes messages now (each is down or
// taken out by the circuit breaker).
func (d *dispatcher) allOut() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, w := range d.workers {
		if !d.out[w.name] {
			return false
		}
	}
	return true
}

// names are the modems that were open when the dispatcher started.
func (d *dispatcher) names() []string { return d.used }

// run submits one job per message and waits until all are settled.
func (d *dispatcher) run(ctx context.Context, msgs []store.SMSMessage) error {
	jobs := make([]*sched.Job, len(msgs))
	for i, m := range msgs {
		jobs[i] = jobFor(m, classOf(m), d.retries())
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
// that ran out of retries, or whose modem is lost after it accepted some
// of the parts. A message no modem could take (all down) stays queued,
// for a later run or the daemon's next round. It also keeps track of the
// modems that are out.
func (d *dispatcher) event(ev sched.Event) {
	if d.o.Events != nil {
		d.o.Events(ev)
	}
	d.settle(ev)
	if d.after != nil {
		d.after(ev)
	}
}

func (d *dispatcher) settle(ev sched.Event) {
	switch ev.Type {
	case sched.EventBackendDown, sched.EventKindDisabled:
		d.mu.Lock()
		d.out[ev.Backend] = true
		d.mu.Unlock()
	case sched.EventBackendUp, sched.EventKindEnabled:
		d.mu.Lock()
		delete(d.out, ev.Backend)
		d.mu.Unlock()
	}
	if ev.Job == nil || ev.Job.Kind != Kind {
		return
	}
	id, ok := parseID(ev.Job.Payload)
	if !ok {
		return
	}
	ctx := context.Background()
	switch ev.Type {
	case sched.EventFailed, sched.EventTimedOut:
		if errors.Is(ev.Err, sched.ErrNoBackend) && ev.Job.Backend == "" {
			return // no modem could take it: it stays queued
		}
		if errors.Is(ev.Err, store.ErrClaimLost) {
			return // another daemon claimed it: it stays queued, for that one
		}
		reason := describe(ev.Err)
		if ev.Reason != "" && ev.Reason != "error" {
			reason = ev.Reason + ": " + reason
		}
		state := store.SMSFailed
		if m, err := d.box.SMS(ctx, id); err == nil && slices.ContainsFunc(m.Parts, func(p store.SMSPart) bool {
			return p.State == store.SMSUnknown || p.State == store.SMSSending
		}) {
			state = store.SMSUnknown // a part went out without an answer: it may have arrived
		}
		_, _ = d.box.FinishSMS(ctx, id, state, reason)
	case sched.EventSkipped:
		if ev.State.Terminal() {
			_, _ = d.box.FinishSMS(ctx, id, store.SMSFailed, fmt.Sprintf("its job is %s in the journal", ev.State))
		}
	}
}
