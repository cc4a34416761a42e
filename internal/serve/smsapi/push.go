package smsapi

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"calq/internal/sqltime"
	"calq/sms/store"
)

// pushBatch is how many owed pushes one round tries, at most
// pushWorkers at once (a slow target holds one worker, not the rest).
const (
	pushBatch   = 64
	pushWorkers = 8
)

// Run reads the outbox and the inbox for what the Service owes (status
// reports, final states, received messages) and delivers it, until ctx
// ends; what is owed is in the journal first, so a restart delivers it.
func (s *Service) Run(ctx context.Context) error {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.wake:
			if !s.busy() {
				continue // the timer still runs the next poll
			}
		case <-t.C:
		}
		next, err := s.round(ctx)
		if err != nil && ctx.Err() == nil {
			s.opts.Log.Warn("sms pushes", "err", err)
		}
		wait := s.opts.PollEvery
		if !next.IsZero() {
			wait = min(wait, max(next.Sub(s.now()), time.Millisecond))
		}
		t.Reset(wait)
	}
}

// round owes what the outbox and the inbox hold now and tries the
// pushes due; it returns when the next owed push is due (zero: none).
func (s *Service) round(ctx context.Context) (time.Time, error) {
	errRecover := s.recoverBindings(ctx)
	gen := s.sends.Load()
	watching, errOut := s.scanOutbox(ctx)
	if errOut == nil && s.sends.Load() == gen {
		s.watched.Store(int64(watching))
	}
	errIn := s.scanInbox(ctx)
	errTargets := s.readInbound(ctx)
	next, errPush := s.deliverDue(ctx)
	s.owing.Store(!next.IsZero())
	return next, errors.Join(errRecover, errOut, errIn, errTargets, errPush)
}

// busy says whether a Wake is worth a round: a message is watched, a
// push is owed, or a user has an inbound webhook (a received message may
// be theirs).
func (s *Service) busy() bool {
	return s.watched.Load() > 0 || s.owing.Load() || s.inbound.Load()
}

// readInbound notes, at most once a PollEvery, whether a user has an
// inbound webhook.
func (s *Service) readInbound(ctx context.Context) error {
	if now := time.Now(); now.Sub(s.targetAt) >= s.opts.PollEvery {
		targets, err := s.inboundTargets(ctx)
		if err != nil {
			return err
		}
		s.targetAt = now
		s.inbound.Store(len(targets) > 0)
	}
	return nil
}

// scanOutbox owes the events of each message still watched, and stops
// watching those that reached their final state, in one transaction
// with the pushes their final state owes.
// It returns how many are still watched.
func (s *Service) scanOutbox(ctx context.Context) (int, error) {
	os, err := s.owners(ctx, `WHERE watching = 1 AND message IS NOT NULL ORDER BY message`)
	if err != nil {
		return 0, err
	}
	var errs []error
	watching := 0
	for _, o := range os {
		final, err := s.scanMessage(ctx, o)
		if !final {
			watching++
		}
		errs = append(errs, err)
	}
	return watching, errors.Join(errs...)
}

