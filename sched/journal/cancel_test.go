package journal

import (
	"context"
	"sync"
	"testing"
	"time"

	"calq/sched"
)

// TestCancelQueued: the jobs a stop left queued are recorded cancelled
// (not one another process runs), a re-run claims them again, and Prune
// removes those nobody resumed.
func TestCancelQueued(t *testing.T) {
	c := newClock()
	j := openTemp(t, c)
	ctx := context.Background()
	a, b, running := newJob("a"), newJob("b"), newJob("running")
	_, err := j.Enqueue(ctx, []*sched.Job{a, b})
	must(t, err)
	start(t, j, running, t0)

	must(t, j.CancelQueued(ctx, []*sched.Job{a, b, running}, "stopped before it started"))
	for _, tt := range []struct {
		key       string
		state     sched.State
		finished  bool
		errorText string
	}{
		{"a", sched.StateCancelled, true, "stopped before it started"},
		{"b", sched.StateCancelled, true, "stopped before it started"},
		{"running", sched.StateRunning, false, ""},
	} {
		r := record(t, j, tt.key)
		if r.State != tt.state || r.Finished.IsZero() == tt.finished || r.Error != tt.errorText {
			t.Errorf("job %s: state %s, finished %v, error %q; want %s, finished %v, error %q",
				tt.key, r.State, r.Finished, r.Error, tt.state, tt.finished, tt.errorText)
		}
	}

	adm, err := j.Enqueue(ctx, []*sched.Job{newJob("a")})
	must(t, err)
	if !adm[0].Run {
		t.Fatalf("a re-run's admission of a cancelled job: %+v, want Run", adm[0])
	}
	won, err := j.Claim(ctx, a, "local", t0.Add(time.Second))
	must(t, err)
	if !won {
		t.Fatal("a re-run could not claim the cancelled job a")
	}

	c.Set(t0.Add(time.Hour))
	n, err := j.Prune(ctx, t0.Add(time.Minute), PruneOptions{})
	must(t, err)
	if got := listKeys(t, j); n != 1 || got != "running a" {
		t.Errorf("Prune removed %d, left %q; want 1 (b), left \"running a\"", n, got)
	}
}

// TestEngineStopCancelsQueued: an engine stopped (Ctrl-C) while one job
// runs and the rest wait leaves none of them queued in the journal: the
// running one and the unstarted ones are all cancelled, and a second
// engine runs every one of them.
func TestEngineStopCancelsQueued(t *testing.T) {
	j := openTemp(t, newClock())
	started := make(chan struct{})
	block := sched.WorkerFunc(func(ctx context.Context, job *sched.Job) error {
		close(started)
		<-ctx.Done()
		return ctx.Err()
	})
	e, err := sched.NewEngine(sched.EngineOptions{Journal: j,
		Backends: []sched.Backend{{Name: "local", Workers: []sched.Worker{block}}}})
	must(t, err)
	e.Start()
	keys := []string{"j1", "j2", "j3", "j4"}
	var jobs []*sched.Job
	for _, k := range keys {
		jobs = append(jobs, &sched.Job{Key: k, Kind: "shell"})
	}
	must(t, e.Submit(context.Background(), jobs...))
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sum, _ := e.Wait(ctx)
	must(t, e.Close())
	if sum.Cancelled != 1 || sum.NotRun != 3 {
		t.Errorf("summary %+v, want 1 cancelled, 3 not run", sum)
	}
	for _, k := range keys {
		if r := record(t, j, k); r.State != sched.StateCancelled {
			t.Errorf("job %s: state %s after the stop, want cancelled", k, r.State)
		}
	}

	var mu sync.Mutex
	ran := map[string]bool{}
	ok := sched.WorkerFunc(func(ctx context.Context, job *sched.Job) error {
		mu.Lock()
		ran[job.Key] = true
		mu.Unlock()
		return nil
	})
	e2, err := sched.NewEngine(sched.EngineOptions{Journal: j, Backends: []sched.Backend{{Name: "local", Workers: []sched.Worker{ok}}}})
	must(t, err)
	defer e2.Close()
	e2.Start()
	var again []*sched.Job
	for _, k := range keys {
		again = append(again, &sched.Job{Key: k, Kind: "shell"})
	}
	must(t, e2.Submit(context.Background(), again...))
	sum, err = e2.Wait(context.Background())
	must(t, err)
	if sum.Done != 4 || len(ran) != 4 {
		t.Errorf("the re-run: summary %+v, ran %v; want all 4 done", sum, ran)
	}
}
