package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"calq/internal/testclock"
	"calq/sched/journal"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// clock is an injected Now that tests move by hand.
type clock = testclock.Clock

func newClock() *clock { return testclock.New(t0) }

// sqliteStore is a Store with the journal it lives in.
type sqliteStore struct {
	*Store
	jn *journal.Journal
}

// openAt opens the journal at path on c, and the store in it.
func openAt(t testing.TB, path string, c *clock) sqliteStore {
	t.Helper()
	jn, err := journal.Open(context.Background(), path, journal.Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { jn.Close() })
	s, err := Open(context.Background(), jn)
	if err != nil {
		t.Fatal(err)
	}
	return sqliteStore{s, jn}
}

func openTemp(t testing.TB, c *clock) sqliteStore {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "calq.db"), c)
}
