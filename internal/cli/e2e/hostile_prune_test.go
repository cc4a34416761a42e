package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"calq/internal/pgtest"
	"calq/sched"
	"calq/sched/journal"
)

// Issue 23, items 6 and 7, end to end: prunes during work never make a
// finished job run again nor lose a reused input, a resuming submitter
// holds a page of outputs in memory rather than all of them, and the
// submitter outlasts its database connections being terminated. Each
// test drives the calq binary as a user would.

// pruneNow runs calq history prune --before before on db and returns how
// many jobs it deleted.
func pruneNow(t *testing.T, db, before string) int {
	t.Helper()
	n, err := pruneErr(t, db, before)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// pruneErr is pruneNow for another goroutine than the test's.
func pruneErr(t *testing.T, db, before string) (int, error) {
	out, err := calqCmd(t, "history", "prune", "--db", db, "--before", before, "--json").Output()
	if err != nil {
		return 0, fmt.Errorf("history prune --before %s: %w\n%s", before, err, stderrOf(err))
	}
	var p struct {
		Jobs int `json:"jobs"`
	}
	if err := json.Unmarshal(out, &p); err != nil {
		return 0, fmt.Errorf("history prune --json printed %q: %w", out, err)
	}
	return p.Jobs, nil
}

// stderrOf is the standard error an *exec.ExitError kept.
func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// grown waits until the file at path has at least n lines and reports
// true, or reports false once done is closed first. The work is another
// process's: its output is all there is to wait on.
func grown(t *testing.T, path string, n int, done <-chan struct{}) bool {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for len(lines(t, path)) < n {
		select {
		case <-done:
			return false
		case <-tick.C:
		}
	}
	return true
}

// waited starts waiting for cmd and returns a channel closed when it has
// exited.
func waited(cmd *exec.Cmd) <-chan struct{} {
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	return done
}

// pruneJobs writes n jobs to dir/jobs, as stopJobs does but each taking
// 0.2 s more: long enough that a round of stops and prunes lands in the
// middle of the batch. It also writes dir/other, 10 jobs of another batch
// for a prune to delete, and returns both paths.
func pruneJobs(t *testing.T, dir string, n int) (jobs, other string) {
	t.Helper()
	jobs = stopJobs(t, dir, n)
	writeFile(t, jobs, strings.ReplaceAll(string(mustRead(t, jobs)), "; sleep 0.0", "; sleep 0.2"))
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, "echo other %d\n", i)
	}
	other = filepath.Join(dir, "other")
	writeFile(t, other, b.String())
	return jobs, other
}

// pruner runs calq history prune --before 0s on db while more than
// pruneOpen of its jobs are open (open counts them), at once or beside
// the work, and counts the prunes and the jobs they deleted. A batch
// that has ended whole is pruned whole and rightly starts anew: the
// margin keeps the batch under test from ending during a prune.
type pruner struct {
	t              *testing.T
	db             string
	open           func() (int, error)
	prunes, pruned int
	bg             chan struct{}
}

const pruneOpen = 80

func (p *pruner) run() error {
	open, err := p.open()
	if err != nil || open <= pruneOpen {
		return err
	}
	d, err := pruneErr(p.t, p.db, "0s")
	p.prunes++
	p.pruned += d
	return err
}

// start prunes in the background, until wait.
func (p *pruner) start() {
	p.bg = make(chan struct{})
	go func() {
		defer close(p.bg)
		if err := p.run(); err != nil {
			p.t.Error(err)
		}
	}()
}

func (p *pruner) wait() {
	if p.bg != nil {
		<-p.bg
		p.bg = nil
	}
}

// now prunes once the background prune has ended.
func (p *pruner) now() {
	p.wait()
	if err := p.run(); err != nil {
		p.t.Fatal(err)
	}
}

// check reports the prunes and checks that they deleted the other
// batch's 10 jobs and none of the open one's.
func (p *pruner) check() {
	p.t.Logf("%d prunes deleted %d jobs", p.prunes, p.pruned)
	if p.prunes < 2 || p.pruned != 10 {
		p.t.Errorf("%d prunes deleted %d jobs, want several deleting the other batch's 10 (and none of the open one)", p.prunes, p.pruned)
	}
}

