package pgqueue

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"calq/sched"
	"calq/sched/history"
)

var _ history.Store = (*Queue)(nil)

// where renders f as an SQL condition on jobs, with its arguments.
func where(f history.Filter) (string, []any) {
	conds := []string{"true"}
	var args []any
	add := func(cond string, arg any) {
		args = append(args, arg)
		conds = append(conds, strings.ReplaceAll(cond, "$?", "$"+strconv.Itoa(len(args))))
	}
	if f.Kind != "" {
		add("(kind = $? OR left(kind, length($?) + 1) = $? || '-')", f.Kind)
	}
	if f.State != "" {
		add("state = $?", string(f.State))
	}
	if f.Backend != "" {
		add("ran_on = $?", f.Backend)
	}
	if f.Label != "" {
		add("strpos(label, $?) > 0", f.Label)
	}
	if !f.Since.IsZero() {
		add("enqueued >= $?", f.Since)
	}
	if !f.Until.IsZero() {
		add("enqueued < $?", f.Until)
	}
	return strings.Join(conds, " AND "), args
}

// recordColumns are the columns scanRecord reads, in its order.
const recordColumns = `id, key, kind, label, payload, class, state, attempts, retries, timeout_s, not_before,
	enqueued, started, finished, ran_on, error, reason, wait_s, run_s, worker, lease_until`

func scanRecord(row pgx.CollectableRow) (history.Record, error) {
	var r history.Record
	var class int16
	var ranOn, errText, reason, worker *string
	var notBefore, started, finished, lease *time.Time
	err := row.Scan(&r.ID, &r.Key, &r.Kind, &r.Label, &r.Payload, &class, &r.State, &r.Attempts, &r.Retries,
		&r.TimeoutS, &notBefore, &r.Enqueued, &started, &finished, &ranOn, &errText, &reason, &r.WaitS, &r.RunS,
		&worker, &lease)
	r.Class = sched.ClassOf(int(class))
	r.Enqueued = r.Enqueued.UTC()
	for _, t := range []struct {
		dst *time.Time
		src *time.Time
	}{{&r.NotBefore, notBefore}, {&r.Started, started}, {&r.Finished, finished}, {&r.LeaseUntil, lease}} {
		if t.src != nil {
			*t.dst = t.src.UTC()
		}
	}
	for _, s := range []struct {
		dst *string
		src *string
	}{{&r.RanOn, ranOn}, {&r.Error, errText}, {&r.Reason, reason}, {&r.Owner, worker}} {
		if s.src != nil {
			*s.dst = *s.src
		}
	}
	if host, rest, ok := strings.Cut(r.Owner, ":"); ok {
		r.OwnerHost = host
		pid, _, _ := strings.Cut(rest, ":")
		r.OwnerPid, _ = strconv.Atoi(pid)
	}
	return r, err
}

// List returns the jobs f selects, newest first.
func (q *Queue) List(ctx context.Context, f history.Filter) ([]history.Record, error) {
	cond, args := where(f)
	sql := `SELECT ` + recordColumns + ` FROM jobs WHERE ` + cond + ` ORDER BY enqueued DESC, id DESC`
	if f.Limit > 0 {
		sql += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	rows, err := q.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	recs, err := pgx.CollectRows(rows, scanRecord)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	return recs, nil
}

// Stats summarises the jobs f selects (f.Limit aside).
func (q *Queue) Stats(ctx context.Context, f history.Filter) (history.Stats, error) {
	cond, args := where(f)
	rows, err := q.pool.Query(ctx, `SELECT kind, COALESCE(ran_on, ''), state, wait_s, run_s, COALESCE(reason, '')
		FROM jobs WHERE `+cond+` ORDER BY kind COLLATE "C", COALESCE(ran_on, '') COLLATE "C"`, args...)
	if err != nil {
		return history.Stats{}, fmt.Errorf("job stats: %w", err)
	}
	defer rows.Close()
	var acc history.Accumulator
	for rows.Next() {
		var kind, backend, reason string
		var state sched.State
		var wait, run *float64
		if err := rows.Scan(&kind, &backend, &state, &wait, &run, &reason); err != nil {
			return history.Stats{}, fmt.Errorf("job stats: %w", err)
		}
		acc.Add(kind, backend, state, wait, run, reason)
	}
	if err := rows.Err(); err != nil {
		return history.Stats{}, fmt.Errorf("job stats: %w", err)
	}
	return acc.Stats(), nil
}

// pruned is the SQL condition on the jobs that Prune deletes.
const pruned = `state IN ` + terminal + ` AND finished < $1`

// Prune deletes the jobs that ended before before, with their attempts,
// the batches left without jobs and the blobs no job refers to any more
// (older than before, so that a submission in progress keeps its own),
// in one transaction; with o.Archive it first writes the jobs there as
// JSON lines. It returns how many jobs it deleted, or would delete.
func (q *Queue) Prune(ctx context.Context, before time.Time, o history.PruneOptions) (int, error) {
	var n int
	err := pgx.BeginFunc(ctx, q.pool, func(tx pgx.Tx) error {
		if o.DryRun {
			return tx.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE `+pruned, before).Scan(&n)
		}
		if o.Archive != nil {
			if err := archive(ctx, tx, before, o.Archive); err != nil {
				return fmt.Errorf("archive: %w", err)
			}
		}
		tag, err := tx.Exec(ctx, `DELETE FROM jobs WHERE `+pruned, before)
		if err != nil {
			return err
		}
		n = int(tag.RowsAffected())
		if _, err := tx.Exec(ctx, `DELETE FROM batches b WHERE created < $1
			AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.batch = b.key)`, before); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM blobs b WHERE created < $1
			AND NOT EXISTS (SELECT 1 FROM jobs j WHERE position(convert_to(b.digest, 'UTF8') IN j.payload) > 0)
			AND NOT EXISTS (SELECT 1 FROM attempts a WHERE position(convert_to(b.digest, 'UTF8') IN a.result) > 0)`, before)
		return err
	})
	if err == nil && o.Vacuum && !o.DryRun {
		_, err = q.pool.Exec(ctx, `VACUUM jobs, attempts, batches, blobs`)
	}
	if err != nil {
		return 0, fmt.Errorf("prune jobs finished before %s: %w", before.Format(time.RFC3339), err)
	}
	return n, nil
}

// archive writes the jobs about to be pruned to w as JSON lines, then
// closes w if it is an io.Closer.
func archive(ctx context.Context, tx pgx.Tx, before time.Time, w io.Writer) error {
	rows, err := tx.Query(ctx, `SELECT `+recordColumns+` FROM jobs WHERE `+pruned+` ORDER BY id`, before)
	if err != nil {
		return err
	}
	defer rows.Close()
	enc := json.NewEncoder(w)
	for rows.Next() {
		r, err := scanRecord(rows)
		if err == nil {
			err = enc.Encode(r)
		}
		if err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if c, ok := w.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
