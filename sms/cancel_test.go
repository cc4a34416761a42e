package sms

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"calq/sms/store"
)

// cancelAfterRead is an outbox whose message is cancelled (as calq
// serve's DELETE /sms/{id} does) right after each read but the first:
// the modem worker reads it queued, and it is cancelled before the worker
// marks its part as being sent.
type cancelAfterRead struct {
	*store.Store
	reads atomic.Int32
}

func (c *cancelAfterRead) SMS(ctx context.Context, id int64) (store.SMSMessage, error) {
	m, err := c.Store.SMS(ctx, id)
	if err == nil && c.reads.Add(1) > 1 {
		_, err = c.Store.CancelSMS(ctx, id)
	}
	return m, err
}

// TestCancelBeforeSending: a message cancelled after the worker read it
// and before its part went to the modem is not sent.
func TestCancelBeforeSending(t *testing.T) {
	r := newRig(t, emu2())
	o := r.opts([]string{"+491700000001"}, "never sent")
	box := &cancelAfterRead{Store: r.st}
	o.Store = box
	res, err := Send(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "cancelled") || len(res.Messages) != 1 || res.Messages[0].State != store.SMSCancelled {
		t.Errorf("Send = %+v, %v, want the message cancelled and said so", res, err)
	}
	if n := len(r.log.records(t)); n != 0 {
		t.Errorf("the modems got %d PDUs, want 0", n)
	}
	if box.reads.Load() < 2 {
		t.Errorf("the message was read %d times, want the worker's read too", box.reads.Load())
	}
}
