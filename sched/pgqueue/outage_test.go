package pgqueue

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"calq/internal/pgtest"
	"calq/sched"
)

// attemptRows is the batch's attempts as attempt:state:reason:final.
func attemptRows(t *testing.T, q *Queue, batch string) []string {
	t.Helper()
	rows, _ := q.pool.Query(context.Background(), `SELECT a.attempt || ':' || a.state || ':' || COALESCE(a.reason, '') || ':' || a.final
		FROM attempts a JOIN jobs j ON j.id = a.job_id WHERE j.batch = $1 ORDER BY j.key, a.attempt`, batch)
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// waitSwept polls until no job of the batch is running.
func waitSwept(t *testing.T, q *Queue, batch string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var n int
		if err := q.pool.QueryRow(context.Background(), `SELECT count(*) FROM jobs WHERE batch = $1 AND state = 'running'`,
			batch).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("batch %s: %d jobs still running after a minute", batch, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSweepOutage: the sweep of expired leases tells a server restart
// from a lost worker. A lease granted before the restart whose worker has
// written no heartbeat since is the outage's: requeued with reason
// "outage", which MaxLost does not count, however many restarts. One
// whose worker heartbeat came after the restart is a lost worker's
// ("lease expired"), as is one whose worker is unknown.
func TestSweepOutage(t *testing.T) {
	srv := pgtest.Start(t)
	const lease = 600 * time.Millisecond
	ctx := context.Background()
	q := open(t, srv.URL, lease)
	batch, _ := q.Batch(ctx, "outage", false)
	js := append(jobs(batch, "old", 1, sched.P2, func(int) string { return "" }),
		jobs(batch, "new", 1, sched.P3, func(int) string { return "" })...)
	if _, err := q.Submit(ctx, batch, js); err != nil {
		t.Fatal(err)
	}
	if _, err := q.pool.Exec(ctx, `INSERT INTO workers (id, host, pid, kinds, slots, name) VALUES
		('w-old', 'h', 1, '{old}', 1, 'old'), ('w-new', 'h', 2, '{new}', 1, 'new')`); err != nil {
		t.Fatal(err)
	}
	for restart := 1; restart <= MaxLost; restart++ {
		// "old" is running under a lease that ends as the server stops.
		if _, err := q.pool.Exec(ctx, `UPDATE jobs SET state = 'running', worker = 'w-' || kind, attempts = attempts + 1,
			started = now(), lease_until = now() WHERE batch = $1 AND state = 'queued'`, batch); err != nil {
			t.Fatal(err)
		}
		srv.Stop()
		srv.Start()
		// "new"'s worker came back and wrote its heartbeat, and then its
		// lease ran out: that worker was lost after the restart.
		if err := q.retry(ctx, func(ctx context.Context) error { // the pool's connections died with the server
			_, err := q.pool.Exec(ctx, `UPDATE workers SET heartbeat = now() WHERE id = 'w-new'`)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		w := q.NewWorker(WorkerOptions{Name: fmt.Sprint("sweeper", restart)})
		w.Handle("other", sched.WorkerFunc(func(context.Context, *sched.Job) error { return nil }))
		stop := runWorker(t, w)
		waitSwept(t, q, batch)
		stop()
	}
	got := attemptRows(t, q, batch)
	want := "[1:cancelled:outage:false 2:cancelled:outage:false 3:cancelled:outage:false " +
		"1:cancelled:lease expired:false 2:cancelled:lease expired:false 3:failed:lease expired:true]"
	if fmt.Sprint(got) != want {
		t.Errorf("attempts %v,\nwant %s: new's worker lost 3 times, old's 3 outages not counted", got, want)
	}
}

// TestRetriesCountFailures: a job's --retries are spent by its failures
// only: an attempt whose worker was lost does not use one. A job with one
// retry that loses its worker and then fails once runs a third time.
func TestRetriesCountFailures(t *testing.T) {
	srv := pgtest.Start(t)
	ctx := context.Background()
	q := open(t, srv.URL, 600*time.Millisecond)
	batch, _ := q.Batch(ctx, "retries", false)
	js := jobs(batch, "flaky", 1, sched.P2, func(int) string { return "" })
	js[0].Retries = 1
	if _, err := q.Submit(ctx, batch, js); err != nil {
		t.Fatal(err)
	}
	// The first attempt's worker vanished.
	if _, err := q.pool.Exec(ctx, `UPDATE jobs SET state = 'running', worker = 'gone', attempts = 1,
		started = now(), lease_until = now() - interval '1 second' WHERE batch = $1`, batch); err != nil {
		t.Fatal(err)
	}
	w := q.NewWorker(WorkerOptions{Backoff: sched.Backoff{Base: time.Millisecond, Jitter: -1}, FailLimit: -1})
	w.Handle("flaky", sched.WorkerFunc(func(_ context.Context, j *sched.Job) error {
		if j.Attempts == 2 {
			return errors.New("flaky")
		}
		return nil
	}))
	runWorker(t, w)
	us := follow(t, q, batch)
	var rows []string
	for _, u := range us {
		rows = append(rows, fmt.Sprintf("%d:%s:%s:%v", u.Attempt, u.State, u.Reason, u.Final))
	}
	if want := "[1:cancelled:lease expired:false 2:failed:error:false 3:done::true]"; fmt.Sprint(rows) != want {
		t.Errorf("attempts %v, want %s: the lost attempt used no retry", rows, want)
	}
}
