package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The extension point: a package that keeps its own records in the
// journal's file (calq convert's provenance of each PDF, calq sms's outbox
// and inbox, the address book) registers its schema with Migrate when it
// opens, writes through Update or Write, so that its writes queue behind
// the engine's in the one writer and never meet SQLITE_BUSY from this
// process, and reads with Query and QueryRow. Times go in columns as
// internal/sqltime writes and reads them, as the journal's own do.
// Such a package defines the interface it needs (Update, Query, ...) where
// it uses it, so that it can be tested with a fake.

// Update runs fn in a write transaction of its own, through the journal's
// writer, and commits it unless fn fails. fn must use tx only, and ctx as
// given: it may run again when the database was busy.
func (j *Journal) Update(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return j.extWrite(ctx, &request{ctx: ctx}, fn)
}

// Write runs fn in the writer's next group commit, together with the
// other writes waiting at that moment: cheaper than Update for a short
// write on a hot path. fn must not fail by itself (an error rolls back
// the whole group and fails every write in it) and may run more than once.
// Once handed to the writer, the write happens even if ctx ends.
func (j *Journal) Write(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return j.extWrite(ctx, &request{}, fn)
}

// extWrite hands fn to the writer as r: alone when r.ctx is set.
func (j *Journal) extWrite(ctx context.Context, r *request, fn func(ctx context.Context, tx *sql.Tx) error) error {
	r.fn = func(t *txn) error { return fn(context.WithValue(t.ctx, txnKey{}, t), t.tx) }
	if err := j.do(ctx, r); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	return nil
}

// Query runs a read-only query outside the writer, with a statement
// prepared once (see stmtcache.go).
func (j *Journal) Query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return j.query(ctx, query, args...)
}

// QueryRow runs a read-only query for one row outside the writer, with
// a statement prepared once.
func (j *Journal) QueryRow(ctx context.Context, query string, args ...any) *sql.Row {
	return j.queryRow(ctx, query, args...)
}

// Now is the journal's clock (Options.Now): a package keeping records in
// the journal's file stamps them with it, as the journal stamps jobs.
func (j *Journal) Now() time.Time { return j.now() }

// ErrSchemaNewer is returned by Migrate for a file whose schema of the
// package is newer than the migrations this calq knows.
var ErrSchemaNewer = errors.New("schema is newer than this calq's")

// Migrate brings the tables of package pkg to the last of migrations:
// migrations[i] takes them from version i to i+1, and runs once per file.
// The versions are kept in the table schema_versions (package, version).
// All the steps run in one transaction, so two processes opening a file
// at once migrate it once. A step should create with IF NOT EXISTS: a file
// written before the package recorded a version has its tables already.
// A file that is up to date costs one read, no write.
func (j *Journal) Migrate(ctx context.Context, pkg string, migrations []string) error {
	var current int
	err := j.db.QueryRowContext(ctx, `SELECT version FROM schema_versions WHERE package = ?`, pkg).Scan(&current)
	if err == nil && current == len(migrations) {
		return nil
	}
	err = j.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_versions (
			package TEXT PRIMARY KEY, version INTEGER NOT NULL)`); err != nil {
			return err
		}
		var v int
		err := tx.QueryRowContext(ctx, `SELECT version FROM schema_versions WHERE package = ?`, pkg).Scan(&v)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if v > len(migrations) {
			return fmt.Errorf("%w: version %d, this calq knows %d", ErrSchemaNewer, v, len(migrations))
		}
		for i := v; i < len(migrations); i++ {
			if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
				return fmt.Errorf("migration %d: %w", i+1, err)
			}
		}
		if v == len(migrations) {
			return nil // another process migrated it meanwhile
		}
		_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO schema_versions (package, version) VALUES (?, ?)`,
			pkg, len(migrations))
		return err
	})
	if err != nil {
		return fmt.Errorf("migrate the tables of %s: %w", pkg, err)
	}
	return nil
}

// Recover returns to the queue the running jobs whose owner died or whose
// lease ran out since Open, as Open does: a process that waits for
// another's job calls it to take over from a dead one. It returns how
// many jobs went back to the queue.
func (j *Journal) Recover(ctx context.Context) (int, error) {
	var n int
	err := j.do(ctx, &request{ctx: ctx, fn: func(t *txn) (err error) {
		n, err = recoverOrphans(t, j.opts.Host, j.now())
		return err
	}})
	if err != nil {
		return 0, fmt.Errorf("recover orphaned jobs: %w", err)
	}
	return n, nil
}
