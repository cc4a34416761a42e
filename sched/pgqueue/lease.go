package pgqueue

// Leases: renewal with the heartbeat, the watchdog that gives a lease up
// before the server does, what an outage or a loss does to a worker's
// jobs, and the sweep that returns expired leases' jobs to the queue.

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// leaseValid says whether the worker may still count on t's lease at now:
// the lease was last extended no earlier than the last successful renewal,
// or the claim when that came later, and the worker gives it up at 90 %,
// before the server does. The caller holds w.mu.
func (w *Worker) leaseValid(t *task, now time.Time) bool {
	from := w.lastRenew
	if t.leaseFrom.After(from) {
		from = t.leaseFrom
	}
	return now.Sub(from) < w.q.lease*9/10
}

// drop marks t lost and takes it off the worker: a running job is
// cancelled (its result is dropped when it ends), a ready one is
// forgotten. The caller holds w.mu.
func (w *Worker) drop(t *task) {
	t.lost = true
	if t.cancel != nil {
		t.cancel(ErrLeaseLost)
		return
	}
	delete(w.tasks, t.id)
	w.ready = slices.DeleteFunc(w.ready, func(r *task) bool { return r == t })
	if t.probe {
		delete(w.probing, t.job.Kind)
	}
}

// heartbeat renews the worker's leases and record every Lease/3, and
// requeues expired leases once the worker has been healthy for a lease.
func (w *Worker) heartbeat(ctx context.Context) {
	every := max(w.q.lease/3, 10*time.Millisecond)
	ticks(ctx, every, func() {
		octx, cancel := context.WithTimeout(ctx, every)
		err := w.renew(octx)
		if err == nil {
			err = w.requeueExpired(octx)
		}
		cancel()
		if err != nil && ctx.Err() == nil {
			w.dbError(err)
		}
	})
}

// ticks runs fn every d until ctx ends.
func ticks(ctx context.Context, d time.Duration, fn func()) {
	tick := time.NewTicker(d)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		fn()
	}
}

