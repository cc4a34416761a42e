package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"calq/internal/bytestr"
	"calq/internal/sqltime"
)

// smsOutboxSchema holds calq sms's outbox: one sms_messages row per
// recipient of `calq sms send`, and one sms_parts row per PDU of it. Both
// are written before any AT traffic, so a message survives calq's death;
// the part states say what a retry must still send.
//
// Message states: queued (not final), sent (every part accepted), failed
// (reason says why), unknown (a PDU went to the modem and no answer came
// back: the network may have it). Part states: pending, accepted (mr set),
// failed, unknown.
const smsOutboxSchema = `
CREATE TABLE IF NOT EXISTS sms_messages (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	created    TEXT NOT NULL,
	recipient  TEXT NOT NULL,
	text       TEXT NOT NULL,
	options    TEXT NOT NULL DEFAULT '{}', -- JSON: flash, report, validity, priority, ...
	not_before TEXT,                      -- --at: not sent before this time
	state      TEXT NOT NULL DEFAULT 'queued',
	reason     TEXT,
	modem      TEXT,
	updated    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sms_messages_queued ON sms_messages (id) WHERE state = 'queued';
CREATE TABLE IF NOT EXISTS sms_parts (
	message_id INTEGER NOT NULL REFERENCES sms_messages (id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL, -- 1-based
	total      INTEGER NOT NULL,
	ref        INTEGER NOT NULL, -- concatenation reference, 0 for a single PDU
	hex        TEXT NOT NULL,    -- SMSC field first, as written after AT+CMGS
	tpdu_len   INTEGER NOT NULL,
	state      TEXT NOT NULL DEFAULT 'pending',
	mr         INTEGER,          -- the network's message reference, once accepted
	modem      TEXT,
	reason     TEXT,
	updated    TEXT NOT NULL,
	PRIMARY KEY (message_id, seq)
) WITHOUT ROWID;
`

// The states of an outbox message and of its parts.
const (
	SMSQueued   = "queued"
	SMSSent     = "sent"
	SMSFailed   = "failed"
	SMSUnknown  = "unknown"
	SMSPending  = "pending"  // a part not yet accepted
	SMSSending  = "sending"  // a part whose PDU is being written: after a crash, its outcome is unknown
	SMSAccepted = "accepted" // a part the network accepted
)

// ErrNoSMS is returned for a message id the outbox does not hold.
var ErrNoSMS = errors.New("no such sms message")

// SMSMessage is one message of the outbox: one recipient, its parts.
type SMSMessage struct {
	ID        int64     `json:"id"`
	Created   time.Time `json:"created"`
	To        string    `json:"to"`
	Text      string    `json:"text"`
	Options   string    `json:"options"` // JSON, as the sender stored it
	NotBefore time.Time `json:"not_before,omitzero"`
	State     string    `json:"state"`
	Reason    string    `json:"reason,omitempty"`
	Modem     string    `json:"modem,omitempty"`
	Updated   time.Time `json:"updated"`
	Parts     []SMSPart `json:"parts"`
}

// SMSPart is one PDU of a message.
type SMSPart struct {
	Seq        int       `json:"seq"`
	Total      int       `json:"total"`
	Ref        int       `json:"ref"`
	Hex        string    `json:"hex"`
	TPDULength int       `json:"tpdu_length"` // column tpdu_len, as journals and shared databases hold it
	State      string    `json:"state"`
	MR         int       `json:"mr"` // -1 until accepted
	Modem      string    `json:"modem,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	Updated    time.Time `json:"updated"`
}

// UnmarshalJSON reads a part as Spool keeps it, also as an older calq
// wrote it ("tpdu_len" for "tpdu_length"), so that messages spooled
// before an upgrade are forwarded whole.
func (p *SMSPart) UnmarshalJSON(b []byte) error {
	type plain SMSPart // without this method
	var v struct {
		plain
		Old *int `json:"tpdu_len"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*p = SMSPart(v.plain)
	if v.Old != nil && p.TPDULength == 0 {
		p.TPDULength = *v.Old
	}
	return nil
}

