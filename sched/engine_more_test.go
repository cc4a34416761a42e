package sched

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestTimeout: an attempt past its timeout has its context cancelled with
// cause ErrTimeout, is recorded timed out, and is retried while its budget
// lasts.
func TestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := NewManualClock(time.Unix(0, 0))
		var causes []error
		rec := &recorder{do: func(ctx context.Context, j *Job) error {
			<-ctx.Done()
			causes = append(causes, context.Cause(ctx))
			return ctx.Err()
		}}
		var events []Event
		var mu sync.Mutex
		e := newTestEngine(t, EngineOptions{Clock: clk, Backoff: Backoff{Base: time.Second, Jitter: -1},
			Backends: []Backend{{Name: "b", Workers: []Worker{rec}}},
			Events:   func(ev Event) { mu.Lock(); events = append(events, ev); mu.Unlock() }})
		e.Start()
		if err := e.Submit(context.Background(), &Job{Kind: "k", Timeout: 5 * time.Second, Retries: 1}); err != nil {
			t.Fatal(err)
		}
		for range 3 { // timeout, backoff, timeout
			synctest.Wait()
			next, _ := clk.Next()
			clk.Set(next)
		}
		sum := wait(t, e)
		if sum.TimedOut != 1 || sum.Retries != 1 || len(causes) != 2 {
			t.Fatalf("summary %+v after %d attempts, want 1 timed out after 1 retry", sum, len(causes))
		}
		for _, c := range causes {
			if !errors.Is(c, ErrTimeout) {
				t.Errorf("cause %v, want ErrTimeout", c)
			}
		}
		last := events[len(events)-1]
		if last.Type != EventTimedOut || last.Reason != "timeout" || last.Run != 5*time.Second {
			t.Errorf("last event %+v, want timed_out after 5s", last)
		}
	})
}

// TestPermanentNotRetried: a permanent error fails the job at once.
func TestPermanentNotRetried(t *testing.T) {
	rec := &recorder{do: func(context.Context, *Job) error { return Permanent(errors.New("bad input")) }}
	e := newTestEngine(t, EngineOptions{Backends: []Backend{{Name: "b", Workers: []Worker{rec}}}})
	e.Start()
	if err := e.Submit(context.Background(), &Job{Kind: "k", Retries: 3}); err != nil {
		t.Fatal(err)
	}
	if sum := wait(t, e); sum.Failed != 1 || sum.Retries != 0 || len(rec.jobs()) != 1 {
		t.Errorf("summary %+v after %d attempts, want 1 failed, no retry", sum, len(rec.jobs()))
	}
}

// TestSubmitRejects: a job no backend serves is rejected by name; the rest
// of the batch runs.
func TestSubmitRejects(t *testing.T) {
	rec := &recorder{}
	e := newTestEngine(t, EngineOptions{Backends: []Backend{{Name: "b", Kinds: []string{"pdf"}, Workers: []Worker{rec}}}})
	e.Start()
	err := e.Submit(context.Background(), &Job{Key: "a", Kind: "pdf"}, &Job{Key: "z", Kind: "sms"}, &Job{Key: "c", Kind: "pdf", Class: 9})
	if !errors.Is(err, ErrNoBackend) {
		t.Errorf("error %v, want ErrNoBackend", err)
	}
	if sum := wait(t, e); sum.Done != 1 || sum.Submitted != 1 {
		t.Errorf("summary %+v, want the one good job done", sum)
	}
}

// sleeper is a worker whose jobs take d (fake time under synctest).
func sleeper(d time.Duration, n *atomic.Int64) Worker {
	return WorkerFunc(func(ctx context.Context, j *Job) error {
		n.Add(1)
		time.Sleep(d)
		return nil
	})
}

// TestMarginalRateDispatch: with jobs arriving faster than the slow backend
// serves them, marginal-rate dispatch sends most work to the faster of two
// backends and finishes sooner than round-robin.
func TestMarginalRateDispatch(t *testing.T) {
	type outcome struct {
		fast, slow int64
		makespan   time.Duration
	}
	run := func(d Dispatch) (o outcome) {
		synctest.Test(t, func(t *testing.T) {
			var fast, slow atomic.Int64
			e := newTestEngine(t, EngineOptions{Dispatch: d, Backends: []Backend{
				{Name: "slow", Workers: []Worker{sleeper(40*time.Millisecond, &slow)}},
				{Name: "fast", Workers: []Worker{sleeper(10*time.Millisecond, &fast)}},
			}})
			e.Start()
			start := time.Now()
			for range 200 {
				if err := e.Submit(context.Background(), &Job{Kind: "k"}); err != nil {
					t.Fatal(err)
				}
				time.Sleep(12 * time.Millisecond)
			}
			wait(t, e)
			o = outcome{fast.Load(), slow.Load(), time.Since(start)}
		})
		return o
	}
	mr, rr := run(MarginalRate), run(RoundRobin)
	t.Logf("marginal-rate: fast %d slow %d in %v; round-robin: fast %d slow %d in %v", mr.fast, mr.slow, mr.makespan, rr.fast, rr.slow, rr.makespan)
	if share := float64(mr.fast) / 200; share < 0.7 {
		t.Errorf("marginal-rate gave the fast backend %.0f%% of jobs, want ≥ 70%%", 100*share)
	}
	if mr.makespan >= rr.makespan {
		t.Errorf("marginal-rate makespan %v, want shorter than round-robin's %v", mr.makespan, rr.makespan)
	}
}

