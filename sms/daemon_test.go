package sms

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"calq/sched"
	"calq/sched/journal"
	"calq/sms/at"
	"calq/sms/emu"
	"calq/sms/store"
)

// daemonRun is a Daemon running in the background on the rig's modems.
type daemonRun struct {
	cancel context.CancelFunc
	done   chan error
	events chan sched.Event
}

// startDaemon starts Daemon on r's modems and returns once it holds them.
func startDaemon(t *testing.T, r *rig) *daemonRun {
	t.Helper()
	return startDaemonOn(t, r, r.opts(nil, "").Modems, nil)
}

// startDaemonOn starts Daemon on specs, with warn as DaemonOptions.Warn.
func startDaemonOn(t *testing.T, r *rig, specs []ModemSpec, warn func(error)) *daemonRun {
	t.Helper()
	return startDaemonWith(t, r, specs, warn, nil)
}

// startDaemonWith is startDaemonOn with tweak applied to the options.
func startDaemonWith(t *testing.T, r *rig, specs []ModemSpec, warn func(error), tweak func(*DaemonOptions)) *daemonRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	d := &daemonRun{cancel: cancel, done: make(chan error, 1), events: make(chan sched.Event, 256)}
	ready := make(chan struct{})
	so := r.opts(nil, "")
	so.Modems = specs
	o := DaemonOptions{Warn: warn, Journal: r.jn, Store: r.st, Specs: so.Modems, AT: so.AT, SendEvery: 5 * time.Millisecond,
		PollEvery: 5 * time.Millisecond, Backoff: so.Backoff, Retries: so.Retries, HealthEvery: so.HealthEvery,
		Ready: func() { close(ready) },
		Events: func(ev sched.Event) {
			select {
			case d.events <- ev:
			default: // the test reads only what it waits for
			}
		}}
	if tweak != nil {
		tweak(&o)
	}
	go func() { d.done <- Daemon(ctx, o) }()
	t.Cleanup(func() { d.stop(t) })
	select {
	case <-ready:
	case err := <-d.done:
		t.Fatalf("Daemon: %v before it was ready", err)
	}
	return d
}

// stop cancels the daemon and waits for it; later calls do nothing.
func (d *daemonRun) stop(t *testing.T) {
	t.Helper()
	if d.done == nil {
		return
	}
	d.cancel()
	if err := <-d.done; err != nil {
		t.Errorf("Daemon returned %v, want nil after cancel", err)
	}
	d.done = nil
}

// waitEvent waits for an event of type typ about a job.
func (d *daemonRun) waitEvent(t *testing.T, typ sched.EventType) sched.Event {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev := <-d.events:
			if ev.Type == typ && ev.Job != nil {
				return ev
			}
		case <-timeout:
			t.Fatalf("no %s event within 10s", typ)
		}
	}
}

// locked reports whether device's lock is taken, without waiting.
func locked(device string) bool {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	unlock, err := at.Lock(ctx, device)
	if err != nil {
		return true
	}
	unlock()
	return false
}

// TestDaemonTakesHandOver: a Send while the daemon runs only records the
// message; the daemon sends it (the emulator logs it) and Send reports
// the outcome without having opened a modem.
func TestDaemonTakesHandOver(t *testing.T) {
	r := newRig(t, emu2())
	startDaemon(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel() // bounds a Send that, handing nothing over, would wait for the daemon's locks
	res, err := Send(ctx, r.opts([]string{"+491701234567"}, "through the daemon"))
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	if len(res.Messages) != 1 || res.Messages[0].State != store.SMSSent || res.Messages[0].MR[0] < 0 {
		t.Fatalf("got %+v, want one message sent with its reference", res)
	}
	if len(res.Modems) != 0 {
		t.Errorf("Send used modems %v, want none: the daemon holds them", res.Modems)
	}
	recs := r.log.records(t)
	if len(recs) != 1 || recs[0].msg.Text != "through the daemon" {
		t.Errorf("got %d PDUs logged (%+v), want the one message", len(recs), recs)
	}
}

// TestDaemonNoWait: with a daemon, --no-wait exits 4 (queued) at once, and
// the daemon then sends the message.
func TestDaemonNoWait(t *testing.T) {
	r := newRig(t, emu2())
	d := startDaemon(t, r)
	o := r.opts([]string{"+491701234567"}, "later")
	o.NoWait, o.Modems = true, nil
	res, err := Send(context.Background(), o)
	if got := outcomeOf(err); got != "queued" {
		t.Fatalf("got %s (%v), want queued", got, err)
	}
	d.waitEvent(t, sched.EventDone)
	m, err := r.st.SMS(context.Background(), res.Messages[0].ID)
	if err != nil || m.State != store.SMSSent {
		t.Fatalf("got %s, %v; want sent", m.State, err)
	}
}

// TestDaemonStoresInbound: a PDU that arrives on a modem is recorded,
// deleted from the modem and filed by the daemon, and stays new in the
// journal for calq sms recv --offline.
func TestDaemonStoresInbound(t *testing.T) {
	r := newRig(t, emu2())
	startDaemon(t, r)
	pdus := recvDeliver(t, "+4915112345678", "hello daemon", 0)
	if _, err := r.e.Plant(r.e.Devices()[1], pdus[0]); err != nil {
		t.Fatal(err)
	}
	// Nothing signals a filed entry, so poll the journal with a deadline.
	ctx := context.Background()
	var es []store.InboxEntry
	for deadline := time.Now().Add(10 * time.Second); len(es) == 0; {
		var err error
		if es, err = r.st.NewInboxEntries(ctx); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("no inbox entry within 10s")
		}
		<-time.After(5 * time.Millisecond)
	}
	if len(es) != 1 || es[0].Text != "hello daemon" || es[0].Sender != "+4915112345678" || es[0].Modem != "m1" {
		t.Errorf("got %+v, want the planted message from m1", es)
	}
}