// renew extends the leases of the jobs the worker holds and writes its
// heartbeat. A job claimed before the renewal began that it did not
// extend has been taken from the worker: it is cancelled and dropped, or
// stopped as in an outage when the worker is just back from one.
func (w *Worker) renew(ctx context.Context) error {
	start := time.Now()
	w.mu.Lock()
	running, disabled := w.busy, make([]string, 0, len(w.outUntil))
	for k := range w.outUntil {
		disabled = append(disabled, k)
	}
	done, failed := w.done, w.failed
	held := make([]int64, 0, len(w.tasks))
	for id, t := range w.tasks {
		if !t.lost {
			held = append(held, id)
		}
	}
	// Back from an outage, a job whose lease ran out meanwhile was not
	// lost by the job: see dropIf.
	wasDown := w.healthySince.IsZero()
	w.mu.Unlock()
	var ids []int64
	err := pgx.BeginFunc(ctx, w.q.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE workers SET heartbeat = now(), running = $2, done = $3, failed = $4,
			disabled = $5 WHERE id = $1`, w.id, running, done, failed, disabled); err != nil {
			return err
		}
		// Only the jobs the worker holds: one it claimed and then dropped
		// (its lease lapsed on this side) must expire on the server too.
		rows, err := tx.Query(ctx, `UPDATE jobs SET lease_until = now() + $2 * interval '1 second'
			WHERE worker = $1 AND state = 'running' AND lease_until > now() AND id = ANY($3) RETURNING id`,
			w.id, w.q.lease.Seconds(), held)
		if err != nil {
			return err
		}
		ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		return err
	})
	if err != nil {
		return fmt.Errorf("renew leases: %w", err)
	}
	w.dbOK()
	kept := make(map[int64]bool, len(ids))
	for _, id := range ids {
		kept[id] = true
	}
	w.mu.Lock()
	w.lastRenew = start
	w.mu.Unlock()
	w.dropIf(wasDown, func(id int64, t *task) bool { return !kept[id] && t.claimedAt.Before(start) })
	return nil
}

// dropIf takes each task not yet lost for which lose holds off the
// worker, called under w.mu. When the worker could not reach the server
// (outage), that is no one's loss: see stopOutage. Otherwise a task not
// yet finished is dropped (see drop) and reported lost.
func (w *Worker) dropIf(outage bool, lose func(id int64, t *task) bool) {
	w.mu.Lock()
	defer w.unlock()
	for id, t := range w.tasks {
		switch {
		case t.lost || t.outage || !lose(id, t):
		case outage:
			if w.stopOutage(t) {
				w.later(WorkerEvent{Type: "outage", Key: t.job.Key, Kind: t.job.Kind, Attempt: t.job.Attempts, Err: ErrOutage})
			}
		case t.finished.IsZero():
			w.drop(t)
			w.later(lostEvent(t))
		}
	}
}

// stopOutage takes t off the worker for an outage, under w.mu: a running
// job is stopped (cause ErrOutage) and a claimed one is not started, so
// that the job never runs here and elsewhere at once. Once the server
// answers, record returns it to the queue, or records how it ended if it
// ended first, unless another worker requeued it meanwhile (see relabel).
// It reports whether t was still to run.
func (w *Worker) stopOutage(t *task) bool {
	t.outage = true
	switch {
	case !t.finished.IsZero():
		return false
	case t.cancel != nil:
		t.cancel(ErrOutage)
	default:
		w.ready = slices.DeleteFunc(w.ready, func(r *task) bool { return r == t })
		w.results = append(w.results, t)
	}
	return true
}

// lostEvent is the event of a job whose lease the worker lost.
func lostEvent(t *task) WorkerEvent {
	return WorkerEvent{Type: "lost", Key: t.job.Key, Kind: t.job.Kind, Attempt: t.job.Attempts, Err: ErrLeaseLost}
}

// watchdog takes off the worker each job whose lease it can no longer
// count on (see leaseValid): no renewal has succeeded for 90 % of a lease
// since the last one, or since the claim for a job claimed later. A job
// claimed just after an outage keeps its fresh lease. When the renewals
// failed (the server away) the jobs are stopped for the outage, and
// returned to the queue uncounted; when none was tried (the worker was
// paused) they are lost.
func (w *Worker) watchdog(ctx context.Context) {
	ticks(ctx, max(w.q.lease/20, 5*time.Millisecond), func() {
		now := time.Now()
		w.mu.Lock()
		outage := w.healthySince.IsZero()
		w.mu.Unlock()
		w.dropIf(outage, func(_ int64, t *task) bool { return !w.leaseValid(t, now) })
	})
}

// MaxLost is how many times a job's worker may be lost (its lease
// expired: killed, paused, cut off) before the job fails. Lost attempts
// do not use its retries: losing a machine is not the job's failure. Nor
// is an outage of the server: a lease granted before the server (re)started
// and run out before its worker renewed anything since is the outage's
// (reason "outage") and does not count; nor does one whose worker, back
// from its own outage, says so (relabelSQL).
const MaxLost = 3

const requeueSQL = `WITH o AS (
		SELECT id, COALESCE(lease_until < pg_postmaster_start_time() + $2 * interval '1 second'
			AND (SELECT w.heartbeat FROM workers w WHERE w.id = jobs.worker) < pg_postmaster_start_time(), false) AS outage
		FROM jobs WHERE state = 'running' AND lease_until < now() FOR UPDATE SKIP LOCKED),
	x AS (
		SELECT id, outage, NOT outage
			AND (SELECT count(*) FROM attempts a WHERE a.job_id = o.id AND a.reason = 'lease expired') + 1 >= $1 AS spent
		FROM o),
	a AS (
		INSERT INTO attempts (job_id, attempt, worker, state, final, started, error, reason)
		SELECT j.id, j.attempts, COALESCE((SELECT w.name FROM workers w WHERE w.id = j.worker), j.worker), CASE WHEN x.spent THEN 'failed' ELSE 'cancelled' END, x.spent, j.started,
			CASE WHEN x.spent THEN format('its worker was lost (killed, paused or cut off) %s times: given up', $1) END,
			CASE WHEN x.outage THEN 'outage' ELSE 'lease expired' END
		FROM jobs j JOIN x USING (id)
		ON CONFLICT (job_id, attempt) DO NOTHING)
	UPDATE jobs j SET state = CASE WHEN x.spent THEN 'failed' ELSE 'queued' END,
		finished = CASE WHEN x.spent THEN now() END,
		error = CASE WHEN x.spent THEN format('its worker was lost (killed, paused or cut off) %s times: given up', $1) END,
		reason = CASE WHEN x.spent THEN 'lease expired' END,
		worker = NULL, lease_until = NULL
	FROM x WHERE j.id = x.id`

// requeueExpired returns to the queue the jobs whose lease expired, once
// this worker has been healthy for a whole lease. A job lost MaxLost
// times fails instead, so a job that kills every worker running it does
// not go round for ever.
func (w *Worker) requeueExpired(ctx context.Context) error {
	w.mu.Lock()
	ok := !w.healthySince.IsZero() && time.Since(w.healthySince) >= w.q.lease
	w.mu.Unlock()
	if !ok {
		return nil
	}
	tag, err := w.q.pool.Exec(ctx, requeueSQL, MaxLost, w.q.lease.Seconds())
	if err != nil {
		return fmt.Errorf("requeue expired leases: %w", err)
	}
	if n := tag.RowsAffected(); n > 0 {
		w.emit(WorkerEvent{Type: "requeued", N: int(n)})
		if _, err := w.q.pool.Exec(ctx, `SELECT pg_notify($1, ''), pg_notify($2, '')`, notifyJobs, notifyAttempts); err != nil {
			return err
		}
	}
	return nil
}