// TestFailureIsolation: a backend failing one kind five times in a row
// stops taking it, says so, and the jobs finish on the other backend.
func TestFailureIsolation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		broken := WorkerFunc(func(context.Context, *Job) error { return errors.New("disk full") })
		var good atomic.Int64
		var disabled []Event
		var mu sync.Mutex
		e := newTestEngine(t, EngineOptions{Dispatch: RoundRobin, Backoff: Backoff{Base: time.Millisecond},
			Events: func(ev Event) {
				if ev.Type == EventKindDisabled {
					mu.Lock()
					disabled = append(disabled, ev)
					mu.Unlock()
				}
			},
			Backends: []Backend{
				{Name: "broken", Workers: []Worker{broken}},
				{Name: "good", Workers: []Worker{sleeper(time.Millisecond, &good)}},
			}})
		e.Start()
		var jobs []*Job
		for range 40 {
			jobs = append(jobs, &Job{Kind: "k", Retries: 3})
		}
		if err := e.Submit(context.Background(), jobs...); err != nil {
			t.Fatal(err)
		}
		sum := wait(t, e)
		if sum.Done != 40 {
			t.Errorf("summary %+v, want all 40 done", sum)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(disabled) != 1 || disabled[0].Backend != "broken" {
			t.Errorf("kind_disabled events %+v, want one for backend broken", disabled)
		}
	})
}

// TestCooldown: a backend taken out after failures in a row gets the kind
// back after the cooldown (half-open); one more failure takes it out again
// at once, and a success keeps it in.
func TestCooldown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var healed atomic.Bool
		var flakyRan, good atomic.Int64
		flaky := WorkerFunc(func(context.Context, *Job) error {
			flakyRan.Add(1)
			time.Sleep(time.Millisecond)
			if healed.Load() {
				return nil
			}
			return errors.New("no carrier")
		})
		var mu sync.Mutex
		var types []EventType
		e := newTestEngine(t, EngineOptions{Dispatch: RoundRobin, Backoff: Backoff{Base: time.Millisecond, Jitter: -1},
			Cooldown: time.Minute,
			Events: func(ev Event) {
				if ev.Backend == "flaky" && (ev.Type == EventKindDisabled || ev.Type == EventKindEnabled) {
					mu.Lock()
					types = append(types, ev.Type)
					mu.Unlock()
				}
			},
			Backends: []Backend{
				{Name: "flaky", Workers: []Worker{flaky}},
				{Name: "good", Workers: []Worker{sleeper(time.Millisecond, &good)}},
			}})
		e.Start()
		batch := func() {
			t.Helper()
			var jobs []*Job
			for range 20 {
				jobs = append(jobs, &Job{Kind: "k", Retries: 3})
			}
			if err := e.Submit(context.Background(), jobs...); err != nil {
				t.Fatal(err)
			}
			if _, err := e.Wait(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		batch() // flaky fails 5 in a row and is taken out
		if n := flakyRan.Load(); n != 5 {
			t.Fatalf("flaky ran %d attempts before it was taken out, want 5", n)
		}
		time.Sleep(time.Minute + time.Second)
		batch() // half-open: one failure takes it out again
		if n := flakyRan.Load(); n != 6 {
			t.Fatalf("flaky ran %d attempts in all, want 6: one after the cooldown", n)
		}
		time.Sleep(time.Minute + time.Second)
		healed.Store(true)
		batch() // half-open, and it works now: it stays in
		if n := flakyRan.Load(); n < 6+5 {
			t.Errorf("flaky ran %d attempts in all, want it to take about half of the last 20", n)
		}
		mu.Lock()
		defer mu.Unlock()
		want := []EventType{EventKindDisabled, EventKindEnabled, EventKindDisabled, EventKindEnabled}
		if !slices.Equal(types, want) {
			t.Errorf("flaky's events %v, want %v", types, want)
		}
	})
}

