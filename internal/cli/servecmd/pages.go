package servecmd

import (
	"context"
	"fmt"
	"path/filepath"

	"calq/convert/contacts"
	"calq/internal/serve"
	"calq/internal/serve/profiles"
	"calq/sched/journal"
)

// pageStores opens what the browser's pages edit and read besides the
// users and SMS: each user's address book (the journal's contacts,
// which SMS over HTTP reads too) and each user's profiles
// (data/profiles/USER.toml).
func pageStores(ctx context.Context, j *journal.Journal, data string) (*contacts.Book, serve.Profiles, error) {
	book, err := contacts.Open(ctx, j)
	if err != nil {
		return nil, nil, err
	}
	ps, err := profiles.Open(filepath.Join(data, "profiles"))
	if err != nil {
		return nil, nil, fmt.Errorf("open the users' profiles: %w", err)
	}
	return book, ps, nil
}
