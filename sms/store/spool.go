package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"calq/internal/sqltime"
)

// spoolMigrations are the spool's table, in a journal file of this
// machine: messages calq sms send could not record in a shared outbox
// because its server did not answer. Each row names the database it is
// for (its address without the password) and carries a key that the
// shared row keeps (sms_messages.spool_key), so that a forward that dies
// between the insert there and the delete here inserts nothing the next
// time.
var spoolMigrations = []string{`
CREATE TABLE IF NOT EXISTS sms_spool (
	id      INTEGER PRIMARY KEY AUTOINCREMENT,
	key     TEXT NOT NULL UNIQUE,
	address TEXT NOT NULL, -- the shared database's, redacted: forwarded there only
	created TEXT NOT NULL,
	message TEXT NOT NULL  -- JSON: the SMSMessage, its options and parts as composed
);
`}

// SMSSpooled is the state calq shows for a spooled message: kept on this
// machine until the shared outbox takes it.
const SMSSpooled = "spooled"

// Spooled is a message in the spool.
type Spooled struct {
	ID      int64 // the spool's, not the shared outbox's
	Key     string
	Address string
	Message SMSMessage // Created is when it was spooled
}

// Spool holds messages for a shared outbox whose server was down. It
// lives in a journal file of this machine and is safe for concurrent
// use, also by several processes.
type Spool struct{ db DB }

// OpenSpool creates or upgrades the spool's table in db.
func OpenSpool(ctx context.Context, db DB) (*Spool, error) {
	if err := db.Migrate(ctx, "sms_spool", spoolMigrations); err != nil {
		return nil, fmt.Errorf("open the sms spool: %w", err)
	}
	return &Spool{db: db}, nil
}

// Add keeps msgs for the shared outbox at address, stamped created now,
// and returns them as spooled, in order.
func (s *Spool) Add(ctx context.Context, address string, msgs []SMSMessage, now time.Time) ([]Spooled, error) {
	out := make([]Spooled, len(msgs))
	for i, m := range msgs {
		key := make([]byte, 16)
		rand.Read(key)
		m.Created, m.State = now, SMSQueued
		out[i] = Spooled{Key: hex.EncodeToString(key), Address: address, Message: m}
	}
	err := s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for i := range out {
			b, err := json.Marshal(out[i].Message)
			if err != nil {
				return err
			}
			err = tx.QueryRowContext(ctx, `INSERT INTO sms_spool (key, address, created, message)
				VALUES (?, ?, ?, ?) RETURNING id`,
				out[i].Key, address, sqltime.Text(now), string(b)).Scan(&out[i].ID)
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("spool sms: %w", err)
	}
	return out, nil
}

// List returns the messages spooled for address, oldest first.
func (s *Spool) List(ctx context.Context, address string) ([]Spooled, error) {
	rows, err := s.db.Query(ctx, `SELECT id, key, message FROM sms_spool WHERE address = ? ORDER BY id`, address)
	if err != nil {
		return nil, fmt.Errorf("list spooled sms: %w", err)
	}
	defer rows.Close()
	var out []Spooled
	for rows.Next() {
		sp := Spooled{Address: address}
		var msg string
		if err := rows.Scan(&sp.ID, &sp.Key, &msg); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(msg), &sp.Message); err != nil {
			return nil, fmt.Errorf("spooled sms %d: %w", sp.ID, err)
		}
		out = append(out, sp)
	}
	return out, rows.Err()
}

// Forward moves the messages spooled for address into the shared outbox
// to, each with its options, parts and spool time, and returns the ids
// they got there (none for one a crashed forward had moved already).
// Each is inserted before it is deleted here, and inserted at most once
// (by its key): forwarding is idempotent, also when two processes do it
// at once.
func (s *Spool) Forward(ctx context.Context, address string, to *Store) ([]int64, error) {
	sps, err := s.List(ctx, address)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, sp := range sps {
		id, err := to.AddSpooled(ctx, sp.Key, sp.Message)
		if err != nil {
			return ids, err
		}
		if id > 0 {
			ids = append(ids, id)
		}
		err = s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `DELETE FROM sms_spool WHERE id = ?`, sp.ID)
			return err
		})
		if err != nil {
			return ids, fmt.Errorf("drop forwarded sms %s from the spool: %w", sp.Key, err)
		}
	}
	return ids, nil
}

// AddSpooled records m in the shared outbox, queued, with its parts and
// its Created time, under key: when a message with that key is there
// already it records nothing and returns 0.
func (s *Store) AddSpooled(ctx context.Context, key string, m SMSMessage) (int64, error) {
	if s.pg == nil {
		return 0, ErrNotShared
	}
	var id int64
	now := sqltime.Text(s.now())
	opts := m.Options
	if opts == "" {
		opts = "{}"
	}
	err := s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		id = 0
		err := tx.QueryRowContext(ctx, `INSERT INTO sms_messages
			(created, recipient, text, options, not_before, state, updated, spool_key)
			VALUES (?1, ?2, ?3, ?4, ?5, 'queued', ?6, ?7) ON CONFLICT (spool_key) DO NOTHING RETURNING id`,
			sqltime.Text(m.Created), m.To, m.Text, opts, sqltime.Text(m.NotBefore), now, key).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // forwarded before
		}
		if err != nil {
			return err
		}
		return addParts(ctx, tx, id, m.Parts, now)
	})
	if err != nil {
		return 0, fmt.Errorf("forward spooled sms %s: %w", key, err)
	}
	return id, nil
}