// TestPruneDuringWorkRerunsNoFinishedJob: a calq sched run -j 0 batch of
// 150 jobs on the real PostgreSQL, served by a calq worker; in each of
// up to 8 rounds (fixed seed) calq history prune --before 0s starts at a
// random point while the worker works, then the worker (SIGTERM) and the
// submitter (SIGINT) are stopped at another, the interrupted batch is
// pruned again, and the same command resumes it. Every job completes
// once and the last resume ends with all 150 done; the prunes delete
// only another batch, a finished one. Before the whole-batch prune, each
// prune deleted the jobs the batch had finished and its resume ran them
// again.
func TestPruneDuringWorkRerunsNoFinishedJob(t *testing.T) {
	const n, rounds = 150, 8
	srv := pgtest.Start(t)
	dir := t.TempDir()
	jobs, other := pruneJobs(t, dir, n)
	started := filepath.Join(dir, "started")
	rng := rand.New(rand.NewPCG(23, 61))
	startWorker(t, srv.URL, "--kinds", "shell")
	sub, out := submit(t, srv.URL, other)
	waitSubmit(t, sub, out, "10 jobs: 10 done, 0 failed")
	c := pgConn(t, srv.URL)
	p := &pruner{t: t, db: srv.URL, open: func() (int, error) {
		var n int
		err := c.QueryRow(context.Background(), `SELECT count(*) FROM jobs WHERE state NOT IN ('done', 'failed', 'timed_out')`).Scan(&n)
		return n, err
	}}
	t.Cleanup(p.wait) // before the server stops
	stops := 0
	for i := 0; i < rounds; i++ {
		w := startWorker(t, srv.URL, "--kinds", "shell", "-j", "4", "--grace", "10s")
		sub, out := submit(t, srv.URL, jobs)
		subDone := waited(sub)
		from := len(lines(t, started))
		k := 1 + rng.IntN(15)
		if !grown(t, started, from+k, subDone) {
			break
		}
		p.start()
		if !grown(t, started, from+k+1+rng.IntN(15), subDone) {
			break
		}
		must(t, w.Process.Signal(syscall.SIGTERM))
		if w.Wait(); w.ProcessState.ExitCode() != 130 {
			t.Fatalf("round %d: the worker exited %d after SIGTERM, want 130", i+1, w.ProcessState.ExitCode())
		}
		sub.Process.Signal(os.Interrupt) // unless it has just ended
		<-subDone
		// The worker may have resumed the batch's queued jobs before the
		// submitter set up its handler: SIGINT then ends it at once.
		ws := sub.ProcessState.Sys().(syscall.WaitStatus)
		if code := ws.ExitStatus(); code != 130 && code != 0 && ws.Signal() != syscall.SIGINT {
			t.Fatalf("round %d: the submitter ended with %v after SIGINT, want status 130\n%s", i+1, sub.ProcessState, out.String())
		}
		stops++
		p.now()
	}
	p.wait()
	startWorker(t, srv.URL, "--kinds", "shell", "-j", "4")
	sub, out = submit(t, srv.URL, jobs)
	waitSubmit(t, sub, out, fmt.Sprintf("%d jobs: %d done, 0 failed", n, n))
	t.Logf("%d stops", stops)
	p.check()
	checkRanOnce(t, dir, n)
}

// journalOpen counts the jobs of the journal at db that have not ended.
func journalOpen(db string) (int, error) {
	jn, err := journal.Open(context.Background(), db, journal.Options{})
	if err != nil {
		return 0, err
	}
	defer jn.Close()
	recs, err := jn.List(context.Background(), journal.Filter{})
	open := 0
	for _, r := range recs {
		if r.State != sched.StateDone {
			open++
		}
	}
	return open, err
}

// TestJournalPruneRerunsNoFinishedJob: the same on one machine, the SQLite
// journal: calq sched run --journal stopped (SIGTERM) at random points
// (fixed seed), calq history prune --before 0s started while it works
// and run after each stop, and the same command again: every job
// completes once.
func TestJournalPruneRerunsNoFinishedJob(t *testing.T) {
	const n, rounds = 150, 8
	dir := t.TempDir()
	jobs, other := pruneJobs(t, dir, n)
	db := filepath.Join(dir, "calq.db")
	started := filepath.Join(dir, "started")
	rng := rand.New(rand.NewPCG(23, 62))
	if out, err := calqCmd(t, "sched", "run", "--quiet", "--journal", "--db", db, other).CombinedOutput(); err != nil {
		t.Fatalf("the other batch: %v\n%s", err, out)
	}
	p := &pruner{t: t, db: db, open: func() (int, error) { return journalOpen(db) }}
	t.Cleanup(p.wait)
	run := func() *exec.Cmd {
		return calqCmd(t, "sched", "run", "--quiet", "--journal", "--db", db, "-j", "4", "--grace", "10s", jobs)
	}
	ended := false // a batch run to its end starts anew when run again
	stops := 0
	for i := 0; i < rounds && !ended; i++ {
		cmd := run()
		must(t, cmd.Start())
		done := waited(cmd)
		from := len(lines(t, started))
		k := 1 + rng.IntN(15)
		if ended = !grown(t, started, from+k, done); ended {
			break
		}
		p.start()
		if ended = !grown(t, started, from+k+1+rng.IntN(15), done); ended {
			break
		}
		cmd.Process.Signal(syscall.SIGTERM) // unless it has just ended
		<-done
		switch code := cmd.ProcessState.ExitCode(); code {
		case 0:
			ended = true
		case 130:
			stops++
			p.now()
		default:
			t.Fatalf("round %d: status %d after SIGTERM, want 130", i+1, code)
		}
	}
	p.wait()
	if !ended {
		if out, err := run().CombinedOutput(); err != nil {
			t.Fatalf("last run: %v\n%s", err, out)
		}
	}
	t.Logf("%d stops", stops)
	p.check()
	checkRanOnce(t, dir, n)
}

