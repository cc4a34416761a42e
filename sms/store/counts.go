package store

import (
	"context"
	"fmt"
)

// Counts is how many messages the outbox holds in each state and how
// many the inbox filed, for a monitoring page.
type Counts struct {
	Outbox  map[string]int `json:"outbox"`  // messages by state (SMSQueued, SMSSent, SMSFailed, SMSUnknown); states with none left out
	Inbox   int            `json:"inbox"`   // messages received (inbox entries of kind "message")
	Reports int            `json:"reports"` // status reports received
	// ByModem is the outbox's messages by the modem that sent them (or
	// last tried to) and by state: the sent and failed per modem of a
	// monitoring page. Messages no modem took yet are left out.
	ByModem map[string]map[string]int `json:"by_modem"`
}

// Counts counts the outbox's messages by state and by modem and state,
// and the inbox's entries by kind: three grouped scans of sms_messages
// and sms_inbox.
func (s *Store) Counts(ctx context.Context) (Counts, error) {
	c := Counts{Outbox: map[string]int{}, ByModem: map[string]map[string]int{}}
	inbox := map[string]int{}
	for _, q := range []struct {
		query string
		into  map[string]int
	}{
		{`SELECT state, COUNT(*) FROM sms_messages GROUP BY state`, c.Outbox},
		{`SELECT kind, COUNT(*) FROM sms_inbox GROUP BY kind`, inbox},
	} {
		if err := s.countBy(ctx, q.query, q.into); err != nil {
			return Counts{}, fmt.Errorf("count sms messages: %w", err)
		}
	}
	c.Inbox, c.Reports = inbox[KindMessage], inbox[KindReport]
	if err := s.countByModem(ctx, c.ByModem); err != nil {
		return Counts{}, fmt.Errorf("count sms messages by modem: %w", err)
	}
	return c, nil
}

// countByModem counts the outbox's messages by modem and state into into.
func (s *Store) countByModem(ctx context.Context, into map[string]map[string]int) error {
	rows, err := s.db.Query(ctx, `SELECT modem, state, COUNT(*) FROM sms_messages WHERE modem IS NOT NULL AND modem <> '' GROUP BY modem, state`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var modem, state string
		var n int
		if err := rows.Scan(&modem, &state, &n); err != nil {
			return err
		}
		addModemCount(into, modem, state, n)
	}
	return rows.Err()
}

func addModemCount(into map[string]map[string]int, modem, state string, n int) {
	if into[modem] == nil {
		into[modem] = map[string]int{}
	}
	into[modem][state] += n
}

// countBy runs query, which selects a key and a count, into into.
func (s *Store) countBy(ctx context.Context, query string, into map[string]int) error {
	rows, err := s.db.Query(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return err
		}
		into[k] = n
	}
	return rows.Err()
}

// Counts counts as Store's does.
func (m *Mem) Counts(context.Context) (Counts, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := Counts{Outbox: map[string]int{}, ByModem: map[string]map[string]int{}}
	for _, msg := range m.msgs {
		c.Outbox[msg.State]++
		if msg.Modem != "" {
			addModemCount(c.ByModem, msg.Modem, msg.State, 1)
		}
	}
	for _, e := range m.entries {
		switch e.Kind {
		case KindMessage:
			c.Inbox++
		case KindReport:
			c.Reports++
		}
	}
	return c, nil
}
