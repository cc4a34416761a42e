package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"calq/internal/sqltime"
)

// smsPINSchema holds the SIM PINs a SIM refused, so that calq sms never
// enters one twice by itself: a SIM blocks after three wrong tries. The
// PIN is never stored, only a fingerprint of it: a salted, slow hash
// (calq sms computes it), so that the file is no fast oracle for guesses.
// It is created through Update on first use, not by migrate, as a
// package's own records are (see ext.go).
const smsPINSchema = `
CREATE TABLE IF NOT EXISTS sms_pin_rejections (
	sim         TEXT PRIMARY KEY, -- "iccid:<ICCID>", else "device:<path>"
	modem       TEXT NOT NULL,    -- the modem's name when it was refused
	salt        BLOB NOT NULL,
	fingerprint BLOB NOT NULL,    -- the slow hash of the refused PIN under salt
	reason      TEXT NOT NULL,    -- what the modem answered
	rejected    TEXT NOT NULL
);
`

// PINRejection records that a SIM refused a PIN.
type PINRejection struct {
	SIM         string // "iccid:<ICCID>", else "device:<path>"
	Modem       string
	Salt        []byte
	Fingerprint []byte
	Reason      string
	Rejected    time.Time // set by RecordPINRejection when zero
}

// PINRejection returns the rejection recorded for sim, if any.
func (s *Store) PINRejection(ctx context.Context, sim string) (PINRejection, bool, error) {
	r := PINRejection{SIM: sim}
	found := false
	err := s.db.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var at sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT modem, salt, fingerprint, reason, rejected
			FROM sms_pin_rejections WHERE sim = ?`, sim).Scan(&r.Modem, &r.Salt, &r.Fingerprint, &r.Reason, &at)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		r.Rejected, err = sqltime.Parse(at)
		return err
	})
	if err != nil {
		return PINRejection{}, false, fmt.Errorf("read the PIN rejection of SIM %s: %w", sim, err)
	}
	return r, found, nil
}

// RecordPINRejection records r, replacing what was recorded for its SIM.
func (s *Store) RecordPINRejection(ctx context.Context, r PINRejection) error {
	if r.Rejected.IsZero() {
		r.Rejected = s.now()
	}
	err := s.db.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO sms_pin_rejections
			(sim, modem, salt, fingerprint, reason, rejected) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (sim) DO UPDATE SET modem = excluded.modem, salt = excluded.salt,
			fingerprint = excluded.fingerprint, reason = excluded.reason, rejected = excluded.rejected`,
			r.SIM, r.Modem, r.Salt, r.Fingerprint, r.Reason, sqltime.Text(r.Rejected))
		return err
	})
	if err != nil {
		return fmt.Errorf("record the PIN rejection of SIM %s: %w", r.SIM, err)
	}
	return nil
}

// ClearPINRejection forgets the rejection of sim: the SIM took a PIN.
func (s *Store) ClearPINRejection(ctx context.Context, sim string) error {
	err := s.db.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM sms_pin_rejections WHERE sim = ?`, sim)
		return err
	})
	if err != nil {
		return fmt.Errorf("clear the PIN rejection of SIM %s: %w", sim, err)
	}
	return nil
}