// scanMessage owes o's events; final says it is no longer watched.
func (s *Service) scanMessage(ctx context.Context, o owned) (bool, error) {
	m, err := s.box.SMS(ctx, o.ID)
	if err != nil {
		return false, err
	}
	msg, err := s.message(ctx, o, m)
	if err != nil {
		return false, err
	}
	ps, final, err := s.events(o, msg, asksReports(m))
	if err != nil {
		return false, fmt.Errorf("sms %d: %w", o.ID, err)
	}
	if !final {
		return false, s.owe(ctx, ps, true, nil)
	}
	keys := make([]string, len(ps))
	for i, p := range ps {
		keys[i] = p.Key
	}
	err = s.owe(ctx, ps, false, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE smsapi_messages SET watching = 0 WHERE message = ?`, o.ID)
		return err
	})
	if err != nil {
		return false, err
	}
	for _, k := range keys { // no longer watched: its keys come up no more
		s.known.Delete(k)
	}
	return true, nil
}

// owe records ps (each once, whatever was owed before under its key)
// and then runs also, in one transaction.
// Keys this Service recorded already with remember are skipped (a
// watched message's events come up in every round, until it is final);
// nothing to record and no also is no write at all.
func (s *Service) owe(ctx context.Context, ps []owed, remember bool, also func(ctx context.Context, tx *sql.Tx) error) error {
	ps = slices.DeleteFunc(ps, func(p owed) bool { _, ok := s.known.Load(p.Key); return ok })
	if len(ps) == 0 && also == nil {
		return nil
	}
	if also == nil {
		also = func(context.Context, *sql.Tx) error { return nil }
	}
	now := sqltime.Text(s.now())
	err := s.opts.Journal.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for _, p := range ps {
			if _, err := tx.ExecContext(ctx, `INSERT INTO smsapi_pushes (key, grp, method, url, ctype, body, next)
				VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING`, p.Key, p.Group, p.Method, p.URL, p.ContentType, p.Body, now); err != nil {
				return err
			}
		}
		return also(ctx, tx)
	})
	for _, p := range ps {
		if err == nil && remember {
			s.known.Store(p.Key, struct{}{})
		}
	}
	return err
}

// deliverDue tries the owed pushes that are due, and returns when the
// next one is (zero: none owed). The pushes of one group (a report or
// inbound URL; a Kannel message's dlr-url calls, whose URLs differ) go in
// the order they were owed, one at a time, a push to retry stopping the
// rest of them until its retry (duePushes keeps them back meanwhile), so
// that a report URL never hears a message's final state before its
// report; different groups go at once, pushWorkers at most.
func (s *Service) deliverDue(ctx context.Context) (time.Time, error) {
	due, err := s.duePushes(ctx)
	if err != nil {
		return time.Time{}, err
	}
	var groups []string
	byGroup := map[string][]pushRow{}
	for _, p := range due {
		if _, ok := byGroup[p.Group]; !ok {
			groups = append(groups, p.Group)
		}
		byGroup[p.Group] = append(byGroup[p.Group], p)
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, pushWorkers)
	errs := make([]error, len(groups))
	for i, g := range groups {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			for _, p := range byGroup[g] {
				ok, err := s.try(ctx, p)
				if errs[i] = err; !ok {
					return
				}
			}
		})
	}
	wg.Wait()
	var next sql.NullString
	if err := s.opts.Journal.QueryRow(ctx, `SELECT MIN(next) FROM smsapi_pushes WHERE state = 'owed'`).Scan(&next); err != nil {
		return time.Time{}, errors.Join(append(errs, err)...)
	}
	t, err := sqltime.Parse(next)
	return t, errors.Join(append(errs, err)...)
}

type pushRow struct {
	owed
	Attempts int
	Next     string // as the table holds it, for claim
}

func (s *Service) duePushes(ctx context.Context) ([]pushRow, error) {
	now := sqltime.Text(s.now())
	rows, err := s.opts.Journal.Query(ctx, `SELECT key, grp, method, url, ctype, body, attempts, next FROM smsapi_pushes p
		WHERE state = 'owed' AND next <= ?1 AND NOT EXISTS (SELECT 1 FROM smsapi_pushes q
			WHERE q.state = 'owed' AND q.grp = p.grp AND q.rowid < p.rowid AND q.next > ?1)
		ORDER BY rowid LIMIT ?2`, now, pushBatch)
	if err != nil {
		return nil, fmt.Errorf("read owed sms pushes: %w", err)
	}
	defer rows.Close()
	var out []pushRow
	for rows.Next() {
		var p pushRow
		if err := rows.Scan(&p.Key, &p.Group, &p.Method, &p.URL, &p.ContentType, &p.Body, &p.Attempts, &p.Next); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// try makes one attempt of p and records its outcome: delivered, owed
// again after a backoff, or given up (logged) after the last attempt or
// a failure not worth retrying. done is false while p is owed still.
func (s *Service) try(ctx context.Context, p pushRow) (done bool, _ error) {
	if ok, err := s.claim(ctx, p); !ok || err != nil {
		return false, err
	}
	retry, after, err := s.sender.Try(ctx, p.Method, p.URL, p.ContentType, p.Body)
	if ctx.Err() != nil {
		return false, nil // not an attempt: owed as it was
	}
	n := p.Attempts + 1
	state, next, reason := "delivered", s.now(), ""
	switch {
	case err == nil:
	case retry && n < s.sender.Attempts():
		state, next, reason = "owed", next.Add(max(s.sender.Backoff(n), after)), err.Error()
	default:
		state, reason = "failed", err.Error()
		s.opts.Log.Warn("sms push given up", "key", p.Key, "attempts", n, "err", err)
	}
	werr := s.opts.Journal.Update(context.WithoutCancel(ctx), func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE smsapi_pushes SET state = ?, attempts = ?, next = ?, error = ? WHERE key = ?`,
			state, n, sqltime.Text(next), nullIfEmpty(reason), p.Key)
		return err
	})
	return state != "owed" && werr == nil, werr
}

// claimLease is how long a claimed push is kept from other Services on
// the journal: longer than an attempt (webhook's AttemptTimeout, 30 s by
// default). A Service that dies while trying one leaves it owed, due
// again after the lease.
const claimLease = 2 * time.Minute

// claim takes p for this Service, unless another Service on the journal
// (another calq serve process) took it since it was read: p.Next is
// moved past the lease only if it is still what was read.
func (s *Service) claim(ctx context.Context, p pushRow) (bool, error) {
	var n int64
	err := s.opts.Journal.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE smsapi_pushes SET next = ? WHERE key = ? AND state = 'owed' AND next = ?`,
			sqltime.Text(s.now().Add(claimLease)), p.Key, p.Next)
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	if err != nil {
		return false, fmt.Errorf("claim sms push %s: %w", p.Key, err)
	}
	return n == 1, nil
}

// asksReports reads from m's options whether it asked the network for
// status reports.
func asksReports(m store.SMSMessage) bool {
	var o struct {
		Report bool `json:"report"`
	}
	return json.Unmarshal([]byte(m.Options), &o) == nil && o.Report
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
