package journal

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"calq/internal/testclock"
	"calq/sched"
)

// t0 is the tests' epoch.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// clock is an injected Now that tests move by hand.
type clock = testclock.Clock

func newClock() *clock { return testclock.New(t0) }

// openAt opens the journal at path for a test, closing it at cleanup.
func openAt(t testing.TB, path string, opts Options) *Journal {
	t.Helper()
	j, err := Open(context.Background(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// openTemp opens a new journal in a temporary directory on clock c.
func openTemp(t testing.TB, c *clock) *Journal {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "calq.db"), Options{Now: c.Now})
}

// openTwo opens a new journal twice, as two processes would, on one
// clock.
func openTwo(t testing.TB) (*Journal, *Journal) {
	t.Helper()
	c := newClock()
	a := openTemp(t, c)
	return a, openAt(t, a.path, Options{Now: c.Now})
}

func newJob(key string) *sched.Job {
	return &sched.Job{Key: key, Kind: "shell", Class: sched.P2, Retries: 1, Enqueued: t0}
}

// must fails t on err; it keeps the steps of a scenario on one line each.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// start enqueues job and claims it on backend local at at.
func start(t testing.TB, j *Journal, job *sched.Job, at time.Time) {
	t.Helper()
	ctx := context.Background()
	_, err := j.Enqueue(ctx, []*sched.Job{job})
	must(t, err)
	won, err := j.Claim(ctx, job, "local", at)
	must(t, err)
	if !won {
		t.Fatalf("Claim(%s) = false, want true", job.Key)
	}
}

// run enqueues, claims and finishes job: one attempt from Enqueued+wait
// that lasts run and ends in state with reason.
func run(t testing.TB, j *Journal, job *sched.Job, wait, run time.Duration, state sched.State, reason string) {
	t.Helper()
	at := job.Enqueued.Add(wait)
	start(t, j, job, at)
	a := sched.Attempt{Job: job, Backend: "local", Attempt: job.Attempts, State: state,
		Started: at, Finished: at.Add(run), Reason: reason}
	if reason != "" {
		a.Err = "boom: " + reason
	}
	must(t, j.Finish(context.Background(), a))
}

// record returns the journal's record of key.
func record(t testing.TB, j *Journal, key string) Record {
	t.Helper()
	recs, err := queryRecords(context.Background(), j.db,
		`SELECT `+recordColumns+` FROM jobs WHERE key = ?`, key)
	must(t, err)
	if len(recs) != 1 {
		t.Fatalf("%d records of %q, want 1", len(recs), key)
	}
	return recs[0]
}

// checkAttempts checks the attempts rows of key against want, rendered
// as "1 cancelled orphaned; 2 done".
func checkAttempts(t testing.TB, j *Journal, key, want string) {
	t.Helper()
	if got := attemptLog(t, j, key); got != want {
		t.Errorf("attempts of %s: %q, want %q", key, got, want)
	}
}

func attemptLog(t testing.TB, j *Journal, key string) string {
	t.Helper()
	rows, err := j.db.Query(`SELECT a.attempt, a.state, COALESCE(a.reason, '') FROM attempt_log a
		JOIN jobs ON jobs.id = a.job_id WHERE jobs.key = ? ORDER BY a.attempt`, key)
	must(t, err)
	defer rows.Close()
	var log []string
	for rows.Next() {
		var n int
		var state, reason string
		must(t, rows.Scan(&n, &state, &reason))
		log = append(log, strings.TrimSpace(fmt.Sprintf("%d %s %s", n, state, reason)))
	}
	must(t, rows.Err())
	return strings.Join(log, "; ")
}

func seconds(f *float64) string {
	if f == nil {
		return "NULL"
	}
	return fmt.Sprint(*f)
}

// crash closes j as a killed process would: its running jobs stay
// running under its name.
func crash(t testing.TB, j *Journal) {
	t.Helper()
	j.closeOnce.Do(func() { j.closeErr = j.shutdown(false) })
	must(t, j.closeErr)
}
