package journal

import (
	"context"
	"database/sql"
	"fmt"
)

// The extension point: a package that keeps its own records in the
// journal's file (calq convert's provenance of each PDF, say) creates its
// tables with Update on open, writes through Update, so that its writes
// queue behind the engine's in the one writer and never meet SQLITE_BUSY
// from this process, and reads with Query and QueryRow.

// Update runs fn in a write transaction of its own, through the journal's
// writer, and commits it unless fn fails. fn must use tx only, and ctx as
// given: it may run again when the database was busy. A CREATE TABLE IF
// NOT EXISTS in fn is how a package adds its schema.
func (j *Journal) Update(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	err := j.do(ctx, &request{ctx: ctx, fn: func(t *txn) error { return fn(t.ctx, t.tx) }})
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	return nil
}

// Query runs a read-only query outside the writer.
func (j *Journal) Query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return j.db.QueryContext(ctx, query, args...)
}

// QueryRow runs a read-only query for one row outside the writer.
func (j *Journal) QueryRow(ctx context.Context, query string, args ...any) *sql.Row {
	return j.db.QueryRowContext(ctx, query, args...)
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
