package sched

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestRetryAvoidsFailedBackend: a job that failed on a backend is retried
// on another when one takes its kind, even when marginal-rate dispatch
// rates the failing backend best (a dead device fails fast, so its
// learned service time is short); with no other backend it is retried
// where it failed.
func TestRetryAvoidsFailedBackend(t *testing.T) {
	tests := []struct {
		name       string
		backends   int // 1: only the failing one; 2: a slow good one beside it
		wantDone   int
		wantOnGood int64
	}{
		{name: "another backend takes the retry", backends: 2, wantDone: 1, wantOnGood: 1},
		{name: "the only backend takes it again", backends: 1, wantDone: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var failed, good atomic.Int64
				dead := WorkerFunc(func(context.Context, *Job) error {
					failed.Add(1)
					return errors.New("modem closed")
				})
				bs := []Backend{{Name: "dead", Workers: []Worker{dead}}}
				if tt.backends == 2 {
					bs = append(bs, Backend{Name: "good", Workers: []Worker{sleeper(time.Second, &good)}})
				}
				e := newTestEngine(t, EngineOptions{Backoff: Backoff{Base: time.Millisecond}, FailLimit: 100, Backends: bs})
				e.Start()
				// Teach the engine that dead is fast and good slow.
				var warm []*Job
				for range 3 {
					warm = append(warm, &Job{Kind: "k", Backend: "dead"})
				}
				if tt.backends == 2 {
					warm = append(warm, &Job{Kind: "k", Backend: "good"})
				}
				if err := e.Submit(context.Background(), warm...); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				good.Store(0)
				before := failed.Load()
				if err := e.Submit(context.Background(), &Job{Kind: "k", Retries: 2}); err != nil {
					t.Fatal(err)
				}
				sum := wait(t, e)
				if got := int(sum.Done) - boolInt(tt.backends == 2); got != tt.wantDone {
					t.Errorf("the retried job: %d done (summary %+v), want %d", got, sum, tt.wantDone)
				}
				if got := good.Load(); got != tt.wantOnGood {
					t.Errorf("the good backend ran %d attempts of it, want %d (the dead one ran %d)", got, tt.wantOnGood, failed.Load()-before)
				}
			})
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
