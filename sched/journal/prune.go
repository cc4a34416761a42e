package journal

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Prune deletes the jobs that finished before before in a terminal state
// (done, failed, timed_out) or cancelled (by a stop, before or while they
// ran), batches whole (see pruned), with their attempts and the batches
// left without jobs, in one transaction. It returns how many jobs it deleted,
// or would delete on a dry run. Prune writes alone, beside no other
// write, and when ctx is done it stops and deletes nothing.
func (j *Journal) Prune(ctx context.Context, before time.Time, o PruneOptions) (int, error) {
	var n int
	err := j.do(ctx, &request{ctx: ctx, fn: func(t *txn) (err error) {
		n, err = prune(t, timeText(before), o)
		return err
	}})
	if err == nil && o.Vacuum && !o.DryRun {
		// VACUUM cannot run in a transaction, so not in the writer's; it
		// takes SQLite's write lock itself.
		_, err = j.db.ExecContext(ctx, "VACUUM")
	}
	if err != nil {
		return 0, fmt.Errorf("prune jobs finished before %s: %w", before.Format(time.RFC3339), err)
	}
	return n, nil
}

// pruned is the SQL condition on the jobs that Prune deletes, its time
// being ?1, after the WITH clause withOpen: the jobs outside batches that
// ended (or were cancelled) before it, and the batches all of whose jobs
// ended before it. A batch is pruned whole or not at all: one that a stop
// interrupted (jobs cancelled or queued) resumes, and must find every job
// it finished.
const pruned = `(state IN ` + terminalStates + ` OR state = 'cancelled') AND finished < ?1
	AND NOT EXISTS (SELECT 1 FROM open WHERE jobs.key >= open.key || '/' AND jobs.key < open.key || '0')`

// withOpen names the batches with a job that did not end before ?1, once
// for the statement that follows.
const withOpen = `WITH open AS MATERIALIZED (SELECT key FROM batches b WHERE EXISTS (SELECT 1 FROM jobs o
	WHERE o.key >= b.key || '/' AND o.key < b.key || '0'
		AND NOT COALESCE(o.state IN ` + terminalStates + ` AND o.finished < ?1, 0))) `

func prune(t *txn, before any, o PruneOptions) (int, error) {
	if o.DryRun {
		var n int
		err := t.tx.QueryRowContext(t.ctx, withOpen+`SELECT count(*) FROM jobs WHERE `+pruned, before).Scan(&n)
		return n, err
	}
	if o.Archive != nil {
		if err := archive(t, before, o.Archive); err != nil {
			return 0, fmt.Errorf("archive: %w", err)
		}
	}
	res, err := t.tx.ExecContext(t.ctx, withOpen+`DELETE FROM jobs WHERE `+pruned, before)
	if err != nil {
		return 0, err
	}
	// A batch without jobs would be resumed by Batch under its old
	// generation; once its jobs are gone, it goes too.
	_, err = t.tx.ExecContext(t.ctx, `DELETE FROM batches WHERE created < ? AND NOT EXISTS
		(SELECT 1 FROM jobs WHERE key >= batches.key || '/' AND key < batches.key || '0')`, before)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// archive writes the jobs about to be pruned to w as JSON lines, then
// closes w if it is an io.Closer.
func archive(t *txn, before any, w io.Writer) error {
	enc := json.NewEncoder(w)
	q := withOpen + `SELECT ` + recordColumns + ` FROM jobs WHERE ` + pruned + ` ORDER BY id`
	err := eachRecord(t.ctx, t.tx, q, []any{before}, func(r Record) error { return enc.Encode(r) })
	if err != nil {
		return err
	}
	if c, ok := w.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
