package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"calq/sched"
)

// The statements of the hot path, prepared once by Open.
type stmtID int

const (
	stmtInsertJob stmtID = iota
	stmtReadJob
	stmtClaim
	stmtFinish
	stmtInsertAttempt
	numStmts
)

var stmtSQL = [numStmts]string{
	stmtInsertJob: `INSERT OR IGNORE INTO jobs
		(key, kind, label, payload, class, backend, state, retries, timeout_s, not_before, enqueued)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'queued', ?7, ?8, ?9, ?10)`,
	stmtReadJob: `SELECT state, attempts, owner, not_before, enqueued FROM jobs WHERE key = ?1`,
	// The wait is computed from the text of the times, because SQLite's
	// date functions stop at the millisecond.
	stmtClaim: `UPDATE jobs SET state = 'running', owner = ?1, owner_pid = ?2, owner_host = ?3,
		lease_until = ?4, started = COALESCE(started, ?5),
		wait_s = COALESCE(wait_s, ?8, (unixepoch(?5) - unixepoch(enqueued))
			+ (CAST(substr(?5, 20) AS REAL) - CAST(substr(enqueued, 20) AS REAL))),
		attempts = attempts + 1, ran_on = ?6
		WHERE key = ?7 AND state IN ('queued', 'cancelled') AND (not_before IS NULL OR not_before <= ?5)
		RETURNING attempts`,
	stmtFinish: `UPDATE jobs SET state = ?1, finished = ?2, error = ?3, reason = ?4, run_s = ?5,
		not_before = CASE WHEN ?1 = 'queued' THEN ?6 ELSE not_before END,
		owner = NULL, owner_pid = NULL, owner_host = NULL, lease_until = NULL
		WHERE key = ?7 AND owner = ?8 AND state = 'running'
		RETURNING id`,
	stmtInsertAttempt: `INSERT OR REPLACE INTO attempts
		(job_id, attempt, backend, state, started, finished, error, reason)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)`,
}

// Batch returns the key prefix "name#gen" for a batch of jobs named name:
// the latest generation while it has no jobs or any unfinished one (so a
// re-run resumes it and overlapping runs share it), else a new generation.
// Callers key the batch's jobs "name#gen/<n>".
func (j *Journal) Batch(ctx context.Context, name string) (string, error) {
	if name == "" {
		return "", errors.New("batch: empty name")
	}
	now := j.now()
	var key string
	err := j.do(ctx, &request{fn: func(t *txn) (err error) {
		key, err = batch(t, name, now)
		return err
	}})
	if err != nil {
		return "", fmt.Errorf("batch %q: %w", name, err)
	}
	return key, nil
}

func batch(t *txn, name string, now time.Time) (string, error) {
	var gen int
	err := t.queryRow(`SELECT gen FROM batches WHERE name = ? ORDER BY gen DESC LIMIT 1`, name).Scan(&gen)
	if errors.Is(err, sql.ErrNoRows) {
		return newBatch(t, name, 1, now)
	} else if err != nil {
		return "", err
	}
	key := batchKey(name, gen)
	var jobs, open int
	// The batch's jobs are the keys from "key/" up to "key0", '0' being
	// the byte after '/': a range the key index serves.
	err = t.queryRow(`SELECT count(*), count(*) FILTER (WHERE state NOT IN `+
		terminalStates+`) FROM jobs WHERE key >= ? AND key < ?`, key+"/", key+"0").Scan(&jobs, &open)
	if err != nil || jobs == 0 || open > 0 {
		return key, err
	}
	return newBatch(t, name, gen+1, now)
}

func newBatch(t *txn, name string, gen int, now time.Time) (string, error) {
	key := batchKey(name, gen)
	_, err := t.exec(`INSERT INTO batches (key, name, gen, created) VALUES (?, ?, ?, ?)`,
		key, name, gen, timeText(now))
	return key, err
}

func batchKey(name string, gen int) string { return name + "#" + strconv.Itoa(gen) }

