package smsapi

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"calq/internal/serve/users"
	"calq/sms/store"
)

// inboxCursor names the Service's cursor over the inbox: the last entry
// whose inbound pushes are owed.
const inboxCursor = "inbox"

// userLister lists the users (*users.Store does), so that the push loop
// finds whose inbound webhook a received message goes to.
type userLister interface {
	List(ctx context.Context) ([]users.User, error)
}

// scanInbox owes an inbound push for each message received since the
// cursor to each user whose numbers it came in on and who has an
// InboundURL, and moves the cursor in the same transaction.
func (s *Service) scanInbox(ctx context.Context) error {
	after, err := s.cursor(ctx, inboxCursor)
	if err != nil {
		return err
	}
	es, err := s.box.InboxEntries(ctx, store.InboxFilter{Kind: store.KindMessage, After: after, Limit: pushBatch})
	if err != nil || len(es) == 0 {
		return err
	}
	targets, err := s.inboundTargets(ctx)
	if err != nil {
		return err
	}
	var ps []owed
	for _, e := range es {
		for name, r := range targets {
			if !addressedTo(e, r.Numbers) {
				continue
			}
			in := inbound(e)
			b, err := json.Marshal(Event{Type: "sms.inbound", Inbound: &in, Time: e.Received})
			if err != nil {
				return err
			}
			ps = append(ps, owed{Key: fmt.Sprintf("inbound/%d/%s", e.ID, name), Group: r.InboundURL, Method: http.MethodPost, URL: r.InboundURL,
				ContentType: "application/json", Body: b})
		}
	}
	last := es[len(es)-1].ID
	return s.owe(ctx, ps, false, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO smsapi_cursors (name, value) VALUES (?, ?)
			ON CONFLICT (name) DO UPDATE SET value = excluded.value`, inboxCursor, last)
		return err
	})
}

// inboundTargets are the users with an inbound webhook the policy
// allows, by name.
func (s *Service) inboundTargets(ctx context.Context) (map[string]users.SMSRights, error) {
	ul, ok := s.opts.Rights.(userLister)
	if !ok {
		return nil, nil
	}
	us, err := ul.List(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]users.SMSRights{}
	for _, u := range us {
		if u.Disabled {
			continue
		}
		r, err := s.opts.Rights.SMSRights(ctx, u.Name)
		if err != nil {
			return nil, err
		}
		if r.InboundURL == "" || s.opts.NoPush {
			continue
		}
		t, err := url.Parse(r.InboundURL)
		if err == nil {
			err = s.opts.Policy.Check(t)
		}
		if err != nil {
			s.opts.Log.Warn("sms inbound webhook refused", "user", u.Name, "err", err)
			continue
		}
		out[u.Name] = r
	}
	return out, nil
}

// cursor returns the value of cursor name (0 before the first).
func (s *Service) cursor(ctx context.Context, name string) (int64, error) {
	var v int64
	err := s.opts.Journal.QueryRow(ctx, `SELECT value FROM smsapi_cursors WHERE name = ?`, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read sms cursor %s: %w", name, err)
	}
	return v, nil
}

// startCursor sets the inbox cursor, the first time, to the newest
// entry: inbound webhooks receive what arrives from then on, not the
// history.
func (s *Service) startCursor(ctx context.Context) error {
	es, err := s.box.InboxEntries(ctx, store.InboxFilter{Before: 1 << 62, Limit: 1})
	if err != nil {
		return err
	}
	var last int64
	if len(es) == 1 {
		last = es[0].ID
	}
	return s.opts.Journal.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO smsapi_cursors (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`,
			inboxCursor, last)
		return err
	})
}
