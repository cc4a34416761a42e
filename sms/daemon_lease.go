package sms

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"calq/sched"
	"calq/sched/journal"
	"calq/sms/at"
)

// A daemon's hold on a modem is a job of kind daemonKind in the journal,
// keyed by the modem's lock file, which the daemon claims and keeps running
// while it holds the modem: the journal's heartbeat renews its lease, and
// a daemon that dies leaves a lease that expires (or, on this host, a pid
// that is gone). Reusing the jobs table's owner and lease keeps the
// journal's schema as it is; calq history shows these jobs as kind
// sms-daemon.
const daemonKind = "sms-daemon"

// ErrModemHeld is returned by Daemon when another live daemon holds one of
// its modems.
var ErrModemHeld = errors.New("modem held by another calq sms daemon")

// leaseKey is the journal key of the daemon lease on device.
func leaseKey(device string) string { return daemonKind + ":" + at.LockPath(device) }

// lease is the daemon's hold on its modems in the journal.
type lease struct {
	jn    *journal.Journal
	jobs  []*sched.Job
	start time.Time
}

// claimLease records in jn that this process's daemon holds specs. It
// fails with ErrModemHeld, claiming nothing, when one is held already.
func claimLease(ctx context.Context, jn *journal.Journal, specs []ModemSpec) (*lease, error) {
	l := &lease{jn: jn, start: time.Now()}
	var jobs []*sched.Job
	for _, s := range specs {
		jobs = append(jobs, &sched.Job{Key: leaseKey(s.Device), Kind: daemonKind, Label: s.Name,
			Payload: []byte(s.Device), Class: sched.P2})
	}
	if _, err := jn.Enqueue(ctx, jobs); err != nil {
		return nil, fmt.Errorf("daemon lease: %w", err)
	}
	for i, j := range jobs {
		ok, err := jn.Claim(ctx, j, daemonKind, time.Time{})
		if err == nil && !ok {
			err = fmt.Errorf("%w: %s (%s)", ErrModemHeld, specs[i].Name, specs[i].Device)
		}
		if err != nil {
			return nil, errors.Join(err, l.release())
		}
		l.jobs = append(l.jobs, j)
	}
	return l, nil
}

// release gives the modems back: their lease jobs become cancelled, which
// the next daemon's claim accepts.
func (l *lease) release() error {
	var errs []error
	for _, j := range l.jobs {
		errs = append(errs, l.jn.Finish(context.Background(), sched.Attempt{Job: j, Backend: daemonKind,
			Attempt: j.Attempts, State: sched.StateCancelled, Started: l.start, Finished: time.Now(),
			Reason: "daemon stopped"}))
	}
	l.jobs = nil
	return errors.Join(errs...)
}

// DaemonHolds reports whether a live calq sms daemon holds any of the
// modems of specs, or, with no specs, any modem at all. A lease whose
// time has run out, or whose owner on this host has exited, is not live.
// It costs one indexed lookup per modem, and a scan of the jobs table only
// when a lease row is running.
func DaemonHolds(ctx context.Context, jn *journal.Journal, specs []ModemSpec) (bool, error) {
	keys := map[string]bool{}
	if len(specs) > 0 {
		var list []string
		for _, s := range specs {
			keys[leaseKey(s.Device)] = true
			list = append(list, leaseKey(s.Device))
		}
		st, err := jn.States(ctx, list)
		if err != nil {
			return false, err
		}
		running := false
		for _, s := range st {
			running = running || s == sched.StateRunning
		}
		if !running {
			return false, nil
		}
	}
	recs, err := jn.List(ctx, journal.Filter{Kind: daemonKind, State: sched.StateRunning})
	if err != nil {
		return false, err
	}
	host, _ := os.Hostname()
	now := time.Now()
	for _, r := range recs {
		if len(keys) > 0 && !keys[r.Key] {
			continue
		}
		if r.LeaseUntil.After(now) && (r.OwnerHost != host || journal.PIDAlive(r.OwnerPid)) {
			return true, nil
		}
	}
	return false, nil
}
