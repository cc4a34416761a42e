package sms

import (
	"context"

	"calq/sms/store"
)

// notifying returns st with changed called after each of its writes that
// changes the outbox or files an inbox entry (DaemonOptions.Changed); st
// itself when changed is nil.
func notifying(st Store, changed func()) Store {
	if changed == nil {
		return st
	}
	return changedStore{Store: st, changed: changed}
}

type changedStore struct {
	Store
	changed func()
}

// note calls changed after a write that succeeded.
func (s changedStore) note(err error) error {
	if err == nil {
		s.changed()
	}
	return err
}

func (s changedStore) SMSPartSending(ctx context.Context, id int64, seq int, modem string) error {
	return s.note(s.Store.SMSPartSending(ctx, id, seq, modem))
}

func (s changedStore) SMSPartPending(ctx context.Context, id int64, seq int) error {
	return s.note(s.Store.SMSPartPending(ctx, id, seq))
}

func (s changedStore) SMSPartAccepted(ctx context.Context, id int64, seq int, modem string, mr int) (bool, error) {
	done, err := s.Store.SMSPartAccepted(ctx, id, seq, modem, mr)
	return done, s.note(err)
}

func (s changedStore) SMSPartFailed(ctx context.Context, id int64, seq int, state, modem, reason string) error {
	return s.note(s.Store.SMSPartFailed(ctx, id, seq, state, modem, reason))
}

func (s changedStore) SMSPartUnknownRetry(ctx context.Context, id int64, seq int, modem, reason string) error {
	return s.note(s.Store.SMSPartUnknownRetry(ctx, id, seq, modem, reason))
}

func (s changedStore) SettleSMS(ctx context.Context, id int64) (bool, error) {
	done, err := s.Store.SettleSMS(ctx, id)
	return done, s.note(err)
}

func (s changedStore) FinishSMS(ctx context.Context, id int64, state, reason string) (bool, error) {
	changed, err := s.Store.FinishSMS(ctx, id, state, reason)
	if changed {
		s.note(err)
	}
	return changed, err
}

func (s changedStore) AddInboxEntry(ctx context.Context, e store.InboxEntry, pduIDs []int64) (int64, error) {
	id, err := s.Store.AddInboxEntry(ctx, e, pduIDs)
	return id, s.note(err)
}
