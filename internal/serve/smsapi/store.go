package smsapi

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"calq/internal/sqltime"
)

// migrations are the versions of the Service's tables in the journal's
// file (see journal.Migrate).
//
// smsapi_messages: who sent each outbox message through calq serve and
// where its reports go. A row is written (message NULL) in the same
// transaction that counts the user's messages against the rate and the
// quota, before the outbox records the message; then it gets the
// message's id. watching is 1 while the push loop still reads the
// message for events. smsapi_pushes: what the Service owes, one row per
// event (key: what it reports, so that it is owed once), tried until
// delivered or MaxAttempts. smsapi_cursors: how far the loop read the
// inbox.
var migrations = []string{`
CREATE TABLE IF NOT EXISTS smsapi_messages (
	seq       INTEGER PRIMARY KEY AUTOINCREMENT,
	message   INTEGER UNIQUE,           -- the outbox's id; NULL while being recorded
	user      TEXT NOT NULL,
	created   TEXT NOT NULL,
	push      TEXT NOT NULL DEFAULT '', -- JSON of a Push; '' none
	watching  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS smsapi_messages_user ON smsapi_messages (user, message);
CREATE INDEX IF NOT EXISTS smsapi_messages_created ON smsapi_messages (user, created);
CREATE INDEX IF NOT EXISTS smsapi_messages_watching ON smsapi_messages (message) WHERE watching = 1;
CREATE TABLE IF NOT EXISTS smsapi_pushes (
	key      TEXT PRIMARY KEY,
	grp      TEXT NOT NULL,               -- pushes of a group go in the order owed
	method   TEXT NOT NULL,
	url      TEXT NOT NULL,
	ctype    TEXT NOT NULL DEFAULT '',
	body     BLOB,
	attempts INTEGER NOT NULL DEFAULT 0,
	next     TEXT NOT NULL,
	state    TEXT NOT NULL DEFAULT 'owed', -- owed, delivered, failed
	error    TEXT
);
CREATE INDEX IF NOT EXISTS smsapi_pushes_owed ON smsapi_pushes (next) WHERE state = 'owed';
CREATE INDEX IF NOT EXISTS smsapi_pushes_grp ON smsapi_pushes (grp) WHERE state = 'owed';
CREATE TABLE IF NOT EXISTS smsapi_cursors (
	name  TEXT PRIMARY KEY,
	value INTEGER NOT NULL
);
`}

// reserve counts user's messages against rate a minute and quota a day
// (UTC) and, when n more fit, records n rows for them and returns their
// seqs; a *QuotaError when they do not. One write transaction: two
// requests, or two processes on one journal, never both fit in the last
// place.
func (s *Service) reserve(ctx context.Context, user string, n, rate, quota int, push string) ([]int64, error) {
	var seqs []int64
	err := s.opts.Journal.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		now := s.now()
		if err := checkLimits(ctx, tx, user, n, rate, quota, now); err != nil {
			return err
		}
		seqs = seqs[:0]
		for range n {
			var seq int64
			if err := tx.QueryRowContext(ctx, `INSERT INTO smsapi_messages (user, created, push, watching)
				VALUES (?, ?, ?, ?) RETURNING seq`, user, sqltime.Text(now), push, push != "").Scan(&seq); err != nil {
				return err
			}
			seqs = append(seqs, seq)
		}
		return nil
	})
	var qe *QuotaError
	var ie *InputError
	switch {
	case errors.As(err, &qe):
		return nil, qe
	case errors.As(err, &ie):
		return nil, ie
	}
	if err != nil {
		return nil, fmt.Errorf("record sms of %s: %w", user, err)
	}
	return seqs, nil
}

// checkLimits is reserve's count: the rate over the last minute, the
// quota since the UTC day began.
func checkLimits(ctx context.Context, tx *sql.Tx, user string, n, rate, quota int, now time.Time) error {
	for _, l := range []struct {
		limit int
		per   string
	}{{rate, "a minute"}, {quota, "a day"}} {
		if l.limit > 0 && n > l.limit { // would never fit: not a matter of waiting
			return &InputError{Field: "to", Value: fmt.Sprintf("%d recipients", n),
				Err: fmt.Errorf("is more than the user's limit of %d messages %s", l.limit, l.per)}
		}
	}
	minute := now.Add(-time.Minute)
	var inMinute int
	var oldest sql.NullString
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*), MIN(created) FROM smsapi_messages WHERE user = ? AND created > ?`,
		user, sqltime.Text(minute)).Scan(&inMinute, &oldest); err != nil {
		return err
	}
	if rate > 0 && inMinute+n > rate {
		first, err := sqltime.Parse(oldest)
		if err != nil || first.IsZero() {
			first = now
		}
		return &QuotaError{Which: "rate", Limit: rate, Reset: first.Add(time.Minute)}
	}
	day := now.UTC().Truncate(24 * time.Hour)
	var inDay int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM smsapi_messages WHERE user = ? AND created >= ?`,
		user, sqltime.Text(day)).Scan(&inDay); err != nil {
		return err
	}
	if quota > 0 && inDay+n > quota {
		return &QuotaError{Which: "daily quota", Limit: quota, Reset: day.Add(24 * time.Hour)}
	}
	return nil
}

// bind gives the reserved rows seqs their outbox ids, in order.
func (s *Service) bind(ctx context.Context, seqs, ids []int64) error {
	return s.opts.Journal.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for i, seq := range seqs {
			if _, err := tx.ExecContext(ctx, `UPDATE smsapi_messages SET message = ? WHERE seq = ?`, ids[i], seq); err != nil {
				return err
			}
		}
		return nil
	})
}

// unreserve deletes the rows seqs: the outbox recorded none of their
// messages, so they count for nothing.
func (s *Service) unreserve(ctx context.Context, seqs []int64) error {
	return s.opts.Journal.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM smsapi_messages WHERE seq IN (`+placeholders(len(seqs))+`)`, int64s(seqs)...)
		return err
	})
}

// owned is a message of the Service's table: its sender and push.
type owned struct {
	ID   int64
	User string
	Push *Push
}

// owner returns who sent message id through the Service; ok false when
// no one did (calq sms send, or another server's).
func (s *Service) owner(ctx context.Context, id int64) (owned, bool, error) {
	os, err := s.owners(ctx, `WHERE message = ?`, id)
	if err != nil || len(os) == 0 {
		return owned{}, false, err
	}
	return os[0], true, nil
}

// owners reads the table's bound rows that where (and its arguments)
// selects.
func (s *Service) owners(ctx context.Context, where string, args ...any) ([]owned, error) {
	rows, err := s.opts.Journal.Query(ctx, `SELECT message, user, push FROM smsapi_messages `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("read sms senders: %w", err)
	}
	defer rows.Close()
	var out []owned
	for rows.Next() {
		var o owned
		var id sql.NullInt64
		var push string
		if err := rows.Scan(&id, &o.User, &push); err != nil {
			return nil, err
		}
		if !id.Valid {
			continue
		}
		o.ID = id.Int64
		if push != "" {
			o.Push = new(Push)
			if err := json.Unmarshal([]byte(push), o.Push); err != nil {
				return nil, fmt.Errorf("sms %d: push: %w", o.ID, err)
			}
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

func int64s(ns []int64) []any {
	out := make([]any, len(ns))
	for i, n := range ns {
		out[i] = n
	}
	return out
}