// AddSMS records messages and their parts in one transaction and returns
// their ids, in order. Their state is queued and their parts pending,
// whatever the arguments say.
func (s *Store) AddSMS(ctx context.Context, msgs []SMSMessage) ([]int64, error) {
	ids := make([]int64, len(msgs))
	now := sqltime.Text(s.now())
	rows := make([]SMSMessage, len(msgs)) // do's fn shares no memory with the caller
	copy(rows, msgs)
	err := s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for i, m := range rows {
			opts := m.Options
			if opts == "" {
				opts = "{}"
			}
			err := tx.QueryRowContext(ctx, `INSERT INTO sms_messages
				(created, recipient, text, options, not_before, state, updated)
				VALUES (?1, ?2, ?3, ?4, ?5, 'queued', ?1) RETURNING id`,
				now, m.To, m.Text, opts, sqltime.Text(m.NotBefore)).Scan(&ids[i])
			if err != nil {
				return err
			}
			if err := addParts(ctx, tx, ids[i], m.Parts, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("record sms: %w", err)
	}
	return ids, nil
}

// addParts records the parts of message id, pending.
func addParts(ctx context.Context, tx *sql.Tx, id int64, parts []SMSPart, now any) error {
	for _, p := range parts {
		_, err := tx.ExecContext(ctx, `INSERT INTO sms_parts
			(message_id, seq, total, ref, hex, tpdu_len, state, updated)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', ?7)`,
			id, p.Seq, p.Total, p.Ref, p.Hex, p.TPDULength, now)
		if err != nil {
			return err
		}
	}
	return nil
}

// SMSPartAccepted records that the network accepted part seq of message
// id through modem with message reference mr. When that was the last
// part, the message becomes sent; done says so.
func (s *Store) SMSPartAccepted(ctx context.Context, id int64, seq int, modem string, mr int) (done bool, err error) {
	now := sqltime.Text(s.now())
	err = s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		done = false
		if _, err := tx.ExecContext(ctx, `UPDATE sms_parts SET state = 'accepted', mr = ?3, modem = ?4,
			reason = NULL, updated = ?5 WHERE message_id = ?1 AND seq = ?2`, id, seq, mr, modem, now); err != nil {
			return err
		}
		done, err = settleSMS(ctx, tx, id, modem, now)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("sms %d part %d accepted: %w", id, seq, err)
	}
	return done, nil
}

// settleSMS ends queued message id once none of its parts is pending or
// being sent: sent when all were accepted, else unknown (some part went
// out without an answer, and duplicates were not allowed). It reports
// whether the message ended.
func settleSMS(ctx context.Context, tx *sql.Tx, id int64, modem string, now any) (bool, error) {
	res, err := tx.ExecContext(ctx, `UPDATE sms_messages SET
		state = CASE WHEN EXISTS (SELECT 1 FROM sms_parts WHERE message_id = ?1 AND state != 'accepted')
			THEN 'unknown' ELSE 'sent' END,
		reason = CASE WHEN EXISTS (SELECT 1 FROM sms_parts WHERE message_id = ?1 AND state != 'accepted')
			THEN 'unknown: some parts went out without an answer' ELSE NULL END,
		modem = COALESCE(NULLIF(?2, ''), modem), updated = ?3
		WHERE id = ?1 AND state = 'queued' AND NOT EXISTS
		(SELECT 1 FROM sms_parts WHERE message_id = ?1 AND state IN ('pending', 'sending'))`, id, modem, now)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// SettleSMS ends queued message id from its parts (see SMSPartAccepted)
// when none is pending or being sent; done says whether it ended.
func (s *Store) SettleSMS(ctx context.Context, id int64) (done bool, err error) {
	now := sqltime.Text(s.now())
	err = s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		done, err = settleSMS(ctx, tx, id, "", now)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("sms %d settle: %w", id, err)
	}
	return done, nil
}

