package journal

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"calq/sched"
)

// TestEngineWithJournal runs the engine on a real journal: a job that fails
// once and is retried, one that fails for good, and plain ones, and checks
// what the journal holds of each, attempt by attempt.
func TestEngineWithJournal(t *testing.T) {
	j := openTemp(t, newClock())
	var mu sync.Mutex
	tries := map[string]int{}
	w := sched.WorkerFunc(func(ctx context.Context, job *sched.Job) error {
		mu.Lock()
		tries[job.Key]++
		n := tries[job.Key]
		mu.Unlock()
		switch {
		case job.Key == "flaky" && n == 1:
			return errors.New("flaky")
		case job.Key == "bad":
			return sched.Permanent(errors.New("bad input"))
		}
		return nil
	})
	e, err := sched.NewEngine(sched.EngineOptions{Journal: j, Backoff: sched.Backoff{Base: time.Millisecond},
		Backends: []sched.Backend{{Name: "local", Workers: []sched.Worker{w, w}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.Start()
	var jobs []*sched.Job
	for _, k := range []string{"a", "b", "flaky", "bad", "c", "d"} {
		jobs = append(jobs, &sched.Job{Key: k, Kind: "shell", Retries: 2})
	}
	must(t, e.Submit(context.Background(), jobs...))
	sum, err := e.Wait(context.Background())
	must(t, err)
	if sum.Done != 5 || sum.Failed != 1 || sum.Retries != 1 {
		t.Errorf("summary %+v, want 5 done, 1 failed, 1 retry", sum)
	}
	tests := []struct {
		key, state, attempts string
	}{
		{"a", "done", "1 done"},
		{"flaky", "done", "1 failed error; 2 done"},
		{"bad", "failed", "1 failed permanent"},
		{"d", "done", "1 done"},
	}
	for _, tt := range tests {
		if r := record(t, j, tt.key); string(r.State) != tt.state {
			t.Errorf("%s: state %s, want %s", tt.key, r.State, tt.state)
		}
		checkAttempts(t, j, tt.key, tt.attempts)
	}

	// The same keys submitted again are done already: skipped, not run.
	e2, err := sched.NewEngine(sched.EngineOptions{Journal: j, Backends: []sched.Backend{{Name: "local", Workers: []sched.Worker{w}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	e2.Start()
	must(t, e2.Submit(context.Background(), &sched.Job{Key: "a", Kind: "shell"}, &sched.Job{Key: "e", Kind: "shell"}))
	sum, err = e2.Wait(context.Background())
	must(t, err)
	if sum.Skipped != 1 || sum.Done != 1 || tries["a"] != 1 {
		t.Errorf("second engine: summary %+v, a tried %d times; want a skipped, e done", sum, tries["a"])
	}
}