// Enqueue records jobs, idempotently by Key, and says for each whether
// this process should run it: yes when it is queued or cancelled, no when
// it has finished or is running (Admission.Owner says where); a job
// waiting out a retry's backoff says until when (Admission.NotBefore). It sets each
// job's Attempts from the journal. A new job's enqueue time is its
// Enqueued, or now when that is zero.
func (j *Journal) Enqueue(ctx context.Context, jobs []*sched.Job) ([]sched.Admission, error) {
	now := j.now()
	args := make([][]any, len(jobs))
	for i, job := range jobs {
		if job.Key == "" {
			return nil, fmt.Errorf("enqueue: job %d of %d has no key", i+1, len(jobs))
		}
		args[i] = insertArgs(job, now)
	}
	adm := make([]sched.Admission, len(jobs))
	enq := make([]time.Time, len(jobs)) // of jobs already in the journal
	err := j.do(ctx, &request{fn: func(t *txn) error { return enqueue(t, args, adm, enq) }})
	if err != nil {
		return nil, fmt.Errorf("enqueue: %w", err)
	}
	for i, job := range jobs {
		job.Attempts = adm[i].Attempts
		if !enq[i].IsZero() {
			job.Enqueued = enq[i] // so that waits count from the first enqueue
		} else if job.Enqueued.IsZero() {
			job.Enqueued = now
		}
	}
	return adm, nil
}

// insertArgs copies what stmtInsertJob needs of job: the writer may run
// after a cancelled caller has moved on.
func insertArgs(job *sched.Job, now time.Time) []any {
	enqueued := job.Enqueued
	if enqueued.IsZero() {
		enqueued = now
	}
	return []any{job.Key, job.Kind, job.Label, slices.Clone(job.Payload), job.Class.Index(), job.Backend,
		job.Retries, secondsOrNull(job.Timeout), timeText(job.NotBefore), timeText(enqueued)}
}

func enqueue(t *txn, args [][]any, adm []sched.Admission, enq []time.Time) error {
	for i, a := range args {
		res, err := t.stmt(stmtInsertJob).ExecContext(t.ctx, a...)
		if err != nil {
			return fmt.Errorf("job %q: %w", a[0], err)
		}
		if n, err := res.RowsAffected(); err == nil && n == 1 {
			adm[i] = sched.Admission{Run: true, State: sched.StateQueued}
			continue
		}
		var owner, notBefore, enqueued sql.NullString
		err = t.stmt(stmtReadJob).QueryRowContext(t.ctx, a[0]).Scan(&adm[i].State, &adm[i].Attempts, &owner, &notBefore, &enqueued)
		if err == nil {
			adm[i].NotBefore, err = parseTime(notBefore)
		}
		if err == nil {
			enq[i], err = parseTime(enqueued)
		}
		if err != nil {
			return fmt.Errorf("job %q: %w", a[0], err)
		}
		adm[i].Run = adm[i].State == sched.StateQueued || adm[i].State == sched.StateCancelled
		adm[i].Owner = owner.String
	}
	return nil
}

// Claim marks job running on backend for this process from at, unless
// another process has claimed it or it has finished: it returns whether
// this process won the job, and then sets job.Attempts to count this
// attempt. Claim is the arbiter between processes: of all the claims of a
// queued job, exactly one wins.
func (j *Journal) Claim(ctx context.Context, job *sched.Job, backend string, at time.Time) (bool, error) {
	if at.IsZero() {
		at = j.now()
	}
	c := j.claimOp(job, backend, at)
	if err := j.do(ctx, &request{fn: c.run}); err != nil {
		return false, fmt.Errorf("claim job %q: %w", job.Key, err)
	}
	return c.done(), nil
}

// claimOp is a Claim inside the writer's transaction.
type claimOp struct {
	job      *sched.Job
	args     []any
	won      bool
	attempts int
}

func (j *Journal) claimOp(job *sched.Job, backend string, at time.Time) *claimOp {
	if at.IsZero() {
		at = j.now()
	}
	// The wait is the job's first start less its enqueue time; Enqueue
	// set Enqueued from the journal, so SQL computes it only for jobs
	// claimed without (a slower expression, in claim's fallback).
	var wait any
	if !job.Enqueued.IsZero() {
		wait = max(at.Sub(job.Enqueued), 0).Seconds()
	}
	return &claimOp{job: job, args: []any{j.owner, j.opts.Pid, j.opts.Host, timeText(at.Add(j.opts.Lease)),
		timeText(at), backend, job.Key, wait}}
}

func (c *claimOp) run(t *txn) error {
	err := t.stmt(stmtClaim).QueryRowContext(t.ctx, c.args...).Scan(&c.attempts)
	c.won = err == nil
	return ignoreNoRows(err) // no row: claimed elsewhere, or finished
}

// done reports the claim's outcome once committed.
func (c *claimOp) done() bool {
	if c.won {
		c.job.Attempts = c.attempts
	}
	return c.won
}