// images writes k noise PNGs (distinct, fixed seeds) to a new directory
// and returns it.
func images(t *testing.T, k int) string {
	t.Helper()
	in := filepath.Join(t.TempDir(), "in")
	must(t, os.Mkdir(in, 0o755))
	for i := range k {
		writeNoisePNG(t, filepath.Join(in, fmt.Sprintf("p%02d.png", i)), int64(2300+i))
	}
	return in
}

// convertShared runs calq convert -j 0 of in to out on url, with its
// files under tmp, and returns its combined output and error.
func convertShared(t *testing.T, url, tmp, in, out string) (string, error) {
	t.Helper()
	cmd := calqCmd(t, "convert", "-j", "0", "--db", url, "-o", out, in)
	cmd.Env = append(cmd.Env, convertEnv(tmp)...)
	cmd.Env = append(cmd.Env, "XDG_STATE_HOME="+filepath.Join(tmp, "state"))
	b, err := cmd.CombinedOutput()
	return string(b), err
}

// TestPruneKeepsReusedBlob: calq convert -j 0 stores its inputs once, by
// digest. The first conversion's jobs and blobs are made two days old;
// then the same inputs go to a new output directory (a new batch reusing
// every blob) while calq history prune --before 1d runs in a loop: the
// old batch is pruned, and every new job finds its input (no "fetch blob
// …: not in the database"). Three rounds. The window it guards (a prune
// between the submitter's PutFile and SubmitOn) is milliseconds wide, and
// these rounds did not hit it on the code before the fix either: the
// exploit itself, deterministic, is sched/pgqueue's TestPrune/blobrace.
func TestPruneKeepsReusedBlob(t *testing.T) {
	const k, rounds = 8, 3
	srv := pgtest.Start(t)
	startWorker(t, srv.URL, "--kinds", "convert-image", "-j", "2")
	in := images(t, k)
	tmp := t.TempDir()
	c := pgConn(t, srv.URL)
	want := fmt.Sprintf("%d files: %d converted, 0 skipped, 0 failed", k, k)
	if out, err := convertShared(t, srv.URL, tmp, in, filepath.Join(tmp, "out0")); err != nil || !strings.Contains(out, want) {
		t.Fatalf("first convert -j 0: %v\n%s", err, out)
	}
	pruned := 0
	for round := 1; round <= rounds; round++ {
		for _, q := range []string{`UPDATE blobs SET created = now() - interval '2 days'`,
			`UPDATE jobs SET finished = now() - interval '2 days'`} {
			_, err := c.Exec(context.Background(), q)
			must(t, err)
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				d, err := pruneErr(t, srv.URL, "1d")
				if err != nil {
					t.Error(err)
					return
				}
				pruned += d
			}
		}()
		out, err := convertShared(t, srv.URL, tmp, in, filepath.Join(tmp, fmt.Sprint("out", round)))
		close(stop)
		wg.Wait()
		if err != nil || !strings.Contains(out, want) || strings.Contains(out, "not in the database") {
			t.Fatalf("round %d: convert -j 0 beside prunes: %v\n%s", round, err, out)
		}
	}
	t.Logf("the prunes deleted %d jobs", pruned)
	if pruned < rounds*k {
		t.Errorf("the prunes deleted %d jobs, want every old batch's (%d)", pruned, rounds*k)
	}
}

// countWriter counts what is written to it.
type countWriter struct{ n atomic.Int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n.Add(int64(len(p))); return len(p), nil }

