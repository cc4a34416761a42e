package servecmd

import (
	"context"
	"fmt"
	"path/filepath"

	"calq/convert/contacts"
	"calq/internal/serve"
	"calq/internal/serve/monitor"
	"calq/internal/serve/profiles"
	"calq/sched/journal"
	"calq/sms/store"
)

// pageStores opens what the browser's pages edit and read besides the
// users: each user's address book (the journal's contacts), each user's
// profiles (data/profiles/USER.toml) and, when an SMS daemon keeps its
// outbox in the same journal, its counts (nil otherwise: the journal is
// not given SMS tables it never had).
func pageStores(ctx context.Context, j *journal.Journal, data string) (serve.Contacts, serve.Profiles, monitor.SMSCounter, error) {
	book, err := contacts.Open(ctx, j)
	if err != nil {
		return nil, nil, nil, err
	}
	ps, err := profiles.Open(filepath.Join(data, "profiles"))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("open the users' profiles: %w", err)
	}
	var sms monitor.SMSCounter
	if has, err := hasSMS(ctx, j); err != nil {
		return nil, nil, nil, err
	} else if has {
		st, err := store.Open(ctx, j)
		if err != nil {
			return nil, nil, nil, err
		}
		sms = st
	}
	return serve.BookContacts{Book: book}, ps, sms, nil
}

// hasSMS says whether calq sms created its tables in the journal.
func hasSMS(ctx context.Context, j *journal.Journal) (bool, error) {
	rows, err := j.Query(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_versions'`)
	if err != nil {
		return false, fmt.Errorf("look for the SMS tables: %w", err)
	}
	var n int
	for rows.Next() {
		rows.Scan(&n)
	}
	rows.Close()
	if n == 0 {
		return false, nil
	}
	rows, err = j.Query(ctx, `SELECT count(*) FROM schema_versions WHERE package = 'sms'`)
	if err != nil {
		return false, fmt.Errorf("look for the SMS tables: %w", err)
	}
	defer rows.Close()
	n = 0
	for rows.Next() {
		rows.Scan(&n)
	}
	return n > 0, rows.Err()
}
