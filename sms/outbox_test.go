package sms

import (
	"context"
	"errors"
	"testing"
	"time"

	"calq/sms/store"
)

// failingOutbox is an outbox whose inserts fail, as a server that went
// away does.
type failingOutbox struct {
	*store.Mem
	err error
}

func (f failingOutbox) AddSMS(context.Context, []store.SMSMessage) ([]int64, error) {
	return nil, f.err
}

// TestEnqueueNotRecorded: only a failed insert wraps ErrNotRecorded (the
// caller may then keep the messages elsewhere), with the store's message
// unchanged; a bad argument is a usage error, and a recorded message no
// error.
func TestEnqueueNotRecorded(t *testing.T) {
	down := errors.New("record sms: connection refused")
	mem := store.NewMem(time.Now)
	for _, tc := range []struct {
		name        string
		outbox      Outbox
		to          []string
		notRecorded bool
		usage       bool
	}{
		{"insert fails", failingOutbox{mem, down}, []string{"+491701234567"}, true, false},
		{"no recipients", failingOutbox{mem, down}, nil, false, true},
		{"recorded", mem, []string{"+491701234567"}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ids, _, err := Enqueue(context.Background(), tc.outbox, SendOptions{To: tc.to, Text: "disk full"})
			if got := errors.Is(err, ErrNotRecorded); got != tc.notRecorded {
				t.Errorf("errors.Is(%v, ErrNotRecorded) = %v, want %v", err, got, tc.notRecorded)
			}
			if got := errors.Is(err, ErrUsage); got != tc.usage {
				t.Errorf("errors.Is(%v, ErrUsage) = %v, want %v", err, got, tc.usage)
			}
			if tc.notRecorded && (err.Error() != down.Error() || !errors.Is(err, down)) {
				t.Errorf("error %q, want the store's %q, unwrapping to it", err, down)
			}
			if err == nil && len(ids) != 1 {
				t.Errorf("recorded %v, want one id", ids)
			}
		})
	}
}

// TestJobKindStored: a message's job has kind Kind, "sms", as journals
// and shared queues written by earlier calq versions hold it.
func TestJobKindStored(t *testing.T) {
	if j := jobFor(store.SMSMessage{ID: 7, To: "+491701111"}, 0, 0); j.Kind != "sms" || Kind != "sms" {
		t.Errorf("jobFor(...).Kind = %q, Kind = %q; want sms", j.Kind, Kind)
	}
}
