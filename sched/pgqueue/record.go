package pgqueue

// Recording: each finished job's outcome (done, failed, retry, stopped),
// written with its attempt in one transaction per round, and what the
// worker learns from it (mean service time, a kind's failure streak).

import (
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"calq/internal/bytestr"
	"calq/sched"
)

// outcome classifies a finished task as the engine does: its state, its
// reason, and when it runs again (zero: it does not).
func (w *Worker) outcome(t *task) (state sched.State, reason string, retryIn time.Duration) {
	err := t.err
	switch {
	case err == nil:
		return sched.StateDone, "", 0
	case errors.Is(context.Cause(t.ctx), sched.ErrStopped):
		return sched.StateCancelled, "cancelled", 0
	case errors.Is(context.Cause(t.ctx), ErrOutage):
		return sched.StateCancelled, "outage", 0
	case errors.Is(err, sched.ErrTimeout):
		state, reason = sched.StateTimedOut, "timeout"
	default:
		state, reason = sched.StateFailed, sched.ReasonOf(err)
	}
	// Retries count failures: an attempt lost with its worker, stopped or
	// cut short by an outage was not the job's (MaxLost bounds those).
	if !sched.IsPermanent(err) && t.failures < int64(t.job.Retries) {
		retryIn = w.o.Backoff.Delay(t.job.Attempts, mrand.Float64())
	}
	return state, reason, retryIn
}

const finishSQL = `WITH f AS (
		UPDATE jobs SET state = $2, finished = CASE WHEN $3 THEN now() END, error = $4, reason = $5, run_s = $6,
			not_before = CASE WHEN $3 THEN not_before ELSE now() + $7 * interval '1 second' END,
			worker = NULL, lease_until = NULL
		WHERE id = $1 AND worker = $8 AND state = 'running' AND attempts = $9
		RETURNING id)
	INSERT INTO attempts (job_id, attempt, worker, state, final, started, error, reason, stdout, stderr, result,
		retry_at, retries)
	SELECT id, $9, $16, $10, $3, $11, $4, $5, $12, $13, $14, CASE WHEN $3 THEN NULL ELSE now() + $7 * interval '1 second' END,
		$15 FROM f
	ON CONFLICT (job_id, attempt) DO NOTHING
	RETURNING job_id`

// unclaimSQL returns a job claimed and never started to the queue, as
// release does, if the row still names this worker and attempt.
const unclaimSQL = `UPDATE jobs SET state = 'queued', worker = NULL, lease_until = NULL, attempts = attempts - 1
	WHERE id = $1 AND worker = $2 AND state = 'running' AND attempts = $3
	RETURNING id`

// relabelSQL marks as the outage's the attempt that another worker
// requeued as lost while this one could not reach the server: this
// worker was alive and stopped the job itself, so the attempt does not
// count towards MaxLost. An attempt that already gave the job up stays.
const relabelSQL = `UPDATE attempts SET reason = 'outage'
	WHERE job_id = $1 AND attempt = $2 AND reason = 'lease expired' AND NOT final`

// rec is a finished task as record writes it.
type rec struct {
	t       *task
	state   sched.State
	reason  string
	retryIn time.Duration
	outage  bool // t was taken off the worker for an outage
}

