package journal

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"calq/sched"
)

func TestDefaultPath(t *testing.T) {
	tests := []struct {
		name, xdg, home, want string
	}{
		{"xdg", "/state", "/home/u", "/state/calq/calq.db"},
		{"no xdg", "", "/home/u", "/home/u/.local/state/calq/calq.db"},
		{"relative xdg ignored", "state", "/home/u", "/home/u/.local/state/calq/calq.db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DefaultPath(tt.xdg, tt.home); got != tt.want {
				t.Errorf("DefaultPath(%q, %q) = %q, want %q", tt.xdg, tt.home, got, tt.want)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	newer := filepath.Join(dir, "newer.db")
	j := openAt(t, newer, Options{})
	_, err := j.db.Exec("PRAGMA user_version = 2")
	must(t, err)
	must(t, j.Close())
	tests := []struct {
		name, path, want string
	}{
		{"question mark", filepath.Join(dir, "a?b.db"), `open journal ` + dir + `/a?b.db: path contains "?"`},
		{"newer schema", newer, "open journal " + newer + ": schema version 2 is newer than this calq's (1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := Open(context.Background(), tt.path, Options{})
			if err == nil {
				j.Close()
			}
			if got := errString(err); got != tt.want {
				t.Errorf("Open() error = %q, want %q", got, tt.want)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestOpenCreatesPrivateDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "calq")
	openAt(t, filepath.Join(dir, "calq.db"), Options{})
	fi, err := os.Stat(dir)
	must(t, err)
	if got := fi.Mode().Perm(); got != 0o700 {
		t.Errorf("directory mode %v, want 0700", got)
	}
}

func TestEnqueueAdmission(t *testing.T) {
	j, other := openTwo(t)
	ctx := context.Background()
	run(t, j, newJob("done"), 0, time.Second, sched.StateDone, "")
	run(t, j, newJob("cancelled"), 0, time.Second, sched.StateCancelled, "")
	start(t, other, newJob("held"), t0)

	jobs := []*sched.Job{newJob("new"), newJob("done"), newJob("cancelled"), newJob("held")}
	adm, err := j.Enqueue(ctx, jobs)
	must(t, err)
	want := []sched.Admission{
		{Run: true, State: sched.StateQueued},
		{Run: false, State: sched.StateDone, Attempts: 1},
		{Run: true, State: sched.StateCancelled, Attempts: 1},
		{Run: false, State: sched.StateRunning, Attempts: 1, Owner: other.owner},
	}
	for i, job := range jobs {
		if adm[i] != want[i] {
			t.Errorf("admission of %s = %+v, want %+v", job.Key, adm[i], want[i])
		}
		if job.Attempts != want[i].Attempts {
			t.Errorf("%s: Attempts = %d, want %d", job.Key, job.Attempts, want[i].Attempts)
		}
	}
}

func TestEnqueueKeepsFirstRecord(t *testing.T) {
	j := openTemp(t, newClock())
	first := newJob("k")
	first.Label = "first"
	second := newJob("k")
	second.Label, second.Enqueued = "second", t0.Add(time.Hour)
	for _, job := range []*sched.Job{first, second} {
		_, err := j.Enqueue(context.Background(), []*sched.Job{job})
		must(t, err)
	}
	r := record(t, j, "k")
	if r.Label != "first" || !r.Enqueued.Equal(t0) {
		t.Errorf("record label %q enqueued %v, want first, %v", r.Label, r.Enqueued, t0)
	}
	_, err := j.Enqueue(context.Background(), []*sched.Job{{Kind: "shell"}})
	if got, want := errString(err), "enqueue: job 1 of 1 has no key"; got != want {
		t.Errorf("Enqueue(job without key) error = %q, want %q", got, want)
	}
}

func TestBatch(t *testing.T) {
	c := newClock()
	j := openTemp(t, c)
	ctx := context.Background()
	batch := func(name string) string {
		t.Helper()
		key, err := j.Batch(ctx, name)
		must(t, err)
		return key
	}
	steps := []struct {
		name string
		do   func()
		want string
	}{
		{"first", func() {}, "nightly#1"},
		{"no jobs yet", func() {}, "nightly#1"},
		{"a job queued", func() {
			_, err := j.Enqueue(ctx, []*sched.Job{newJob("nightly#1/0"), newJob("nightly#1/1")})
			must(t, err)
		}, "nightly#1"},
		{"one finished, one queued", func() {
			run(t, j, newJob("nightly#1/0"), 0, time.Second, sched.StateDone, "")
		}, "nightly#1"},
		{"all finished", func() {
			run(t, j, newJob("nightly#1/1"), 0, time.Second, sched.StateFailed, "exit status 1")
		}, "nightly#2"},
		{"next one resumes", func() {}, "nightly#2"},
		{"a job of another batch with a longer name", func() {
			_, err := j.Enqueue(ctx, []*sched.Job{newJob("nightly#20/0")})
			must(t, err)
		}, "nightly#2"},
	}
	for _, s := range steps {
		s.do()
		if got := batch("nightly"); got != s.want {
			t.Fatalf("%s: Batch = %q, want %q", s.name, got, s.want)
		}
	}
	if got := batch("weekly"); got != "weekly#1" {
		t.Errorf("Batch(weekly) = %q, want weekly#1", got)
	}
}

func TestClaimIsExclusive(t *testing.T) {
	a, b := openTwo(t)
	ctx := context.Background()
	job := newJob("k")
	_, err := a.Enqueue(ctx, []*sched.Job{job})
	must(t, err)
	claim := func(j *Journal) bool {
		t.Helper()
		won, err := j.Claim(ctx, &sched.Job{Key: "k"}, "local", t0)
		must(t, err)
		return won
	}
	if !claim(a) {
		t.Fatal("first Claim = false, want true")
	}
	if claim(b) {
		t.Error("Claim of a job the other journal holds = true, want false")
	}
	err = b.Finish(ctx, sched.Attempt{Job: job, Attempt: 1, State: sched.StateDone})
	if !errors.Is(err, ErrNotHeld) {
		t.Errorf("Finish of a job the other journal holds: error %v, want ErrNotHeld", err)
	}
	must(t, a.Finish(ctx, sched.Attempt{Job: job, Attempt: 1, State: sched.StateDone}))
	if claim(b) {
		t.Error("Claim of a done job = true, want false")
	}
}

// deadPid returns the pid of a process that has exited and been reaped.
func deadPid(t *testing.T) int {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	must(t, cmd.Run())
	return cmd.Process.Pid
}

func TestRecover(t *testing.T) {
	tests := []struct {
		name  string
		pid   int           // owner of the running job; 0 for this process
		later time.Duration // when the journal is opened again
		want  int
	}{
		{"owner alive, lease held", 0, 10 * time.Second, 0},
		{"owner alive, lease expired", 0, DefaultLease + time.Second, 1},
		{"owner dead", deadPid(t), 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClock()
			path := filepath.Join(t.TempDir(), "calq.db")
			crashed := openAt(t, path, Options{Now: c.Now, Pid: tt.pid})
			start(t, crashed, newJob("k"), t0)
			crash(t, crashed)

			c.Set(t0.Add(tt.later))
			j := openAt(t, path, Options{Now: c.Now})
			if got := j.Recovered(); got != tt.want {
				t.Errorf("Recovered() = %d, want %d", got, tt.want)
			}
			wantState, wantLog := sched.StateRunning, ""
			if tt.want == 1 {
				wantState, wantLog = sched.StateQueued, "1 cancelled orphaned"
			}
			r := record(t, j, "k")
			if r.State != wantState || r.Attempts != 1 {
				t.Errorf("job %s with %d attempts, want %s with 1", r.State, r.Attempts, wantState)
			}
			checkAttempts(t, j, "k", wantLog)
		})
	}
}

func TestFinishRetry(t *testing.T) {
	j := openTemp(t, newClock())
	ctx := context.Background()
	job := newJob("k")
	retryAt := t0.Add(time.Minute)
	start(t, j, job, t0)
	must(t, j.Finish(ctx, sched.Attempt{Job: job, Backend: "local", Attempt: 1, State: sched.StateTimedOut,
		Started: t0, Finished: t0.Add(time.Second), Err: "deadline", Reason: "timeout", RetryAt: retryAt}))
	r := record(t, j, "k")
	if r.State != sched.StateQueued || !r.NotBefore.Equal(retryAt) || !r.Finished.IsZero() || r.Owner != "" {
		t.Errorf("after a retry: state %s, not_before %v, finished %v, owner %q; want queued, %v, zero, none",
			r.State, r.NotBefore, r.Finished, r.Owner, retryAt)
	}
	if early, err := j.Claim(ctx, job, "local", retryAt.Add(-time.Second)); early || err != nil {
		t.Errorf("Claim before the backoff ends = %v, %v; want false, nil", early, err)
	}
	adm, err := j.Enqueue(ctx, []*sched.Job{newJob("k")})
	must(t, err)
	if !adm[0].Run || !adm[0].NotBefore.Equal(retryAt) {
		t.Errorf("Enqueue again: %+v, want to run not before %v", adm[0], retryAt)
	}
	won, err := j.Claim(ctx, job, "local", retryAt)
	must(t, err)
	if !won || job.Attempts != 2 {
		t.Errorf("second Claim = %v with Attempts %d, want true with 2", won, job.Attempts)
	}
	checkAttempts(t, j, "k", "1 timed_out timeout")
}

func TestCloseReleasesHeldJobs(t *testing.T) {
	c := newClock()
	j := openTemp(t, c)
	ctx := context.Background()
	jobs := []*sched.Job{newJob("held"), newJob("done")}
	for _, job := range jobs {
		start(t, j, job, t0)
	}
	must(t, j.Finish(ctx, sched.Attempt{Job: jobs[1], Attempt: 1, State: sched.StateDone}))
	must(t, j.Close())
	must(t, j.Close()) // a second Close is harmless

	if _, err := j.Enqueue(ctx, jobs); !errors.Is(err, ErrClosed) {
		t.Errorf("Enqueue after Close: error %v, want ErrClosed", err)
	}
	again := openAt(t, j.path, Options{Now: c.Now})
	for key, want := range map[string]sched.State{"held": sched.StateQueued, "done": sched.StateDone} {
		if got := record(t, again, key).State; got != want {
			t.Errorf("%s: state %s after Close, want %s", key, got, want)
		}
	}
	checkAttempts(t, again, "held", "1 cancelled released")
}

func TestHeartbeatRenewsLeases(t *testing.T) {
	c := newClock()
	j := openTemp(t, c)
	ctx := context.Background()
	start(t, j, newJob("k"), t0)
	c.Set(t0.Add(time.Minute))
	must(t, j.renew(ctx))
	if got, want := record(t, j, "k").LeaseUntil, t0.Add(time.Minute+DefaultLease); !got.Equal(want) {
		t.Errorf("lease until %v, want %v", got, want)
	}
}

// TestCancelledCallerWriteHappens holds the writer busy, gives up on a
// Claim waiting behind it, and checks that the claim is recorded all the
// same.
func TestCancelledCallerWriteHappens(t *testing.T) {
	j := openTemp(t, newClock())
	job := newJob("k")
	_, err := j.Enqueue(context.Background(), []*sched.Job{job})
	must(t, err)
	entered, release := make(chan struct{}), make(chan struct{})
	busy := make(chan error, 1)
	go func() {
		busy <- j.do(context.Background(), &request{fn: func(*txn) error {
			close(entered)
			<-release
			return nil
		}})
	}()
	<-entered
	ctx, cancel := context.WithCancel(context.Background())
	claimed := make(chan error, 1)
	go func() {
		_, err := j.Claim(ctx, job, "local", t0)
		claimed <- err
	}()
	for len(j.reqs) == 0 { // until the claim waits for the writer
		runtime.Gosched()
	}
	cancel()
	if err := <-claimed; !errors.Is(err, context.Canceled) {
		t.Errorf("Claim with a cancelled context: error %v, want context.Canceled", err)
	}
	close(release)
	must(t, <-busy)
	must(t, j.renew(context.Background())) // a write behind the claim: the claim is done
	if got := record(t, j, "k").State; got != sched.StateRunning {
		t.Errorf("state %s, want running", got)
	}
}

func TestFinishWithoutJob(t *testing.T) {
	j := openTemp(t, newClock())
	err := j.Finish(context.Background(), sched.Attempt{})
	if err == nil || !strings.Contains(err.Error(), "without a job") {
		t.Errorf("Finish(no job) error = %v, want one saying so", err)
	}
}

// TestFinishClaim: one round trip records an attempt and claims the next
// job; a next job another journal holds is not won, and the finish still
// lands.
func TestFinishClaim(t *testing.T) {
	a, b := openTwo(t)
	ctx := context.Background()
	done, next, taken := newJob("done"), newJob("next"), newJob("taken")
	start(t, a, done, t0)
	_, err := a.Enqueue(ctx, []*sched.Job{next})
	must(t, err)
	start(t, b, taken, t0)
	tests := []struct {
		name    string
		prev    *sched.Job
		next    *sched.Job
		wantWon bool
	}{
		{"claim won", done, next, true},
		{"claim lost", next, taken, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			att := sched.Attempt{Job: tt.prev, Backend: "local", Attempt: tt.prev.Attempts, State: sched.StateDone,
				Started: t0, Finished: t0.Add(time.Second)}
			won, ferr, cerr := a.FinishClaim(ctx, att, tt.next, "local", t0.Add(time.Second))
			if won != tt.wantWon || ferr != nil || cerr != nil {
				t.Fatalf("FinishClaim = %v, %v, %v; want %v, nil, nil", won, ferr, cerr, tt.wantWon)
			}
			if r := record(t, a, tt.prev.Key); r.State != sched.StateDone {
				t.Errorf("%s: state %s, want done", tt.prev.Key, r.State)
			}
			want := sched.StateRunning
			if r := record(t, a, tt.next.Key); r.State != want {
				t.Errorf("%s: state %s, want %s", tt.next.Key, r.State, want)
			}
		})
	}
}
