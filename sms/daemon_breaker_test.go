package sms

import (
	"context"
	"testing"
	"time"

	"calq/sched"
	"calq/sms/emu"
)

// TestBreakerNext: the engine's events, in order, make a modem's breaker.
func TestBreakerNext(t *testing.T) {
	ev := func(typ sched.EventType) sched.Event { return sched.Event{Type: typ, Backend: "m0"} }
	for _, tc := range []struct {
		name   string
		start  breaker
		events []sched.EventType
		want   string
	}{
		{"no event", breaker{}, nil, BreakerClosed},
		{"not dialled", breaker{down: true}, nil, BreakerDown},
		{"failures in a row", breaker{}, []sched.EventType{sched.EventKindDisabled}, BreakerOpen},
		{"after the cooldown", breaker{}, []sched.EventType{sched.EventKindDisabled, sched.EventKindEnabled}, BreakerClosed},
		{"the only modem", breaker{}, []sched.EventType{sched.EventKindKept}, BreakerFailing},
		{"the only modem sends again", breaker{}, []sched.EventType{sched.EventKindKept, sched.EventDone}, BreakerClosed},
		{"a failure leaves it failing", breaker{}, []sched.EventType{sched.EventKindKept, sched.EventFailed, sched.EventRetry}, BreakerFailing},
		{"vanished", breaker{}, []sched.EventType{sched.EventBackendDown}, BreakerDown},
		{"dialled again", breaker{down: true}, []sched.EventType{sched.EventBackendUp}, BreakerClosed},
		{"down while open", breaker{}, []sched.EventType{sched.EventKindDisabled, sched.EventBackendDown}, BreakerDown},
		{"up while open", breaker{}, []sched.EventType{sched.EventKindDisabled, sched.EventBackendDown, sched.EventBackendUp}, BreakerOpen},
		{"cooldown while down", breaker{}, []sched.EventType{sched.EventKindDisabled, sched.EventBackendDown, sched.EventKindEnabled}, BreakerDown},
		{"open after failing", breaker{}, []sched.EventType{sched.EventKindKept, sched.EventKindDisabled, sched.EventKindEnabled}, BreakerClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.start
			for _, typ := range tc.events {
				b = b.next(ev(typ))
			}
			if got := b.state(); got != tc.want {
				t.Errorf("after %v: got %q, want %q", tc.events, got, tc.want)
			}
		})
	}
}

// TestBreakerLogLateEvent: an event that arrives after a later one about
// the same modem (the engine delivers them on several goroutines) does
// not undo it; what waits to be written is the latest state.
func TestBreakerLogLateEvent(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 9, 30, 0, 0, time.UTC)
	l := &breakerLog{devices: map[string]string{"m0": "/dev/ttyUSB0"}, cur: map[string]breaker{}, at: map[string]time.Time{},
		pending: map[string]breakerChange{}, wake: make(chan struct{}, 1)}
	for _, ev := range []sched.Event{
		{Type: sched.EventKindEnabled, Backend: "m0", Time: t0.Add(time.Minute)},
		{Type: sched.EventKindDisabled, Backend: "m0", Time: t0}, // late: ignored, else m0 would stay open
		{Type: sched.EventBackendDown, Backend: "m0", Time: t0.Add(3 * time.Minute)},
		{Type: sched.EventBackendUp, Backend: "m0", Time: t0.Add(2 * time.Minute)}, // late: ignored
		{Type: sched.EventDone, Backend: "other", Time: t0.Add(4 * time.Minute)},   // not a modem of the daemon
	} {
		l.event(ev)
	}
	want := breakerChange{state: BreakerDown, since: t0.Add(3 * time.Minute)}
	if got := l.pending["m0"]; got != want || len(l.pending) != 1 {
		t.Errorf("got pending %+v, want only m0 %+v", l.pending, want)
	}
	if len(l.wake) != 1 {
		t.Errorf("got %d wakes waiting, want 1", len(l.wake))
	}
}

// TestDaemonRecordsBreaker: a modem that refuses every message is taken
// out after FailLimit failures in a row, and the daemon's view says so
// (calq sms modems, the monitoring page); after the cooldown it says the
// modem takes messages again.
func TestDaemonRecordsBreaker(t *testing.T) {
	r := newRig(t, emu2())
	for range 20 {
		if err := r.e.Inject(r.e.Devices()[0], emu.Fault{Command: "AT+CMGS", CMSError: 500}); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now().UTC()
	startDaemonWith(t, r, r.opts(nil, "").Modems, nil, func(o *DaemonOptions) {
		o.FailLimit, o.Cooldown = 1, 300*time.Millisecond
	})
	if _, _, err := Enqueue(context.Background(), r.st, r.opts([]string{"+491701234567", "+491701234568", "+491701234569", "+491701234560"}, "breaker")); err != nil {
		t.Fatal(err)
	}
	m := waitBreaker(t, r, "m0", BreakerOpen)
	if m.BreakerSince.Before(start) {
		t.Errorf("breaker open since %v, want a time after the daemon started (%v)", m.BreakerSince, start)
	}
	opened := m.BreakerSince
	m = waitBreaker(t, r, "m0", BreakerClosed)
	if !m.BreakerSince.After(opened) {
		t.Errorf("breaker closed since %v, want after it opened (%v)", m.BreakerSince, opened)
	}
	if m1 := waitBreaker(t, r, "m1", BreakerClosed); !m1.BreakerSince.Before(opened) {
		t.Errorf("m1's breaker closed since %v, want since the start, before m0's opened (%v)", m1.BreakerSince, opened)
	}
}

// waitBreaker waits until the daemon's view records modem name's breaker
// as want, and returns the modem as recorded.
func waitBreaker(t *testing.T, r *rig, name, want string) DaemonModem {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(10 * time.Second)
	var last []DaemonModem
	for {
		ms, err := DaemonModems(context.Background(), r.jn)
		if err != nil {
			t.Fatal(err)
		}
		last = ms
		for _, m := range ms {
			if m.Name == name && m.Breaker == want {
				return m
			}
		}
		select {
		case <-tick.C:
		case <-timeout:
			t.Fatalf("modem %s's breaker not recorded %q within 10s; last view %+v", name, want, last)
		}
	}
}
