package sms

import (
	"context"
	"fmt"
	"sync"
	"time"

	"calq/sched"
	"calq/sched/journal"
)

// breaker is one modem's circuit breaker as the engine's events tell it:
// down (its health check failed), open (taken out after failures in a
// row) and failing (kept in after them, being the only modem) are apart,
// as the engine keeps them apart: a modem back up may still be out.
type breaker struct {
	down, open, failing bool
}

// next is b after ev, an event about b's modem.
func (b breaker) next(ev sched.Event) breaker {
	switch ev.Type {
	case sched.EventBackendDown:
		b.down = true
	case sched.EventBackendUp:
		b.down = false
	case sched.EventKindDisabled:
		b.open, b.failing = true, false
	case sched.EventKindEnabled:
		b.open = false
	case sched.EventKindKept:
		b.failing = true
	case sched.EventDone:
		b.failing = false // a message sent ends its failures in a row
	}
	return b
}

// state is b as ModemStatus.Breaker says it: down first, as a modem
// that vanished takes nothing whatever its failures.
func (b breaker) state() string {
	switch {
	case b.down:
		return BreakerDown
	case b.open:
		return BreakerOpen
	case b.failing:
		return BreakerFailing
	}
	return BreakerClosed
}

// breakerChange is a modem's breaker's new state and when it changed.
type breakerChange struct {
	state string
	since time.Time
}

// breakerLog records the modems' breakers in the daemon's view
// (sms_daemon_modems) for calq sms modems and the monitoring page. The
// engine's events update it without blocking; run writes them on one
// goroutine. What waits to be written is the latest change of each modem
// (at most one per modem: a bounded backlog), so a burst of events costs
// one write per modem and the last state always lands.
type breakerLog struct {
	jn      *journal.Journal
	devices map[string]string // modem name → device
	warn    func(error)

	mu      sync.Mutex
	cur     map[string]breaker
	at      map[string]time.Time     // the time of the last event applied to each modem
	pending map[string]breakerChange // changed since the last write
	wake    chan struct{}            // something is pending
}

// newBreakerLog starts from the modems as recordView recorded them: the
// ones not dialled are down (their health check dials them again).
func newBreakerLog(jn *journal.Journal, specs []ModemSpec, pool *Pool, warn func(error)) *breakerLog {
	l := &breakerLog{jn: jn, warn: warn, devices: map[string]string{}, cur: map[string]breaker{}, at: map[string]time.Time{},
		pending: map[string]breakerChange{}, wake: make(chan struct{}, 1)}
	for _, s := range specs {
		l.devices[s.Name] = s.Device
		l.cur[s.Name] = breaker{down: true}
	}
	for _, c := range pool.Conns() {
		l.cur[c.Spec.Name] = breaker{}
	}
	return l
}

// event notes what ev changes of its modem's breaker; it never blocks.
// The engine delivers events on several goroutines, so one may arrive
// after a later one about the same modem: it is older than what the
// breaker says already, and is ignored.
func (l *breakerLog) event(ev sched.Event) {
	if _, ok := l.devices[ev.Backend]; !ok {
		return
	}
	switch ev.Type {
	case sched.EventBackendDown, sched.EventBackendUp, sched.EventKindDisabled, sched.EventKindEnabled,
		sched.EventKindKept, sched.EventDone:
	default:
		return
	}
	l.mu.Lock()
	if ev.Time.Before(l.at[ev.Backend]) {
		l.mu.Unlock()
		return
	}
	l.at[ev.Backend] = ev.Time
	old := l.cur[ev.Backend]
	b := old.next(ev)
	l.cur[ev.Backend] = b
	changed := b.state() != old.state()
	if changed {
		l.pending[ev.Backend] = breakerChange{state: b.state(), since: ev.Time.UTC()}
	}
	l.mu.Unlock()
	if changed {
		select {
		case l.wake <- struct{}{}:
		default: // a wake is pending: the write to come takes this change
		}
	}
}

// withEvents returns an Events callback that notes each event in l and
// then hands it to next, if any.
func (l *breakerLog) withEvents(next func(sched.Event)) func(sched.Event) {
	return func(ev sched.Event) {
		l.event(ev)
		if next != nil {
			next(ev)
		}
	}
}

// run writes the pending changes as they come until ctx ends (the daemon's
// view goes with the daemon: DaemonModems lists live daemons only).
func (l *breakerLog) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.wake:
		}
		l.mu.Lock()
		p := l.pending
		l.pending = map[string]breakerChange{}
		l.mu.Unlock()
		for name, c := range p {
			if err := recordBreaker(ctx, l.jn, l.devices[name], c); err != nil && ctx.Err() == nil {
				l.warn(fmt.Errorf("record modem %s's breaker (%s) for calq sms modems: %w", name, c.state, err))
			}
		}
	}
}

// BreakerMeaning says what a ModemStatus.Breaker state means, for people;
// "" for a state it does not know.
func BreakerMeaning(state string) string {
	switch state {
	case BreakerClosed:
		return "takes messages"
	case BreakerOpen:
		return "taken out after failures in a row, until its cooldown ends"
	case BreakerDown:
		return "vanished (its health check failed); dialled again"
	case BreakerFailing:
		return "failing, but kept in: no other modem sends"
	}
	return ""
}
