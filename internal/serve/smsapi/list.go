package smsapi

import (
	"context"
	"strings"

	"calq/internal/serve/users"
	"calq/sms/store"
)

// Bounds of a listing: the default and largest page, and how many rows
// one listing reads at most looking for matches to its filter (then it
// ends the page early, with Next where it stopped).
const (
	defaultLimit = 50
	maxLimit     = 500
	maxScan      = 5000
)

func (f Filter) limit() int {
	switch {
	case f.Limit <= 0:
		return defaultLimit
	case f.Limit > maxLimit:
		return maxLimit
	}
	return f.Limit
}

// List returns u's messages (an administrator's: everyone's sent
// through the API) that f selects, newest first.
func (s *Service) List(ctx context.Context, u users.User, f Filter) (Page[Message], error) {
	page := Page[Message]{Items: []Message{}}
	if u.Name == "" {
		return page, nil
	}
	before, scanned := f.Before, 0
	for scanned < maxScan {
		os, err := s.ownedPage(ctx, u, before, f.limit())
		if err != nil || len(os) == 0 {
			return page, err
		}
		for _, o := range os {
			scanned++
			before = o.ID
			m, err := s.box.SMS(ctx, o.ID)
			if err != nil {
				return page, err
			}
			if !f.selects(m) {
				continue
			}
			msg, err := s.message(ctx, o, m)
			if err != nil {
				return page, err
			}
			if page.Items = append(page.Items, msg); len(page.Items) == f.limit() {
				page.Next = o.ID
				return page, nil
			}
		}
	}
	page.Next = before
	return page, nil
}

// ownedPage is up to n of u's messages below before (0: from the
// newest), newest first.
func (s *Service) ownedPage(ctx context.Context, u users.User, before int64, n int) ([]owned, error) {
	where, args := []string{"message IS NOT NULL"}, []any{}
	if !u.Admin {
		where, args = append(where, "user = ?"), append(args, u.Name)
	}
	if before > 0 {
		where, args = append(where, "message < ?"), append(args, before)
	}
	args = append(args, n)
	return s.owners(ctx, "WHERE "+strings.Join(where, " AND ")+" ORDER BY message DESC LIMIT ?", args...)
}

func (f Filter) selects(m store.SMSMessage) bool {
	return (f.State == "" || m.State == f.State) && (f.To == "" || store.SameNumber(f.To, m.To)) &&
		(f.Since.IsZero() || !m.Created.Before(f.Since))
}

// Inbox returns the received messages addressed to u's numbers (an
// administrator's: all), newest first.
func (s *Service) Inbox(ctx context.Context, u users.User, f Filter) (Page[Inbound], error) {
	page := Page[Inbound]{Items: []Inbound{}}
	if u.Name == "" {
		return page, nil
	}
	rights, err := s.opts.Rights.SMSRights(ctx, u.Name)
	if err != nil {
		return page, err
	}
	before, scanned := f.Before, 0
	for scanned < maxScan {
		if before == 0 {
			before = 1 << 62
		}
		es, err := s.box.InboxEntries(ctx, store.InboxFilter{Kind: store.KindMessage, Before: before, Limit: f.limit()})
		if err != nil || len(es) == 0 {
			return page, err
		}
		for _, e := range es {
			scanned++
			before = e.ID
			if !(u.Admin || addressedTo(e, rights.Numbers)) || !f.selectsInbound(e) {
				continue
			}
			if page.Items = append(page.Items, inbound(e)); len(page.Items) == f.limit() {
				page.Next = e.ID
				return page, nil
			}
		}
	}
	page.Next = before
	return page, nil
}

// addressedTo says whether e came in on one of numbers: a modem's name
// (a modem named by its number matches that number written otherwise).
func addressedTo(e store.InboxEntry, numbers []string) bool {
	for _, n := range numbers {
		if n == e.Modem || looksNumeric(n) && looksNumeric(e.Modem) && store.SameNumber(n, e.Modem) {
			return true
		}
	}
	return false
}

func (f Filter) selectsInbound(e store.InboxEntry) bool {
	return (f.To == "" || store.SameNumber(f.To, e.Sender)) && (f.Since.IsZero() || !e.Received.Before(f.Since))
}

func inbound(e store.InboxEntry) Inbound {
	return Inbound{ID: e.ID, Modem: e.Modem, From: e.Sender, Text: e.Text, Sent: e.SCTS, Received: e.Received,
		Parts: e.Parts, Total: e.Total}
}