// record writes the finished jobs' attempts, in one transaction. A job
// whose lease is lost (another worker requeued it) is dropped unrecorded.
// One whose lease only ran out, as in an outage, is recorded when no
// other worker has requeued it since: the row still names this worker
// and attempt (finishSQL), so its result is kept and it does not run
// again. A job stopped for an outage before it started goes back to the
// queue (unclaimSQL).
func (w *Worker) record(ctx context.Context) error {
	w.mu.Lock()
	ts := w.results
	w.results = nil
	// The watchdog may mark them while they are written.
	lost, outage := make([]bool, len(ts)), make([]bool, len(ts))
	for i, t := range ts {
		lost[i], outage[i] = t.lost, t.outage
	}
	w.mu.Unlock()
	var recs []rec
	for i, t := range ts {
		if lost[i] {
			w.forget(t, false)
			continue
		}
		r := rec{t: t, outage: outage[i]}
		if t.ctx != nil {
			r.state, r.reason, r.retryIn = w.outcome(t)
		}
		recs = append(recs, r)
	}
	if len(recs) == 0 {
		return nil
	}
	held := make([]bool, len(recs))
	requeued := slices.ContainsFunc(recs, func(r rec) bool { return r.t.ctx == nil || r.state == sched.StateCancelled })
	err := pgx.BeginFunc(context.WithoutCancel(ctx), w.q.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		for i, r := range recs {
			w.queueRec(b, r).QueryRow(func(row pgx.Row) error {
				var id int64
				err := row.Scan(&id)
				held[i] = err == nil
				if errors.Is(err, pgx.ErrNoRows) {
					return nil
				}
				return err
			})
			if r.outage {
				b.Queue(relabelSQL, r.t.id, r.t.job.Attempts)
			}
		}
		b.Queue(`SELECT pg_notify($1, '')`, notifyAttempts)
		if requeued { // at once, not at the next poll
			b.Queue(`SELECT pg_notify($1, '')`, notifyJobs)
		}
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		// Not recorded: the jobs stay running under this worker's lease
		// and are tried again at the next round, unless the lease is lost.
		w.mu.Lock()
		w.results = append(w.results, ts...)
		w.mu.Unlock()
		return fmt.Errorf("record %d jobs: %w", len(recs), err)
	}
	w.dbOK()
	for i, r := range recs {
		switch {
		case !held[i]:
			w.forget(r.t, true)
		case r.t.ctx == nil:
			w.forget(r.t, false) // its outage event said so
		default:
			typ := string(r.state)
			if r.retryIn > 0 {
				typ = "retry"
			}
			w.forget(r.t, false)
			w.learn(r.t, r.state)
			w.emit(WorkerEvent{Type: typ, Key: r.t.job.Key, Kind: r.t.job.Kind, Attempt: r.t.job.Attempts, Err: r.t.err})
		}
	}
	return nil
}

// queueRec queues the statement that records r, or that returns its job
// to the queue when it never started.
func (w *Worker) queueRec(b *pgx.Batch, r rec) *pgx.QueuedQuery {
	t := r.t
	if t.ctx == nil {
		return b.Queue(unclaimSQL, t.id, w.id, t.job.Attempts)
	}
	final := r.retryIn == 0
	state := r.state
	if !final {
		state = sched.StateQueued
	}
	if r.state == sched.StateCancelled {
		final, state = false, sched.StateQueued
	}
	var errText *string
	if t.err != nil {
		s := bytestr.Text(t.err.Error())
		errText = &s
	}
	var reason *string
	if r.reason != "" {
		reason = &r.reason
	}
	return b.Queue(finishSQL, t.id, string(state), final, errText, reason, t.finished.Sub(t.started).Seconds(),
		r.retryIn.Seconds(), w.id, t.job.Attempts, string(r.state), t.started, t.stdout, t.stderr, t.result,
		t.job.Retries, w.name)
}

// forget drops a task from the worker's books; a lost one is reported.
func (w *Worker) forget(t *task, lost bool) {
	w.mu.Lock()
	defer w.unlock()
	delete(w.tasks, t.id)
	if t.probe {
		delete(w.probing, t.job.Kind)
	}
	if lost {
		w.later(lostEvent(t))
	}
}

// learn updates the service-time mean and the kind's failure streak.
func (w *Worker) learn(t *task, state sched.State) {
	w.mu.Lock()
	defer w.unlock()
	run := t.finished.Sub(t.started).Seconds()
	if w.mean == 0 {
		w.mean = run
	} else {
		w.mean += 0.1 * (run - w.mean)
	}
	k := t.job.Kind
	switch state {
	case sched.StateDone:
		w.done++
		w.streak[k] = 0
		if _, out := w.outUntil[k]; out && t.probe {
			delete(w.outUntil, k)
			w.later(WorkerEvent{Type: "enabled", Kind: k})
		}
	case sched.StateFailed, sched.StateTimedOut:
		w.failed++
		w.streak[k]++
		if _, out := w.outUntil[k]; (out && t.probe) || (!out && w.o.FailLimit > 0 && w.streak[k] >= w.o.FailLimit) {
			w.outUntil[k] = time.Now().Add(w.o.Cooldown)
			w.later(WorkerEvent{Type: "disabled", Kind: k, N: w.streak[k]})
		}
	}
}