// TestHealthDown: a backend whose health check fails is marked down and its
// queued jobs move to the other backend.
func TestHealthDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var a, b atomic.Int64
		healthy := atomic.Bool{}
		e := newTestEngine(t, EngineOptions{Dispatch: RoundRobin, Backends: []Backend{
			{Name: "a", Workers: []Worker{sleeper(10*time.Millisecond, &a)}, HealthEvery: 50 * time.Millisecond,
				Health: func(context.Context) error {
					if healthy.Load() {
						return nil
					}
					return errors.New("soffice not answering")
				}},
			{Name: "b", Workers: []Worker{sleeper(10*time.Millisecond, &b)}},
		}})
		healthy.Store(true)
		e.Start()
		synctest.Wait()
		var jobs []*Job
		for range 20 {
			jobs = append(jobs, &Job{Kind: "k"})
		}
		if err := e.Submit(context.Background(), jobs...); err != nil {
			t.Fatal(err)
		}
		healthy.Store(false)
		sum := wait(t, e)
		if sum.Done != 20 {
			t.Fatalf("summary %+v, want 20 done", sum)
		}
		if a.Load() >= 10 || b.Load() <= 10 {
			t.Errorf("a ran %d, b ran %d: want a's queue moved to b once a was down", a.Load(), b.Load())
		}
	})
}

// TestHealthDownPinned: jobs pinned to a backend that goes down while they
// wait in its queue fail with ErrNoBackend, naming the backend, instead of
// waiting for it; unpinned ones move to the other backend.
func TestHealthDownPinned(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var a, b, pinnedRan atomic.Int64
		healthy := atomic.Bool{}
		var mu sync.Mutex
		var failed []Event
		onA := WorkerFunc(func(ctx context.Context, j *Job) error {
			a.Add(1)
			if j.Backend == "a" {
				pinnedRan.Add(1)
			}
			time.Sleep(10 * time.Millisecond)
			return nil
		})
		e := newTestEngine(t, EngineOptions{Dispatch: RoundRobin, Backends: []Backend{
			{Name: "a", Workers: []Worker{onA}, HealthEvery: 50 * time.Millisecond,
				Health: func(context.Context) error {
					if healthy.Load() {
						return nil
					}
					return errors.New("modem vanished")
				}},
			{Name: "b", Workers: []Worker{sleeper(10*time.Millisecond, &b)}},
		}, Events: func(ev Event) {
			if ev.Type == EventFailed {
				mu.Lock()
				failed = append(failed, ev)
				mu.Unlock()
			}
		}})
		healthy.Store(true)
		e.Start()
		synctest.Wait()
		var jobs []*Job
		for i := range 20 {
			j := &Job{Kind: "k"}
			if i%2 == 0 {
				j.Backend = "a"
			}
			jobs = append(jobs, j)
		}
		if err := e.Submit(context.Background(), jobs...); err != nil {
			t.Fatal(err)
		}
		healthy.Store(false)
		sum := wait(t, e)
		mu.Lock()
		defer mu.Unlock()
		if sum.Done+sum.Failed != 20 || sum.Failed == 0 {
			t.Fatalf("summary %+v, want all 20 settled, some pinned ones failed", sum)
		}
		if int(pinnedRan.Load())+len(failed) != 10 || a.Load()+b.Load() != int64(sum.Done) {
			t.Errorf("%d pinned jobs ran and %d failed, want the 10 to do one or the other; a ran %d, b %d, summary %+v",
				pinnedRan.Load(), len(failed), a.Load(), b.Load(), sum)
		}
		for _, ev := range failed {
			if ev.Job.Backend != "a" || !errors.Is(ev.Err, ErrNoBackend) || !strings.Contains(ev.Err.Error(), "backend a") {
				t.Errorf("failed %+v: want only jobs pinned to a, with ErrNoBackend naming it", ev)
			}
		}
	})
}

// TestStopCancelsRunning: a stop cancels running jobs with ErrStopped,
// records them cancelled and leaves the queued ones not run.
func TestStopCancelsRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var causes atomic.Int64
		block := WorkerFunc(func(ctx context.Context, j *Job) error {
			<-ctx.Done()
			if errors.Is(context.Cause(ctx), ErrStopped) {
				causes.Add(1)
			}
			return ctx.Err()
		})
		e := newTestEngine(t, EngineOptions{Backends: []Backend{{Name: "b", Workers: []Worker{block, block}}}})
		e.Start()
		var jobs []*Job
		for range 5 {
			jobs = append(jobs, &Job{Kind: "k", Retries: 3})
		}
		if err := e.Submit(context.Background(), jobs...); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(errors.New("interrupt"))
		sum, err := e.Wait(ctx)
		if err == nil {
			t.Error("Wait after cancel returned no error")
		}
		if sum.Cancelled != 2 || sum.NotRun != 3 || causes.Load() != 2 || !sum.Settled() {
			t.Errorf("summary %+v with %d ErrStopped causes, want 2 cancelled, 3 not run", sum, causes.Load())
		}
	})
}

