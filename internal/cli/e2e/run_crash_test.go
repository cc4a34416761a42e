package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"calq/sched"
	"calq/sched/journal"
)

// crashJobs writes n jobs that each note their start, sleep, and append
// their number to done: a job that ran to completion twice shows twice.
func crashJobs(t *testing.T, dir string, n int, sleep string) string {
	t.Helper()
	return pausedJobs(t, dir, n, "sleep "+sleep)
}

// pausedJobs writes n job lines to dir/jobs that append their number to
// dir/started, run pause, and append it to dir/done.
func pausedJobs(t *testing.T, dir string, n int, pause string) string {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "echo %d >> %s/started; %s; echo %d >> %s/done\n", i, dir, pause, i, dir)
	}
	path := filepath.Join(dir, "jobs")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func calqCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	bin, err := exec.LookPath("calq") // testscript.Main put calq (this binary) on PATH
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	return cmd
}

// lines returns the lines of a file, none if it does not exist.
func lines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(data))
}

// waitLines polls until path has at least n lines: the run under test is
// another process, so there is nothing to synchronise on but its output.
func waitLines(t *testing.T, path string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for len(lines(t, path)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%s has %d lines after 60s, want %d", path, len(lines(t, path)), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkOnce asserts that done holds each of 1..n exactly once.
func checkOnce(t *testing.T, done []string, n int) {
	t.Helper()
	slices.Sort(done)
	var want []string
	for i := 1; i <= n; i++ {
		want = append(want, fmt.Sprint(i))
	}
	slices.Sort(want)
	if !slices.Equal(done, want) {
		t.Errorf("jobs completed %v, want each of 1..%d exactly once", done, n)
	}
}

// TestSchedRunCrashRecovery kills -9 a running `calq sched run --journal`,
// starts it again, and checks from the journal and the jobs' own output
// that every job ran to completion exactly once, the interrupted ones
// after an orphaned attempt.
func TestSchedRunCrashRecovery(t *testing.T) {
	dir := t.TempDir()
	const n = 12
	jobs := crashJobs(t, dir, n, "1")
	db := filepath.Join(dir, "calq.db")
	args := []string{"sched", "run", "--journal", "--db", db, "-j", "3", "--label", "crash", "--quiet", jobs}

	first := calqCmd(t, args...)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill while all three slots are inside a job's sleep (three jobs
	// started and not done), after at least three jobs are done. Then no
	// job is in the milliseconds between its last line and its record in
	// the journal, where a finished job would rightly run again: a slot
	// claims its next job only once the last one's record is committed.
	// The kill must land within the 1 s sleeps; jobs that finish before it
	// does (only if this test is starved that long) may run twice.
	started, done := filepath.Join(dir, "started"), filepath.Join(dir, "done")
	deadline := time.Now().Add(60 * time.Second)
	var before []string
	for {
		s, d := lines(t, started), lines(t, done)
		if len(d) >= 3 && len(s)-len(d) == 3 {
			before = d
			break
		}
		if time.Now().After(deadline) {
			first.Process.Kill()
			t.Fatalf("no moment with 3 jobs running after 60s: %d started, %d done", len(s), len(d))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	after := lines(t, done)
	interrupted := len(lines(t, started)) - len(after)
	t.Logf("killed with %d jobs done and %d running", len(after), interrupted)

	out, err := calqCmd(t, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("second run: %v\n%s", err, out)
	}
	all := lines(t, done)
	if len(after) > len(before) {
		t.Logf("jobs %v finished between the check and the kill; they may run twice", after[len(before):])
		all = dropRepeats(all, after[len(before):])
	}
	checkOnce(t, all, n)

	jn, err := journal.Open(context.Background(), db, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer jn.Close()
	recs, err := jn.List(context.Background(), journal.Filter{Label: "crash"})
	if err != nil {
		t.Fatal(err)
	}
	retried := 0
	for _, r := range recs {
		if r.State != sched.StateDone {
			t.Errorf("job %s: state %s, want done", r.Key, r.State)
		}
		if r.Attempts > 1 {
			retried++
		}
	}
	// A job claimed just before the kill, whose shell had not yet written
	// its first line, was running too: so at least the interrupted ones,
	// and at most a wave (-j 3), have a second attempt.
	if len(recs) != n || retried < interrupted || retried > 3 {
		t.Errorf("journal has %d jobs, %d with a second attempt; want %d jobs, %d to 3 (those running at the kill)", len(recs), retried, n, interrupted)
	}
}

// TestSchedRunTwoProcesses runs the same batch from two overlapping calq
// processes on one journal: each job runs once in all, and both share them.
// The jobs wait at a gate until four have started, two per process (-j 2),
// so the runs overlap however slowly the second one starts.
func TestSchedRunTwoProcesses(t *testing.T) {
	dir := t.TempDir()
	const n = 16
	jobs := pausedJobs(t, dir, n, fmt.Sprintf("while [ ! -e %s/gate ]; do sleep 0.01; done", dir))
	db := filepath.Join(dir, "calq.db")
	args := []string{"sched", "run", "--journal", "--db", db, "-j", "2", "--label", "twice", "--json", jobs}
	a, b := calqCmd(t, args...), calqCmd(t, args...)
	var outA, outB, errA, errB strings.Builder
	a.Stdout, b.Stdout = &outA, &outB
	a.Stderr, b.Stderr = &errA, &errB
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	waitLines(t, filepath.Join(dir, "started"), 4)
	if err := os.WriteFile(filepath.Join(dir, "gate"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if ea, eb := a.Wait(), b.Wait(); ea != nil || eb != nil {
		t.Fatalf("runs ended with %v and %v\nA: %s\nB: %s", ea, eb, errA.String(), errB.String())
	}
	checkOnce(t, lines(t, filepath.Join(dir, "done")), n)
	ranA := strings.Count(outA.String(), `"event":"done"`)
	ranB := strings.Count(outB.String(), `"event":"done"`)
	if ranA+ranB != n || ranA == 0 || ranB == 0 {
		t.Errorf("process A ran %d jobs and B %d, want %d in all, shared", ranA, ranB, n)
	}
	t.Logf("process A ran %d jobs, B %d", ranA, ranB)
}

// TestSchedRunInterrupt: the first SIGINT stops the running job (its whole
// process group), records it cancelled and exits 130; when a job ignores
// SIGTERM, a second SIGINT ends calq at once (status 130 too) and the guard
// still kills it. The second signal goes once the job says it got the
// SIGTERM calq sends at the first: two signals sent before calq takes the
// first would be one to the kernel.
func TestSchedRunInterrupt(t *testing.T) {
	tests := []struct {
		name    string
		job     string
		signals int
		sig     os.Signal
	}{
		{"one signal", "echo $$ > %s/pid; sleep 300 & sleep 300; wait", 1, os.Interrupt},
		{"second signal", ignoresTerm, 2, os.Interrupt},
		{"second SIGTERM", ignoresTerm, 2, syscall.SIGTERM},
	}
	const grace = 2 * time.Minute
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "calq.db")
			cmd := calqCmd(t, "sched", "run", "--quiet", "--journal", "--db", db, "--grace", grace.String(), "--", fmt.Sprintf(tt.job, dir))
			var stderr lockedBuilder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitLines(t, filepath.Join(dir, "pid"), 1)
			var pid int
			fmt.Sscan(lines(t, filepath.Join(dir, "pid"))[0], &pid)
			pgid, err := syscall.Getpgid(pid)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_ = cmd.Process.Signal(tt.sig)
			if tt.signals == 2 {
				waitLines(t, filepath.Join(dir, "term"), 1)
				_ = cmd.Process.Signal(tt.sig)
			}
			err = cmd.Wait()
			// Not a speed test: a calq that waited out --grace, or a job
			// that outlived its SIGTERM, takes longer than the grace.
			if took := time.Since(start); took >= grace {
				t.Errorf("calq took %v to stop, want less than --grace %v", took, grace)
			}
			if again := strings.Contains(stderr.String(), "signal received again"); again != (tt.signals == 2) {
				t.Errorf("after %d signals stderr says %q; want %q only after the second", tt.signals, stderr.String(), "signal received again")
			}
			// The second signal exits 130 too, as the exit table says
			// (the default handler made it 143 for SIGTERM).
			if cmd.ProcessState.ExitCode() != 130 {
				t.Errorf("exit after %d signals: %v, want status 130", tt.signals, err)
			}
			waitGone(t, pgid)
			if tt.signals == 1 {
				jn, err := journal.Open(context.Background(), db, journal.Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer jn.Close()
				recs, err := jn.List(context.Background(), journal.Filter{})
				if err != nil {
					t.Fatal(err)
				}
				if len(recs) != 1 || recs[0].State != sched.StateCancelled {
					t.Errorf("journal: %+v, want one cancelled job", recs)
				}
			}
		})
	}
}

// ignoresTerm is a job that outlives SIGTERM, which it writes down in
// the file term of the directory %[1]s: its shell traps the signal and
// its sleeps, which die of it, are started again.
const ignoresTerm = "trap 'echo TERM >> %[1]s/term' TERM; echo $$ > %[1]s/pid; while :; do sleep 0.1; done"

// waitGone waits until no process is left in process group pgid, for a
// minute at most: the guard kills it once calq has ended.
func waitGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for syscall.Kill(-pgid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still has processes a minute after calq ended", pgid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// dropRepeats removes one later occurrence of each of jobs from done: the
// second run of a job that finished while calq was being killed.
func dropRepeats(done, jobs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range done {
		if slices.Contains(jobs, d) && seen[d] {
			continue
		}
		seen[d] = true
		out = append(out, d)
	}
	return out
}