// TestResumingSubmitterMemory: 300 jobs each print 1 MiB, run by a calq
// worker for a calq sched run -j 0; the same command again (a resume of
// a finished batch) prints all 300 MiB it collects. Its peak resident
// size stays far below that: it reads the outputs a page at a time, of
// 64 attempts ending before 8 MiB (49 MiB peak without -race, 126 MiB
// with it). Reading them all at once it peaked at 330 MiB (1.58 GB for
// 1,500 jobs in the issue); pages of 64 attempts alone, at 152 MiB.
func TestResumingSubmitterMemory(t *testing.T) {
	const n = 300
	srv := pgtest.Start(t)
	dir := t.TempDir()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "echo %d; head -c 1048000 /dev/zero | tr '\\0' x\n", i)
	}
	jobs := filepath.Join(dir, "jobs")
	writeFile(t, jobs, b.String())
	startWorker(t, srv.URL, "--kinds", "shell", "-j", "4")
	for _, run := range []string{"first run", "resume"} {
		cmd := calqCmd(t, "sched", "run", "--db", srv.URL, "-j", "0", "--quiet", jobs)
		var stdout countWriter
		var stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		peak := peakWatch(cmd)
		err := cmd.Wait()
		rss := peak() >> 20
		if err != nil || !strings.Contains(stderr.String(), fmt.Sprintf("%d jobs: %d done", n, n)) {
			t.Fatalf("%s: %v\n%s", run, err, stderr.String())
		}
		t.Logf("%s: printed %d MiB, peak RSS %d MiB", run, stdout.n.Load()>>20, rss)
		if stdout.n.Load() < n*1048000 {
			t.Errorf("%s printed %d bytes, want the %d jobs' outputs (%d)", run, stdout.n.Load(), n, n*1048000)
		}
		if rss >= 200 {
			t.Errorf("%s: peak RSS %d MiB, want < 200 MiB for %d MiB of outputs", run, rss, stdout.n.Load()>>20)
		}
	}
}

// killBackends terminates every calq connection to url every tick until
// the function it returns is called; that returns how many it
// terminated. A test that fails first stops it in its cleanup, before
// its connection closes.
func killBackends(t *testing.T, url string) func() int {
	c := pgConn(t, url)
	stop, total := make(chan struct{}), make(chan int, 1)
	go func() {
		tick := time.NewTicker(150 * time.Millisecond)
		defer tick.Stop()
		killed := 0
		for {
			select {
			case <-stop:
				total <- killed
				return
			case <-tick.C:
			}
			var k int
			if err := c.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))
				FROM pg_stat_activity WHERE application_name = 'calq' AND datname = current_database()`).Scan(&k); err != nil {
				t.Error(err)
			}
			killed += k
		}
	}()
	var once sync.Once
	kills := 0
	end := func() int {
		once.Do(func() { close(stop); kills = <-total })
		return kills
	}
	t.Cleanup(func() { end() })
	return end
}

// TestSubmitOutlivesTerminatedBackends: while calq sched run -j 0 (60
// jobs) and calq convert -j 0 (12 images) submit to and follow the
// queue, every calq connection to the database is terminated
// (pg_terminate_backend) several times a second: both batches complete,
// every job once. Before the submitter retried, one termination during
// the uploads failed a file; before Follow retried its last read, one
// there left files cancelled (10 converted, 2 cancelled).
func TestSubmitOutlivesTerminatedBackends(t *testing.T) {
	const n, k = 60, 12
	srv := pgtest.Start(t)
	startWorker(t, srv.URL, "--kinds", "shell,convert-image", "-j", "4")
	dir := t.TempDir()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "sleep 0.0%d; echo %d >> %s/runs\n", i%10, i, dir)
	}
	jobs := filepath.Join(dir, "jobs")
	writeFile(t, jobs, b.String())
	in := images(t, k)

	killed := killBackends(t, srv.URL)
	sub, out := submit(t, srv.URL, jobs)
	conv, err := convertShared(t, srv.URL, dir, in, filepath.Join(dir, "out"))
	waitSubmit(t, sub, out, fmt.Sprintf("%d jobs: %d done, 0 failed", n, n))
	kills := killed()
	if want := fmt.Sprintf("%d files: %d converted, 0 skipped, 0 failed", k, k); err != nil || !strings.Contains(conv, want) {
		t.Fatalf("convert -j 0: %v, want %q in:\n%s", err, want, conv)
	}
	t.Logf("%d connections terminated", kills)
	if kills == 0 {
		t.Error("no connection was terminated")
	}
	runs := counts(t, filepath.Join(dir, "runs"))
	for i := 1; i <= n; i++ {
		if c := runs[fmt.Sprint(i)]; c != 1 {
			t.Errorf("job %d ran %d times, want 1", i, c)
		}
	}
}
