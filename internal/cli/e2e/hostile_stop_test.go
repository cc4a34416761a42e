package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"calq/internal/pgtest"
)

// Issue 23, items 4 and 5: a graceful stop, or a server outage, never
// makes a finished job run again. Each job appends its number to
// started when it begins and to runs when it has done its work; a job
// that ran to completion twice shows twice in runs.

// stopJobs writes n short jobs to dir/jobs. Odd jobs ignore SIGTERM from
// the start (they finish within the grace whatever the stop); even ones
// ignore it only once their work is about to be committed, so a stop
// before that kills them unfinished.
func stopJobs(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		pre, post := "", "trap '' TERM; "
		if i%2 == 1 {
			pre, post = post, ""
		}
		fmt.Fprintf(&b, "%secho %d >> %s/started; sleep 0.0%d; %secho %d >> %s/runs\n", pre, i, dir, i%10, post, i, dir)
	}
	path := filepath.Join(dir, "jobs")
	writeFile(t, path, b.String())
	return path
}

// stopAfter starts cmd and sends it sig once started has grown by k
// lines, unless cmd ends first. It returns cmd's exit status and whether
// the signal was sent. ready, when not nil, runs once cmd has started.
func stopAfter(t *testing.T, cmd *exec.Cmd, started string, k int, sig os.Signal, ready func()) (int, bool) {
	t.Helper()
	from := len(lines(t, started))
	must(t, cmd.Start())
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	if ready != nil {
		ready()
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for len(lines(t, started)) < from+k {
		select {
		case <-done:
			return cmd.ProcessState.ExitCode(), false
		case <-tick.C:
		}
	}
	must(t, cmd.Process.Signal(sig))
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v did not end within 60s of %v", cmd.Args, sig)
	}
	return cmd.ProcessState.ExitCode(), true
}

// checkRanOnce asserts that each of jobs 1..n completed exactly once.
func checkRanOnce(t *testing.T, dir string, n int) {
	t.Helper()
	runs := counts(t, filepath.Join(dir, "runs"))
	var twice []string
	for i := 1; i <= n; i++ {
		switch c := runs[fmt.Sprint(i)]; {
		case c == 0:
			t.Errorf("job %d never completed", i)
		case c > 1:
			twice = append(twice, fmt.Sprintf("%d (%d times)", i, c))
		}
	}
	if len(twice) > 0 {
		t.Errorf("%d finished jobs ran again: %s", len(twice), strings.Join(twice, ", "))
	}
	t.Logf("%d starts for %d jobs: %d runs were stopped unfinished and resumed", len(lines(t, filepath.Join(dir, "started"))), n, len(lines(t, filepath.Join(dir, "started")))-n)
}

// TestStopRerunsNoFinishedJob: 150 short jobs under sched run --journal,
// SIGTERM or SIGINT at 18 random points (a fixed seed: after a random
// number of jobs has started), the same command again after each: every
// job completes once. Before the fix, a job that finished within the
// grace was recorded cancelled and ran again on the next run.
func TestStopRerunsNoFinishedJob(t *testing.T) {
	const n, signals = 150, 18
	dir := t.TempDir()
	jobs := stopJobs(t, dir, n)
	db := filepath.Join(dir, "calq.db")
	rng := rand.New(rand.NewPCG(23, 4))
	started := filepath.Join(dir, "started")
	sigs := []os.Signal{syscall.SIGTERM, os.Interrupt}
	sent := 0
	for i := 0; i < signals; i++ {
		cmd := calqCmd(t, "sched", "run", "--quiet", "--journal", "--db", db, "-j", "6", "--grace", "10s", jobs)
		code, ok := stopAfter(t, cmd, started, 1+rng.IntN(12), sigs[i%2], nil)
		if !ok {
			if code != 0 {
				t.Fatalf("run %d ended unsignalled with status %d", i+1, code)
			}
			break
		}
		sent++
		if code != 130 && code != 0 {
			t.Fatalf("run %d: status %d after %v, want 130 (or 0 when it had finished)", i+1, code, sigs[i%2])
		}
	}
	if out, err := calqCmd(t, "sched", "run", "--quiet", "--journal", "--db", db, "-j", "6", jobs).CombinedOutput(); err != nil {
		t.Fatalf("last run: %v\n%s", err, out)
	}
	t.Logf("%d signals", sent)
	checkRanOnce(t, dir, n)
	if got := journalStates(t, db); len(got) != n {
		t.Errorf("%d jobs in the journal, want %d (the re-runs resume one batch)", len(got), n)
	}
}

// TestWorkerStopRerunsNoFinishedJob: the same batch on the shared queue
// (real PostgreSQL), served by one calq worker that is stopped with
// SIGTERM at random points and started again: every job completes once,
// and each is recorded done once.
func TestWorkerStopRerunsNoFinishedJob(t *testing.T) {
	const n, signals = 150, 12
	srv := pgtest.Start(t)
	dir := t.TempDir()
	jobs := stopJobs(t, dir, n)
	rng := rand.New(rand.NewPCG(23, 5))
	started := filepath.Join(dir, "started")
	var sub *exec.Cmd
	var out *lockedBuilder
	for i := 0; i < signals; i++ {
		cmd := calqCmd(t, "worker", "--db", srv.URL, "--quiet", "--kinds", "shell", "-j", "6", "--grace", "10s")
		var log lockedBuilder
		cmd.Stderr = &log
		var ready func()
		if sub == nil {
			// calq sched run -j 0 submits only when a worker serves shell.
			ready = func() {
				workerID(t, pgConn(t, srv.URL), cmd.Process.Pid)
				sub, out = submit(t, srv.URL, jobs)
			}
		}
		code, ok := stopAfter(t, cmd, started, 1+rng.IntN(15), syscall.SIGTERM, ready)
		if !ok || code != 130 {
			t.Fatalf("worker %d: signalled %v, status %d, want 130\n%s", i+1, ok, code, log.String())
		}
	}
	startWorker(t, srv.URL, "--kinds", "shell", "-j", "6")
	waitSubmit(t, sub, out, fmt.Sprintf("%d jobs: %d done, 0 failed", n, n))
	checkRanOnce(t, dir, n)
	checkRecordedOnce(t, pgConn(t, srv.URL), n)
}
