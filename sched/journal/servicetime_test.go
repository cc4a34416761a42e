package journal

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"calq/sched"
)

// TestMeanRunSeconds: the mean run time of the last n done jobs of a
// kind; failed jobs and other kinds do not count.
func TestMeanRunSeconds(t *testing.T) {
	ctx := context.Background()
	j, err := Open(ctx, filepath.Join(t.TempDir(), "calq.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if mean, n, err := j.MeanRunSeconds(ctx, "convert-office", 100); err != nil || n != 0 || mean != 0 {
		t.Fatalf("empty journal: %v, %d, %v; want 0, 0, nil", mean, n, err)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	run := func(i int, kind string, state sched.State, d time.Duration) {
		job := &sched.Job{Key: fmt.Sprintf("b/%d", i), Kind: kind}
		if _, err := j.Enqueue(ctx, []*sched.Job{job}); err != nil {
			t.Fatal(err)
		}
		if _, err := j.Claim(ctx, job, "local", start); err != nil {
			t.Fatal(err)
		}
		if err := j.Finish(ctx, sched.Attempt{Job: job, Backend: "local", Attempt: job.Attempts,
			State: state, Started: start, Finished: start.Add(d)}); err != nil {
			t.Fatal(err)
		}
	}
	run(1, "convert-office", sched.StateDone, 10*time.Second) // older than the last 3
	run(2, "convert-office", sched.StateDone, 100*time.Millisecond)
	run(3, "convert-office", sched.StateFailed, time.Minute)
	run(4, "convert-image", sched.StateDone, time.Minute)
	run(5, "convert-office", sched.StateDone, 200*time.Millisecond)
	run(6, "convert-office", sched.StateDone, 300*time.Millisecond)
	mean, n, err := j.MeanRunSeconds(ctx, "convert-office", 3)
	if err != nil || n != 3 || math.Abs(mean-0.2) > 1e-9 {
		t.Errorf("MeanRunSeconds(last 3) = %v, %d, %v; want 0.2, 3, nil", mean, n, err)
	}
}
