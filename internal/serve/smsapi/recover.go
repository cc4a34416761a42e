package smsapi

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"calq/internal/sqltime"
	"calq/sms/store"
)

// seqKey is the field of an outbox message's options that names its
// row of smsapi_messages, so that a message recorded by a Service that
// died before binding it (bind) is found again and keeps its sender.
const seqKey = "smsapi_seq"

// recoverScan is how many of the newest outbox messages recoverBindings
// reads: a crash leaves at most one request's messages unbound.
const recoverScan = 1000

// recoverAge is how old an unbound row must be to be recovered; a Send
// takes milliseconds from reserve to bind.
const recoverAge = time.Minute

// withSeq adds seq to options (JSON) under seqKey.
func withSeq(options string, seq int64) string {
	o := map[string]any{}
	if options != "" {
		_ = json.Unmarshal([]byte(options), &o) // Compose wrote it: an object
	}
	o[seqKey] = seq
	b, err := json.Marshal(o)
	if err != nil {
		return options
	}
	return string(b)
}

// recoverBindings binds the rows a dead Service reserved to the outbox
// messages it recorded for them, and deletes those of messages never
// recorded. It runs when a Service opens and in each round of Run, and
// leaves rows younger than recoverAge: a live Service (this one, or
// another process on the journal) is between reserve and bind.
func (s *Service) recoverBindings(ctx context.Context) error {
	seqs, err := s.unbound(ctx)
	if err != nil || len(seqs) == 0 {
		return err
	}
	ms, err := s.box.ListSMS(ctx, store.SMSFilter{Limit: recoverScan})
	if err != nil {
		return fmt.Errorf("recover sms senders: %w", err)
	}
	found := map[int64]int64{}
	for _, m := range ms {
		var o struct {
			Seq int64 `json:"smsapi_seq"`
		}
		if json.Unmarshal([]byte(m.Options), &o) == nil && o.Seq > 0 {
			found[o.Seq] = m.ID
		}
	}
	return s.opts.Journal.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for _, seq := range seqs {
			q, args := `DELETE FROM smsapi_messages WHERE seq = ?`, []any{seq}
			if id, ok := found[seq]; ok {
				q, args = `UPDATE smsapi_messages SET message = ? WHERE seq = ?`, []any{id, seq}
			}
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				return err
			}
		}
		return nil
	})
}

// unbound lists the rows reserved and never bound.
func (s *Service) unbound(ctx context.Context) ([]int64, error) {
	rows, err := s.opts.Journal.Query(ctx, `SELECT seq FROM smsapi_messages WHERE message IS NULL AND created < ? ORDER BY seq`,
		sqltime.Text(s.now().Add(-recoverAge)))
	if err != nil {
		return nil, fmt.Errorf("recover sms senders: %w", err)
	}
	defer rows.Close()
	var seqs []int64
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			return nil, err
		}
		seqs = append(seqs, seq)
	}
	return seqs, rows.Err()
}