// TestDaemonStops: while it runs the daemon holds the locks and the lease,
// and a second daemon is refused; cancelling ctx releases both.
func TestDaemonStops(t *testing.T) {
	r := newRig(t, emu2())
	d := startDaemon(t, r)
	specs := r.opts(nil, "").Modems
	ctx := context.Background()
	for _, s := range specs {
		if !locked(s.Device) {
			t.Errorf("%s not locked while the daemon runs", s.Device)
		}
	}
	if held, err := DaemonHolds(ctx, r.jn, specs); err != nil || !held {
		t.Errorf("DaemonHolds: got %v, %v; want true", held, err)
	}
	if err := Daemon(ctx, DaemonOptions{Journal: r.jn, Store: r.st, Specs: specs}); !errors.Is(err, ErrModemHeld) {
		t.Errorf("a second daemon: got %v, want ErrModemHeld", err)
	}
	d.stop(t)
	for _, s := range specs {
		if locked(s.Device) {
			t.Errorf("%s still locked after the daemon stopped", s.Device)
		}
	}
	if held, err := DaemonHolds(ctx, r.jn, specs); err != nil || held {
		t.Errorf("DaemonHolds after stop: got %v, %v; want false", held, err)
	}
}

// TestDaemonStaleLease: a lease left by a daemon whose process is gone
// does not hold Send back: it takes the modems itself.
func TestDaemonStaleLease(t *testing.T) {
	r := newRig(t, emu2())
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatalf("run true, to borrow a dead pid: %v", err)
	}
	ctx := context.Background()
	dead, err := journal.Open(ctx, filepath.Join(r.dir, "calq.db"), journal.Options{Pid: cmd.ProcessState.Pid()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dead.Close() })
	o := r.opts([]string{"+491701234567"}, "no daemon after all")
	if _, err := claimLease(ctx, dead, o.Modems); err != nil {
		t.Fatal(err)
	}
	if held, err := DaemonHolds(ctx, r.jn, o.Modems); err != nil || held {
		t.Fatalf("DaemonHolds: got %v, %v; want false for a dead owner", held, err)
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := Send(sctx, o)
	if err != nil || res.Messages[0].State != store.SMSSent || len(res.Modems) == 0 {
		t.Fatalf("got %+v, %v; want sent through this process's modems", res, err)
	}
}

// TestDaemonRedials: a modem that does not answer when the daemon starts
// is reported, dialled again by its health check, and used once it
// answers.
func TestDaemonRedials(t *testing.T) {
	r := newRig(t, emu.Options{Modems: 1, Seed: 1})
	late := filepath.Join(r.dir, "ttyUSB0") // appears later, as a modem plugged in
	warned := make(chan error, 4)
	d := startDaemonOn(t, r, []ModemSpec{{Name: "m0", Device: late}}, func(err error) { warned <- err })
	select {
	case err := <-warned:
		if !strings.Contains(err.Error(), "modem m0") {
			t.Errorf("warning %q, want it to name modem m0", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no warning about the modem that did not answer")
	}
	o := r.opts([]string{"+491701234567"}, "after the redial")
	o.NoWait, o.Modems = true, nil
	res, err := Send(context.Background(), o)
	if outcomeOf(err) != "queued" {
		t.Fatalf("Send: %v, want it queued for the daemon", err)
	}
	if err := os.Symlink(r.e.Devices()[0], late); err != nil {
		t.Fatal(err)
	}
	d.waitEvent(t, sched.EventDone)
	m, err := r.st.SMS(context.Background(), res.Messages[0].ID)
	if err != nil || m.State != store.SMSSent || m.Modem != "m0" {
		t.Fatalf("got %s through %q, %v; want sent through m0", m.State, m.Modem, err)
	}
}

// TestDaemonQueued: a signal on DaemonOptions.Queued makes the daemon
// read the outbox at once, not at its next SendEvery (calq serve signals
// each message its API queued).
func TestDaemonQueued(t *testing.T) {
	r := newRig(t, emu2())
	queued := make(chan struct{}, 1)
	st := listingStore{Store: r.st, listed: make(chan struct{}, 10)}
	d := startDaemonWith(t, r, r.opts(nil, "").Modems, nil, func(o *DaemonOptions) {
		o.SendEvery, o.Queued, o.Store = time.Hour, queued, st
	})
	<-st.listed // the first read, at the start, found nothing
	ids, _, err := Enqueue(context.Background(), r.st, r.opts([]string{"+491701234567"}, "at once"))
	if err != nil {
		t.Fatal(err)
	}
	queued <- struct{}{}
	select {
	case <-st.listed:
	case <-time.After(time.Minute):
		t.Fatal("no read of the outbox within a minute of the signal; SendEvery is an hour")
	}
	d.waitEvent(t, sched.EventDone)
	if m, err := r.st.SMS(context.Background(), ids[0]); err != nil || m.State != store.SMSSent {
		t.Fatalf("got %s, %v; want sent", m.State, err)
	}
}

// listingStore tells of each read of the outbox's queued messages, once
// it is done.
type listingStore struct {
	Store
	listed chan struct{}
}

func (s listingStore) ListSMS(ctx context.Context, f store.SMSFilter) ([]store.SMSMessage, error) {
	defer func() { s.listed <- struct{}{} }()
	return s.Store.ListSMS(ctx, f)
}
