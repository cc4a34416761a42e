package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"calq/internal/sqltime"
)

// SMSCancelled is the state of a message cancelled before any of its
// parts went to a modem (CancelSMS). It is final: no part of it is sent.
const SMSCancelled = "cancelled"

// ErrNotQueued is SMSPartSending's refusal for a message that is no
// longer queued (cancelled since the worker read it): nothing may be
// written to a modem for it.
var ErrNotQueued = errors.New("sms message is no longer queued")

// CancelSMS cancels message id when it is queued and none of its parts
// is being sent, accepted or of unknown outcome; ok says whether it did.
// The check and the change are one statement, so a worker's
// SMSPartSending either comes first (no cancel) or is refused
// (ErrNotQueued). ErrNoSMS when there is no message id.
func (s *Store) CancelSMS(ctx context.Context, id int64) (ok bool, err error) {
	now := sqltime.Text(s.now())
	err = s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sms_messages SET state = 'cancelled', reason = 'cancelled', updated = ?2
			WHERE id = ?1 AND state = 'queued' AND NOT EXISTS
			(SELECT 1 FROM sms_parts WHERE message_id = ?1 AND state != 'pending')`, id, now)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if ok = n > 0; err != nil || ok {
			return err
		}
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM sms_messages WHERE id = ?`, id).Scan(&one); errors.Is(err, sql.ErrNoRows) {
			return ErrNoSMS
		} else {
			return err
		}
	})
	if err != nil {
		return false, fmt.Errorf("cancel sms %d: %w", id, err)
	}
	return ok, nil
}

// CancelSMS implements Store.CancelSMS.
func (m *Mem) CancelSMS(_ context.Context, id int64) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	msg := m.msg(id)
	if msg == nil {
		return false, fmt.Errorf("cancel sms %d: %w", id, ErrNoSMS)
	}
	if msg.State != SMSQueued {
		return false, nil
	}
	for _, p := range msg.Parts {
		if p.State != SMSPending {
			return false, nil
		}
	}
	msg.State, msg.Reason, msg.Updated = SMSCancelled, "cancelled", stored(m.now())
	return true, nil
}

// checkQueued refuses, with ErrNotQueued, to send a part of message id
// once the message is no longer queued (CancelSMS came first).
func checkQueued(ctx context.Context, tx *sql.Tx, id int64) error {
	var state string
	err := tx.QueryRowContext(ctx, `SELECT state FROM sms_messages WHERE id = ?`, id).Scan(&state)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil // nothing to update either
	case err != nil:
		return err
	case state != SMSQueued:
		return ErrNotQueued
	}
	return nil
}
