package sms

import (
	"context"
	"errors"
	"fmt"
	"time"

	"calq/internal/pgdb"
	"calq/sms/store"
)

// handOffPoll is how often Send reads the outbox while a daemon sends its
// messages, and handOffRecheck how many reads pass between checks that the
// daemon still holds the modems. A journal change marker could wake Send
// instead; TODO if the 100ms latency ever matters.
var (
	handOffPoll    = 100 * time.Millisecond
	handOffRecheck = 10
)

// handedOver is the outcome of a NoWait send: the messages are queued
// (ErrQueued), for a live daemon holding specs (any daemon, with no specs)
// or, without one, for nobody until calq sms send --queued.
func handedOver(ctx context.Context, o SendOptions, res Result) error {
	held, err := daemonHolds(ctx, o)
	if err != nil {
		return err
	}
	if !held && IsShared(o.Store) {
		return ErrNoDaemon
	}
	if !held {
		them := "them"
		if len(res.Messages) == 1 {
			them = "it"
		}
		return fmt.Errorf("%w: %s; no calq sms daemon is running, so nothing will send %s: "+
			"start calq sms daemon, or run calq sms send --queued", ErrQueued, messages(len(res.Messages)), them)
	}
	return fmt.Errorf("%w: %s handed to calq sms daemon", ErrQueued, messages(len(res.Messages)))
}

// sendThroughDaemon waits for a daemon that holds o.Modems to settle ids
// and returns their outcome; ok is false when no daemon holds them, or the
// daemon went away before settling them, and Send must send itself.
func sendThroughDaemon(ctx context.Context, o SendOptions, ids []int64) (res Result, ok bool, err error) {
	if held, herr := daemonHolds(ctx, o); herr != nil || !held {
		return res, false, nil
	}
	waitErr := waitSettled(ctx, o, ids)
	if errors.Is(waitErr, errDaemonGone) {
		return res, false, nil
	}
	res, err = collect(context.WithoutCancel(ctx), o.Store, ids)
	if err != nil {
		return res, true, classify(errors.Join(waitErr, err))
	}
	if ctx.Err() != nil {
		waitErr = nil // the messages stay queued for the daemon: exit 4 says it
	}
	return res, true, outcome(res, waitErr)
}

var errDaemonGone = errors.New("the daemon no longer holds the modems")

// waitSettled polls the outbox until no message of ids is queued, ctx ends
// (nil: the states tell), or the daemon's hold ends (errDaemonGone). A
// shared outbox's server that goes away meanwhile is waited for: the
// daemon sends on once it is back (the store's Link tells of the outage).
func waitSettled(ctx context.Context, o SendOptions, ids []int64) error {
	t := time.NewTicker(handOffPoll)
	defer t.Stop()
	for n := 1; ; n++ {
		done, err := settled(ctx, o.Store, ids)
		switch {
		case err != nil && !pgdb.Transient(err):
			return err
		case err == nil && done:
			return nil
		}
		if n%handOffRecheck == 0 {
			held, err := daemonHolds(ctx, o)
			if err == nil && !held {
				return errDaemonGone
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

func settled(ctx context.Context, jn Outbox, ids []int64) (bool, error) {
	for _, id := range ids {
		m, err := jn.SMS(ctx, id)
		if err != nil {
			return false, ignoreDone(ctx, err)
		}
		if m.State == store.SMSQueued {
			return false, nil
		}
	}
	return true, nil
}

// ignoreDone drops an error that only says ctx ended.
func ignoreDone(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}
