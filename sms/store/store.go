// Package store is calq sms's storage: the outbox (messages to send and
// their parts, with the rule that settles a message from its parts), the
// inbox (raw PDUs as the modems listed them, parts waiting for the rest,
// messages and status reports, and the matching of a report to the part
// it answers), and the SIM PINs a SIM refused; Counts sums both boxes up
// for a monitoring page. It keeps them in tables of
// the journal's file, created by its own versioned migrations, and writes
// through the journal's single writer.
//
// Store is the SQLite implementation. Package sms defines the smaller
// interfaces it uses, and storetest runs one contract suite against any
// implementation, the in-memory fake (Mem) included.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// DB is what Store needs of the journal (*journal.Journal has it): its
// migrations, its writer, and reads beside it.
type DB interface {
	Migrate(ctx context.Context, pkg string, migrations []string) error
	Update(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error
	Write(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error
	Query(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRow(ctx context.Context, query string, args ...any) *sql.Row
}

// Store is the outbox, the inbox and the PIN rejections in the journal's
// file. It is safe for concurrent use, and several processes may share
// the file.
type Store struct {
	db DB
	pg *PG // when db is PostgreSQL: the store is shared (see Shared)
	// owner, on a shared store, is the daemon that uses it: a part is
	// sent only while its message's claim is this owner's (SetOwner).
	owner string
	now   func() time.Time
}

// migrations are the tables' versions, in order; see DB.Migrate. Version
// 1 is the tables as the journal created them before they moved here, so
// an older journal file opens as it is.
var migrations = []string{smsOutboxSchema + smsInboxSchema + smsPINSchema}

// Open creates or upgrades the tables in db and returns the store. Its
// clock is db's (the journal's Options.Now) when db has a Now method,
// else time.Now.
func Open(ctx context.Context, db DB) (*Store, error) {
	now := time.Now
	if c, ok := db.(interface{ Now() time.Time }); ok {
		now = c.Now
	}
	pg, _ := db.(*PG)
	ms := migrations
	if pg != nil {
		ms = pgMigrations
	}
	if err := db.Migrate(ctx, "sms", ms); err != nil {
		return nil, fmt.Errorf("open the sms outbox and inbox: %w", err)
	}
	return &Store{db: db, pg: pg, now: now}, nil
}

// querier is a read of the store's: a transaction, or the journal beside
// the writer (readQuerier).
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

type readQuerier struct{ db DB }

func (r readQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return r.db.Query(ctx, query, args...)
}

// textOrNull stores an empty string as NULL.
func textOrNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}