// SMSPartSending records that part seq of message id is about to be
// written to modem: if calq dies before the modem answers, the part's
// outcome is unknown, and the next run must not resend it blindly.
// SMSPartPending undoes it when nothing was written after all.
func (s *Store) SMSPartSending(ctx context.Context, id int64, seq int, modem string) error {
	return s.setPartState(ctx, id, seq, SMSSending, modem)
}

// SMSPartPending puts part seq of message id back to pending: its PDU was
// not written (a missing prompt, a refusal before it).
func (s *Store) SMSPartPending(ctx context.Context, id int64, seq int) error {
	return s.setPartState(ctx, id, seq, SMSPending, "")
}

func (s *Store) setPartState(ctx context.Context, id int64, seq int, state, modem string) error {
	now := sqltime.Text(s.now())
	err := s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if state == SMSSending && s.pg != nil && s.owner != "" {
			if err := checkClaim(ctx, tx, id, s.owner); err != nil {
				return err
			}
		}
		if state == SMSSending {
			if err := checkQueued(ctx, tx, id); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE sms_parts SET state = ?3, modem = COALESCE(NULLIF(?4, ''), modem), updated = ?5
			WHERE message_id = ?1 AND seq = ?2 AND state IN ('pending', 'sending', 'unknown')`, id, seq, state, modem, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("sms %d part %d %s: %w", id, seq, state, err)
	}
	return nil
}

// SMSPartFailed records part seq of message id as failed or unknown
// (state) with reason, and the message likewise if it is still queued.
func (s *Store) SMSPartFailed(ctx context.Context, id int64, seq int, state, modem, reason string) error {
	if state != SMSFailed && state != SMSUnknown {
		return fmt.Errorf("sms %d part %d: state %q: want failed or unknown", id, seq, state)
	}
	now := sqltime.Text(s.now())
	reason = bytestr.Text(reason) // it may quote what a modem said
	err := s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE sms_parts SET state = ?3, modem = ?4, reason = ?5, updated = ?6
			WHERE message_id = ?1 AND seq = ?2`, id, seq, state, modem, reason, now); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE sms_messages SET state = ?2, modem = ?3, reason = ?4, updated = ?5
			WHERE id = ?1 AND state = 'queued'`, id, state, modem, reason, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("sms %d part %d %s: %w", id, seq, state, err)
	}
	return nil
}

// SMSPartUnknownRetry records part seq as unknown (a PDU written without an
// answer) but leaves the message queued: the user allowed duplicates, so
// the part will be sent again.
func (s *Store) SMSPartUnknownRetry(ctx context.Context, id int64, seq int, modem, reason string) error {
	now := sqltime.Text(s.now())
	reason = bytestr.Text(reason)
	err := s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE sms_parts SET state = 'unknown', modem = ?3, reason = ?4, updated = ?5
			WHERE message_id = ?1 AND seq = ?2`, id, seq, modem, reason, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("sms %d part %d unknown: %w", id, seq, err)
	}
	return nil
}

