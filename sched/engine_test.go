package sched

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// recorder is a worker that logs the jobs it runs, in order.
type recorder struct {
	mu   sync.Mutex
	seen []*Job
	do   func(ctx context.Context, j *Job) error
}

func (r *recorder) Run(ctx context.Context, j *Job) error {
	r.mu.Lock()
	r.seen = append(r.seen, j)
	r.mu.Unlock()
	if r.do != nil {
		return r.do(ctx, j)
	}
	return nil
}

func (r *recorder) jobs() []*Job {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Job(nil), r.seen...)
}

func newTestEngine(t *testing.T, opts EngineOptions) *Engine {
	t.Helper()
	e, err := NewEngine(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

func wait(t *testing.T, e *Engine) Summary {
	t.Helper()
	sum, err := e.Wait(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestWFQShares saturates one worker with every class backlogged and checks
// that, while all four are, each class is served in proportion to its
// weight (4/2/1/0.5) within ±5 %.
func TestWFQShares(t *testing.T) {
	rec := &recorder{}
	e := newTestEngine(t, EngineOptions{Backends: []Backend{{Name: "b", Workers: []Worker{rec}}}})
	const perClass = 2000
	var jobs []*Job
	for i := range perClass {
		for c := P0; c <= P3; c++ {
			jobs = append(jobs, &Job{Kind: "k", Class: c, Label: fmt.Sprint(i)})
		}
	}
	if err := e.Submit(context.Background(), jobs...); err != nil {
		t.Fatal(err)
	}
	e.Start()
	wait(t, e)
	// P0 drains first (its share is the largest), at dispatch 2000/(4/7.5).
	window := int(perClass / (4 / 7.5))
	var n [NumClasses]int
	for _, j := range rec.jobs()[:window] {
		n[j.Class.Index()]++
	}
	for c := P0; c <= P3; c++ {
		want := c.Weight() / 7.5
		got := float64(n[c.Index()]) / float64(window)
		if math.Abs(got-want)/want > 0.05 {
			t.Errorf("class %v: share %.4f of the first %d dispatches, want %.4f ±5%%", c, got, window, want)
		}
	}
}

// TestNoStarvation: a background job submitted behind a long backlog of
// real-time jobs still starts within a bounded number of dispatches.
func TestNoStarvation(t *testing.T) {
	rec := &recorder{}
	e := newTestEngine(t, EngineOptions{Backends: []Backend{{Name: "b", Workers: []Worker{rec}}}})
	var jobs []*Job
	for range 1000 {
		jobs = append(jobs, &Job{Kind: "k", Class: P0})
	}
	bg := &Job{Kind: "k", Class: P3}
	jobs = append(jobs, bg)
	if err := e.Submit(context.Background(), jobs...); err != nil {
		t.Fatal(err)
	}
	e.Start()
	wait(t, e)
	for i, j := range rec.jobs() {
		if j == bg {
			// P3 advances 1/0.5 = 2 per job, P0 1/4: it is due after 8 P0 jobs.
			if i > 9 {
				t.Errorf("P3 job started at dispatch %d behind 1000 P0 jobs, want ≤ 9", i)
			}
			return
		}
	}
	t.Fatal("P3 job never ran")
}

// TestRetryBackoffTiming runs a job that fails twice under a manual clock
// and checks when each retry starts: Base·2^(n-1), spread by the jitter.
func TestRetryBackoffTiming(t *testing.T) {
	tests := []struct {
		name string
		rnd  float64
		want []time.Duration // attempt start times
	}{
		{"no jitter", 0.5, []time.Duration{0, 2 * time.Second, 6 * time.Second}},
		{"jitter +20%", 1, []time.Duration{0, 2400 * time.Millisecond, 7200 * time.Millisecond}},
		{"jitter -20%", 0, []time.Duration{0, 1600 * time.Millisecond, 4800 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
				clk := NewManualClock(t0)
				var at []time.Duration
				rec := &recorder{do: func(ctx context.Context, j *Job) error {
					at = append(at, clk.Now().Sub(t0))
					if len(at) < 3 {
						return errors.New("flaky")
					}
					return nil
				}}
				e := newTestEngine(t, EngineOptions{Clock: clk, Rand: func() float64 { return tt.rnd },
					Backends: []Backend{{Name: "b", Workers: []Worker{rec}}}})
				e.Start()
				if err := e.Submit(context.Background(), &Job{Kind: "k", Retries: 3}); err != nil {
					t.Fatal(err)
				}
				for range 2 {
					synctest.Wait() // the attempt failed and the retry timer is armed
					next, ok := clk.Next()
					if !ok {
						t.Fatal("no retry timer armed")
					}
					clk.Set(next)
				}
				sum := wait(t, e)
				if fmt.Sprint(at) != fmt.Sprint(tt.want) {
					t.Errorf("attempts started at %v, want %v", at, tt.want)
				}
				if sum.Done != 1 || sum.Retries != 2 {
					t.Errorf("summary %+v, want 1 done after 2 retries", sum)
				}
			})
		})
	}
}