// Finish records the outcome of attempt a of a job this Journal holds,
// and releases the job: to its final state, or back to the queue until
// a.RetryAt when that is set. It returns ErrNotHeld, recording
// nothing, when the job is not held here.
func (j *Journal) Finish(ctx context.Context, a sched.Attempt) error {
	if a.Job == nil {
		return errors.New("finish: attempt without a job")
	}
	f := j.finishOp(a)
	return f.result(j.do(ctx, &request{fn: f.run}))
}

// FinishClaim records attempt a and claims next in one transaction: the
// engine's workers use it to pay one commit per job rather than two. It
// returns the claim's outcome, Finish's error and Claim's error.
func (j *Journal) FinishClaim(ctx context.Context, a sched.Attempt, next *sched.Job, backend string, at time.Time) (bool, error, error) {
	if a.Job == nil {
		return false, errors.New("finish: attempt without a job"), nil
	}
	f, c := j.finishOp(a), j.claimOp(next, backend, at)
	// One transaction: an error in either statement (not a claim lost,
	// which is no error) undoes both, and both calls report it.
	err := j.do(ctx, &request{fn: func(t *txn) error {
		if err := f.run(t); err != nil {
			return err
		}
		return c.run(t)
	}})
	if err != nil {
		return false, f.result(err), wrapClaim(next, err)
	}
	return c.done(), f.result(nil), nil
}

func wrapClaim(job *sched.Job, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("claim job %q: %w", job.Key, err)
}

// finishOp is a Finish inside the writer's transaction.
type finishOp struct {
	a       sched.Attempt
	job     []any
	attempt []any
	held    bool
}

func (j *Journal) finishOp(a sched.Attempt) *finishOp {
	return &finishOp{a: a, job: finishArgs(a, a.Job.Key, j.owner), attempt: attemptArgs(a)}
}

func (f *finishOp) run(t *txn) error {
	var id int64
	err := t.stmt(stmtFinish).QueryRowContext(t.ctx, f.job...).Scan(&id)
	if f.held = err == nil; !f.held {
		return ignoreNoRows(err)
	}
	if f.a.Attempt == 1 && f.a.State == sched.StateDone && f.a.RetryAt.IsZero() {
		return nil // the jobs row says all of it: see attempt_log in the schema
	}
	_, err = t.stmt(stmtInsertAttempt).ExecContext(t.ctx, append([]any{id}, f.attempt...)...)
	return err
}

// result is Finish's error once the transaction has ended with err.
func (f *finishOp) result(err error) error {
	switch {
	case err != nil:
		return fmt.Errorf("finish job %q attempt %d: %w", f.a.Job.Key, f.a.Attempt, err)
	case !f.held:
		return fmt.Errorf("finish job %q attempt %d: %w", f.a.Job.Key, f.a.Attempt, ErrNotHeld)
	}
	return nil
}

func finishArgs(a sched.Attempt, key, owner string) []any {
	state, finished := string(a.State), timeText(a.Finished)
	if !a.RetryAt.IsZero() {
		state, finished = string(sched.StateQueued), nil // the job goes on
	}
	var run any
	if !a.Started.IsZero() && !a.Finished.IsZero() {
		run = a.Finished.Sub(a.Started).Seconds()
	}
	return []any{state, finished, textOrNull(a.Err), textOrNull(a.Reason), run,
		timeText(a.RetryAt), key, owner}
}

// attemptArgs are the attempts row of a, after its job_id: what happened
// to the attempt, whether or not a retry follows.
func attemptArgs(a sched.Attempt) []any {
	return []any{a.Attempt, textOrNull(a.Backend), string(a.State), timeText(a.Started),
		timeText(a.Finished), textOrNull(a.Err), textOrNull(a.Reason)}
}

func ignoreNoRows(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	return err
}

// CancelQueued records jobs still queued (not running, not finished) as
// cancelled, for reason, finished now: the jobs a stopped engine never
// started. A cancelled job is claimed again like a queued one, so a
// re-run resumes it, and Prune removes it once it is old enough. Jobs
// that another process claimed meanwhile are left alone.
func (j *Journal) CancelQueued(ctx context.Context, jobs []*sched.Job, reason string) error {
	now := timeText(j.now())
	err := j.do(ctx, &request{fn: func(t *txn) error {
		for _, job := range jobs {
			if _, err := t.exec(`UPDATE jobs SET state = 'cancelled', finished = ?, reason = 'cancelled',
				error = ? WHERE key = ? AND state = 'queued'`, now, reason, job.Key); err != nil {
				return fmt.Errorf("job %q: %w", job.Key, err)
			}
		}
		return nil
	}})
	if err != nil {
		return fmt.Errorf("cancel %d queued jobs: %w", len(jobs), err)
	}
	return nil
}