// FinishSMS sets message id to state (failed, unknown or queued) with
// reason, when it is still queued; changed says whether it was.
func (s *Store) FinishSMS(ctx context.Context, id int64, state, reason string) (changed bool, err error) {
	now := sqltime.Text(s.now())
	reason = bytestr.Text(reason)
	err = s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sms_messages SET state = ?2, reason = ?3, updated = ?4
			WHERE id = ?1 AND state = 'queued'`, id, state, reason, now)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		changed = n > 0
		return err
	})
	if err != nil {
		return false, fmt.Errorf("sms %d %s: %w", id, state, err)
	}
	return changed, nil
}

// SMS returns message id with its parts; ErrNoSMS when there is none.
func (s *Store) SMS(ctx context.Context, id int64) (SMSMessage, error) {
	ms, err := s.querySMS(ctx, `WHERE id = ?`, id)
	if err == nil && len(ms) == 0 {
		err = ErrNoSMS
	}
	if err != nil {
		return SMSMessage{}, fmt.Errorf("sms %d: %w", id, err)
	}
	return ms[0], nil
}

// SMSFilter selects outbox messages for ListSMS.
type SMSFilter struct {
	State    string    // "" for any
	DueUntil time.Time // non-zero: only messages with no not_before or one at or before it
	Limit    int       // 0: no limit; the newest are kept
}

// ListSMS returns the outbox messages f selects, oldest first, with parts.
func (s *Store) ListSMS(ctx context.Context, f SMSFilter) ([]SMSMessage, error) {
	var where []string
	var args []any
	if f.State != "" {
		where = append(where, "state = ?")
		args = append(args, f.State)
	}
	if !f.DueUntil.IsZero() {
		where = append(where, "(not_before IS NULL OR not_before <= ?)")
		args = append(args, sqltime.Text(f.DueUntil))
	}
	q := ""
	if len(where) > 0 {
		q = "WHERE " + strings.Join(where, " AND ")
	}
	if f.Limit > 0 {
		q = fmt.Sprintf("WHERE id IN (SELECT id FROM sms_messages %s ORDER BY id DESC LIMIT %d)", q, f.Limit)
	}
	ms, err := s.querySMS(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list sms: %w", err)
	}
	return ms, nil
}

func (s *Store) querySMS(ctx context.Context, where string, args ...any) ([]SMSMessage, error) {
	rows, err := s.db.Query(ctx, `SELECT id, created, recipient, text, options, not_before, state,
		reason, modem, updated FROM sms_messages `+where+` ORDER BY id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ms []SMSMessage
	byID := map[int64]int{}
	for rows.Next() {
		var m SMSMessage
		var created, nb, updated, reason, modem sql.NullString
		if err := rows.Scan(&m.ID, &created, &m.To, &m.Text, &m.Options, &nb, &m.State, &reason, &modem, &updated); err != nil {
			return nil, err
		}
		m.Reason, m.Modem = reason.String, modem.String
		if err := parseTimes(&created, &m.Created, &nb, &m.NotBefore, &updated, &m.Updated); err != nil {
			return nil, fmt.Errorf("sms %d: %w", m.ID, err)
		}
		byID[m.ID] = len(ms)
		ms = append(ms, m)
	}
	if err := rows.Err(); err != nil || len(ms) == 0 {
		return ms, err
	}
	return ms, s.addParts(ctx, ms, byID, where, args)
}

func (s *Store) addParts(ctx context.Context, ms []SMSMessage, byID map[int64]int, where string, args []any) error {
	rows, err := s.db.Query(ctx, `SELECT message_id, seq, total, ref, hex, tpdu_len, state, mr, modem, reason, updated
		FROM sms_parts WHERE message_id IN (SELECT id FROM sms_messages `+where+`) ORDER BY message_id, seq`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var p SMSPart
		var mr sql.NullInt64
		var modem, reason, updated sql.NullString
		if err := rows.Scan(&id, &p.Seq, &p.Total, &p.Ref, &p.Hex, &p.TPDULength, &p.State, &mr, &modem, &reason, &updated); err != nil {
			return err
		}
		p.MR = -1
		if mr.Valid {
			p.MR = int(mr.Int64)
		}
		p.Modem, p.Reason = modem.String, reason.String
		var err error
		if p.Updated, err = sqltime.Parse(updated); err != nil {
			return err
		}
		if i, ok := byID[id]; ok {
			ms[i].Parts = append(ms[i].Parts, p)
		}
	}
	return rows.Err()
}

// parseTimes reads pairs of (column, destination).
func parseTimes(pairs ...any) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		t, err := sqltime.Parse(*pairs[i].(*sql.NullString))
		if err != nil {
			return err
		}
		*pairs[i+1].(*time.Time) = t
	}
	return nil
}
