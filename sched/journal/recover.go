package journal

import (
	"context"
	"time"
)

// Reasons recorded on the attempts that a journal, not a worker, ended.
const (
	reasonOrphaned = "orphaned" // the owner died or went silent; found by Open
	reasonReleased = "released" // the owner closed the journal while it ran
)

// recoverOrphans returns to the queue the running jobs whose lease has
// expired, or whose owner was a process of this host that is gone. It
// returns how many.
func recoverOrphans(t *txn, host string, now time.Time) (int, error) {
	n, err := requeue(t, reasonOrphaned, now, "lease_until < ?", timeText(now))
	if err != nil {
		return 0, err
	}
	pids, err := ownerPids(t, host)
	if err != nil {
		return 0, err
	}
	for _, pid := range pids {
		if PIDAlive(pid) {
			continue
		}
		m, err := requeue(t, reasonOrphaned, now, "owner_host = ? AND owner_pid = ?", host, pid)
		if err != nil {
			return 0, err
		}
		n += m
	}
	return n, nil
}

// ownerPids lists the processes of host that hold running jobs.
func ownerPids(t *txn, host string) ([]int, error) {
	rows, err := t.tx.QueryContext(t.ctx,
		`SELECT DISTINCT owner_pid FROM jobs WHERE state = 'running' AND owner_host = ?`, host)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var pids []int
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			return nil, err
		}
		pids = append(pids, pid)
	}
	return pids, rows.Err()
}

// releaseOwned returns the jobs owner still runs to the queue.
func releaseOwned(t *txn, owner string, now time.Time) (int, error) {
	return requeue(t, reasonReleased, now, "owner = ?", owner)
}

// requeue ends the current attempt of the running jobs matching the SQL
// condition cond as cancelled for reason, and queues the jobs again with
// their attempt count kept.
func requeue(t *txn, reason string, now time.Time, cond string, args ...any) (int, error) {
	ended := append([]any{timeText(now), reason}, args...)
	_, err := t.tx.ExecContext(t.ctx, `INSERT OR REPLACE INTO attempts
		(job_id, attempt, backend, state, finished, reason)
		SELECT id, attempts, ran_on, 'cancelled', ?, ? FROM jobs
		WHERE state = 'running' AND (`+cond+`)`, ended...)
	if err != nil {
		return 0, err
	}
	res, err := t.tx.ExecContext(t.ctx, `UPDATE jobs SET state = 'queued',
		owner = NULL, owner_pid = NULL, owner_host = NULL, lease_until = NULL
		WHERE state = 'running' AND (`+cond+`)`, args...)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// heartbeat renews the leases of this Journal's running jobs every
// Lease/3 until ctx is done, so that a lease expires only when the
// process is stuck or gone.
func (j *Journal) heartbeat(ctx context.Context) {
	defer close(j.beat)
	tick := time.NewTicker(max(j.opts.Lease/3, time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			// A renewal that fails is retried at the next tick; should the
			// lease run out meanwhile, Finish reports ErrNotHeld.
			_ = j.renew(ctx)
		}
	}
}

// renew extends the leases of this Journal's running jobs to now+Lease.
func (j *Journal) renew(ctx context.Context) error {
	until := timeText(j.now().Add(j.opts.Lease))
	return j.do(ctx, &request{fn: func(t *txn) error {
		_, err := t.exec(
			`UPDATE jobs SET lease_until = ? WHERE owner = ? AND state = 'running'`, until, j.owner)
		return err
	}})
}
