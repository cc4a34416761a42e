package pgqueue

// Claims: how many jobs to take (free slots, the horizon, half-open
// probes), and the statement that takes them in tag order.

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"

	"calq/sched"
)

// wanted says how many jobs to claim of the enabled kinds, and which
// kinds are due a half-open probe.
func (w *Worker) wanted() (int, []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	held := w.busy + len(w.ready)
	capacity := w.o.Jobs
	if w.o.Horizon > 0 && w.mean > 0 {
		capacity += int(math.Min(float64(w.o.Jobs)*w.o.Horizon.Seconds()/w.mean, float64(2*w.o.MaxClaim)))
	}
	var probes []string
	now := time.Now()
	for k, until := range w.outUntil {
		if now.After(until) && !w.probing[k] && held < capacity {
			probes = append(probes, k)
		}
	}
	sort.Strings(probes)
	return min(max(capacity-held, 0), w.o.MaxClaim), probes
}

// enabled lists the kinds the worker claims freely.
func (w *Worker) enabled() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var ks []string
	for _, k := range w.kinds {
		if _, out := w.outUntil[k]; !out {
			ks = append(ks, k)
		}
	}
	return ks
}

const claimSQL = `WITH c AS (
		SELECT id FROM jobs
		WHERE state = 'queued' AND kind = ANY($1) AND (not_before IS NULL OR not_before <= now())
			AND ($5 = '' OR batch = $5) AND (share = '' OR share = ANY($6))
		ORDER BY tag, id LIMIT $2 FOR UPDATE SKIP LOCKED)
	UPDATE jobs j SET state = 'running', worker = $3, ran_on = $7,
		lease_until = now() + $4 * interval '1 second', attempts = j.attempts + 1,
		started = COALESCE(j.started, now()),
		wait_s = COALESCE(j.wait_s, extract(epoch FROM now() - j.enqueued))
	FROM c WHERE j.id = c.id
	RETURNING j.id, j.tag, j.key, j.kind, j.label, j.payload, j.class, j.attempts, j.retries, j.timeout_s, j.enqueued,
		(SELECT count(*) FROM attempts a WHERE a.job_id = j.id AND a.state IN ('failed', 'timed_out'))`

// claim claims up to n jobs of the enabled kinds and one of each probe
// kind, and puts them in the ready list in tag order.
func (w *Worker) claim(ctx context.Context, n int, probes []string) (int, error) {
	lease := w.q.lease.Seconds()
	from := time.Now()
	var got []*task
	err := pgx.BeginFunc(ctx, w.q.pool, func(tx pgx.Tx) error {
		got = got[:0]
		read := func(kinds []string, limit int, probe bool) error {
			rows, err := tx.Query(ctx, claimSQL, kinds, limit, w.id, lease, w.o.Batch, w.o.Shares, w.name)
			if err != nil {
				return err
			}
			ts, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*task, error) {
				t := &task{job: &sched.Job{}, probe: probe}
				var class int16
				var timeout *float64
				err := r.Scan(&t.id, &t.tag, &t.job.Key, &t.job.Kind, &t.job.Label, &t.job.Payload, &class,
					&t.job.Attempts, &t.job.Retries, &timeout, &t.job.Enqueued, &t.failures)
				t.job.Class = sched.ClassOf(int(class))
				if timeout != nil {
					t.job.Timeout = time.Duration(*timeout * float64(time.Second))
				}
				return t, err
			})
			got = append(got, ts...)
			return err
		}
		if kinds := w.enabled(); n > 0 && len(kinds) > 0 {
			if err := read(kinds, n, false); err != nil {
				return err
			}
		}
		for _, k := range probes {
			if err := read([]string{k}, 1, true); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("claim jobs: %w", err)
	}
	w.dbOK()
	now := time.Now()
	sort.Slice(got, func(i, j int) bool { return got[i].tag < got[j].tag })
	w.mu.Lock()
	for _, t := range got {
		t.claimedAt, t.leaseFrom = now, from
		w.tasks[t.id] = t
		if t.probe {
			w.probing[t.job.Kind] = true
		}
	}
	w.ready = append(w.ready, got...)
	w.mu.Unlock()
	return len(got), nil
}