// TestDelayedStart: a job with a not-before time waits in the timer queue
// until the clock reaches it.
func TestDelayedStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		clk := NewManualClock(t0)
		var at time.Time
		rec := &recorder{do: func(context.Context, *Job) error { at = clk.Now(); return nil }}
		e := newTestEngine(t, EngineOptions{Clock: clk, Backends: []Backend{{Name: "b", Workers: []Worker{rec}}}})
		e.Start()
		if err := e.Submit(context.Background(), &Job{Kind: "k", NotBefore: t0.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if n := len(rec.jobs()); n != 0 {
			t.Fatalf("%d jobs ran before their time", n)
		}
		clk.Advance(59 * time.Minute)
		synctest.Wait()
		if n := len(rec.jobs()); n != 0 {
			t.Fatalf("%d jobs ran a minute early", n)
		}
		clk.Advance(time.Minute)
		wait(t, e)
		if !at.Equal(t0.Add(time.Hour)) {
			t.Errorf("job ran at %v, want %v", at, t0.Add(time.Hour))
		}
	})
}

// TestTimeoutSparesNextJob: a worker's context is reused from job to job
// until cancelled; after a timeout the next job gets a fresh one.
func TestTimeoutSparesNextJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := NewManualClock(time.Unix(0, 0))
		w := WorkerFunc(func(ctx context.Context, j *Job) error {
			if j.Key == "slow" {
				<-ctx.Done()
				return ctx.Err()
			}
			return ctx.Err() // nil unless a stale cancellation leaked in
		})
		e := newTestEngine(t, EngineOptions{Clock: clk, Backends: []Backend{{Name: "b", Workers: []Worker{w}}}})
		e.Start()
		if err := e.Submit(context.Background(), &Job{Key: "slow", Kind: "k", Timeout: time.Second},
			&Job{Key: "next", Kind: "k", Timeout: time.Hour}, &Job{Key: "last", Kind: "k"}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		clk.Advance(time.Second)
		sum := wait(t, e)
		if sum.TimedOut != 1 || sum.Done != 2 {
			t.Errorf("summary %+v, want the slow job timed out and the other two done", sum)
		}
	})
}

// TestWorkerTimeout: a worker that keeps its own clock and returns an
// error wrapping ErrTimeout has its attempt recorded as timed out, not
// failed.
func TestWorkerTimeout(t *testing.T) {
	rec := &recorder{do: func(context.Context, *Job) error {
		return fmt.Errorf("convert: %w after 3s", ErrTimeout)
	}}
	var mu sync.Mutex
	var events []Event
	e := newTestEngine(t, EngineOptions{Backends: []Backend{{Name: "b", Workers: []Worker{rec}}},
		Events: func(ev Event) { mu.Lock(); events = append(events, ev); mu.Unlock() }})
	e.Start()
	if err := e.Submit(context.Background(), &Job{Kind: "k"}); err != nil {
		t.Fatal(err)
	}
	sum := wait(t, e)
	if sum.TimedOut != 1 || sum.Failed != 0 {
		t.Fatalf("summary %+v, want 1 timed out and none failed", sum)
	}
	mu.Lock()
	defer mu.Unlock()
	if last := events[len(events)-1]; last.Type != EventTimedOut || !strings.Contains(last.Err.Error(), "after 3s") {
		t.Errorf("last event %+v, want timed_out keeping the worker's message", last)
	}
}

// TestWorkerTimeoutPermanent: a timeout the worker marks permanent (a
// document that hangs its converter every time) is not retried, whatever
// the job's retry budget; a plain timeout is.
func TestWorkerTimeoutPermanent(t *testing.T) {
	for _, tt := range []struct {
		name      string
		err       error
		wantTries int
	}{
		{"permanent", Permanent(fmt.Errorf("convert: %w after 3s", ErrTimeout)), 1},
		{"transient", fmt.Errorf("convert: %w after 3s", ErrTimeout), 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			tries := 0
			rec := &recorder{do: func(context.Context, *Job) error {
				mu.Lock()
				tries++
				mu.Unlock()
				return tt.err
			}}
			e := newTestEngine(t, EngineOptions{Backends: []Backend{{Name: "b", Workers: []Worker{rec}}},
				Backoff: Backoff{Base: time.Millisecond}})
			e.Start()
			if err := e.Submit(context.Background(), &Job{Kind: "k", Retries: 2}); err != nil {
				t.Fatal(err)
			}
			sum := wait(t, e)
			mu.Lock()
			defer mu.Unlock()
			if sum.TimedOut != 1 || tries != tt.wantTries {
				t.Errorf("summary %+v after %d tries, want 1 timed out after %d", sum, tries, tt.wantTries)
			}
		})
	}
}
