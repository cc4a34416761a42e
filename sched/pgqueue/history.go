package pgqueue

import (
	"cmp"
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

// pruned is the SQL condition on the jobs (as j) that Prune deletes:
// ended before $1, in a batch (if any) all of whose jobs did. A batch is
// pruned whole or not at all: a resume of one with jobs left to do must
// find every job it finished, not run them again.
const pruned = `j.state IN ` + terminal + ` AND j.finished < $1 AND (j.batch = '' OR j.batch NOT IN
	(SELECT o.batch FROM jobs o WHERE o.batch <> '' AND NOT COALESCE(o.state IN ` + terminal + ` AND o.finished < $1, false)))`

// pruneChunk is about how many jobs one of Prune's transactions deletes:
// each holds its locks briefly, whatever the total.
const pruneChunk = 1000

// blobGrace is how long a blob that a submission stored or reused is
// kept without a job referring to it: the time a submitter has between
// PutFile and SubmitOn (or a worker between PutFile and recording).
const blobGrace = time.Hour

// Prune deletes the jobs that ended before before (whole batches only),
// with their attempts, the batches left without jobs and the blobs no job
// refers to any more (stored or reused before before, and more than
// blobGrace ago, so that a submission in progress keeps its own). It
// selects them in one snapshot, with o.Archive first writing them there
// as JSON lines, then deletes them batch by batch in transactions of
// about pruneChunk jobs, each checking again that its batches are still
// whole and finished. It returns how many jobs it deleted, or would.
func (q *Queue) Prune(ctx context.Context, before time.Time, o history.PruneOptions) (int, error) {
	n, err := q.prune(ctx, before, o)
	if err == nil && o.Vacuum && !o.DryRun {
		_, err = q.pool.Exec(ctx, `VACUUM jobs, attempts, batches, blobs`)
	}
	if err != nil {
		return 0, fmt.Errorf("prune jobs finished before %s: %w", before.Format(time.RFC3339), err)
	}
	return n, nil
}

func (q *Queue) prune(ctx context.Context, before time.Time, o history.PruneOptions) (int, error) {
	if o.DryRun {
		var n int
		err := q.pool.QueryRow(ctx, `SELECT count(*) FROM jobs j WHERE `+pruned, before).Scan(&n)
		return n, err
	}
	chunks, err := q.pruneChunks(ctx, before, o.Archive)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range chunks {
		d, err := q.pruneChunk(ctx, before, c)
		if err != nil {
			return n, err
		}
		n += d
	}
	if _, err := q.pool.Exec(ctx, `DELETE FROM batches b WHERE created < $1
		AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.batch = b.key)`, before); err != nil {
		return n, err
	}
	return n, q.pruneBlobs(ctx, before)
}

// chunk is a transaction's share of a prune: whole batches' jobs.
type chunk struct {
	batches []string
	ids     []int64
}

// pruneChunks selects the jobs to prune in one snapshot, archiving them
// to w (then closing it) when not nil, and cuts them into chunks at batch
// boundaries.
func (q *Queue) pruneChunks(ctx context.Context, before time.Time, w io.Writer) ([]chunk, error) {
	var chunks []chunk
	err := pgx.BeginTxFunc(ctx, q.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT j.batch, `+recordColumns+` FROM jobs j WHERE `+pruned+`
			ORDER BY j.batch, j.id`, before)
		if err != nil {
			return err
		}
		defer rows.Close()
		enc := json.NewEncoder(cmp.Or(w, io.Discard))
		var cur chunk
		last := "\x00"
		for rows.Next() {
			var batch string
			r, err := scanRecord(batchRow{rows, &batch})
			if err == nil && w != nil {
				err = enc.Encode(r)
			}
			if err != nil {
				return err
			}
			if len(cur.ids) >= pruneChunk && (batch == "" || batch != last) {
				chunks, cur = append(chunks, cur), chunk{}
			}
			if batch != "" && batch != last {
				cur.batches = append(cur.batches, batch)
			}
			cur.ids, last = append(cur.ids, r.ID), batch
		}
		if len(cur.ids) > 0 {
			chunks = append(chunks, cur)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	if c, ok := w.(io.Closer); ok && w != nil {
		if err := c.Close(); err != nil {
			return nil, fmt.Errorf("archive: %w", err)
		}
	}
	return chunks, nil
}

// pruneChunk deletes chunk c's jobs that are still to prune, under the
// locks of its batches (SubmitOn takes them shared), so that a job added
// to one of them meanwhile keeps it whole.
func (q *Queue) pruneChunk(ctx context.Context, before time.Time, c chunk) (int, error) {
	var n int
	err := pgx.BeginFunc(ctx, q.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('calq_batch_jobs:' || b))
			FROM unnest($1::text[]) AS b ORDER BY b`, c.batches); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `DELETE FROM jobs j WHERE j.id = ANY($2) AND `+pruned, before, c.ids)
		n = int(tag.RowsAffected())
		return err
	})
	return n, err
}

// pruneBlobs deletes the blobs that no job or attempt names, stored (or
// last reused) before before and blobGrace ago. The references are read
// once, as the 64-digit hex strings in payloads and results. Each row is
// checked again for its age as it is deleted: PutFile, reusing a blob,
// touches its rows, and so keeps it whole. Reading the references costs
// a pass over every payload and result (about 2.5 s for 20,000 jobs):
// it is skipped when no blob is old enough to go.
func (q *Queue) pruneBlobs(ctx context.Context, before time.Time) error {
	var old bool
	if err := q.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM blobs WHERE seq = 0
		AND created < least($1::timestamptz, now() - $2::interval))`, before, blobGrace).Scan(&old); err != nil || !old {
		return err
	}
	_, err := q.pool.Exec(ctx, `WITH cutoff AS (SELECT least($1::timestamptz, now() - $2::interval) AS t),
		refs AS (SELECT (regexp_matches(encode(payload, 'escape'), '[0-9a-f]{64}', 'g'))[1] AS digest FROM jobs
			UNION SELECT (regexp_matches(encode(result, 'escape'), '[0-9a-f]{64}', 'g'))[1] FROM attempts
			WHERE result IS NOT NULL)
		DELETE FROM blobs WHERE created < (SELECT t FROM cutoff) AND digest IN
			(SELECT digest FROM blobs WHERE seq = 0 AND created < (SELECT t FROM cutoff)
			EXCEPT SELECT digest FROM refs)`, before, blobGrace)
	return err
}

// batchRow scans a row's first column into batch, the rest as a record.
type batchRow struct {
	pgx.Rows
	batch *string
}

func (r batchRow) Scan(dst ...any) error { return r.Rows.Scan(append([]any{r.batch}, dst...)...) }
