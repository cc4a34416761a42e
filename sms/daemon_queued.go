package sms

import (
	"context"

	"calq/sms/store"
)

// Queuing is a store whose AddSMS tells a daemon of the same process of
// each message queued (DaemonOptions.Queued = Queued), so that it sends
// it at once rather than at its next SendEvery; calq serve's API writes
// through it. It keeps the store's other methods.
type Queuing struct {
	*store.Store
	queued chan struct{}
}

// NewQueuing returns st telling of what is queued in it.
func NewQueuing(st *store.Store) Queuing { return Queuing{Store: st, queued: make(chan struct{}, 1)} }

// Queued is DaemonOptions.Queued for the daemon that sends from q.
func (q Queuing) Queued() <-chan struct{} { return q.queued }

// AddSMS records msgs, then tells the daemon.
func (q Queuing) AddSMS(ctx context.Context, msgs []store.SMSMessage) ([]int64, error) {
	ids, err := q.Store.AddSMS(ctx, msgs)
	if err == nil {
		select {
		case q.queued <- struct{}{}:
		default: // a read is due already: it finds these too
		}
	}
	return ids, err
}
