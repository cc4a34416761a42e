package pgqueue

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"calq/internal/pgtest"
	"calq/sched"
)

func open(t *testing.T, url string, lease time.Duration) *Queue {
	t.Helper()
	q, err := Open(context.Background(), url, Options{Lease: lease})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	return q
}

func jobs(batch, kind string, n int, class sched.Class, payload func(i int) string) []*sched.Job {
	js := make([]*sched.Job, n)
	for i := range js {
		js[i] = &sched.Job{Key: fmt.Sprintf("%s/%s/%d", batch, class, i+1), Kind: kind, Class: class,
			Payload: []byte(payload(i))}
	}
	return js
}

// runWorker runs w until stop is called, failing the test on its error.
func runWorker(t *testing.T, w *Worker) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("worker %s: %v", w.ID(), err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

func follow(t *testing.T, q *Queue, batch string) []Update {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var us []Update
	if err := q.Follow(ctx, batch, func(u Update) { us = append(us, u) }); err != nil {
		t.Fatalf("follow %s: %v (have %d updates)", batch, err, len(us))
	}
	return us
}

// TestQueue runs the queue's contract on one server: subtests share it.
func TestQueue(t *testing.T) {
	srv := pgtest.Start(t)
	t.Run("migrate", func(t *testing.T) { testMigrate(t, srv.URL) })
	t.Run("run", func(t *testing.T) { testRun(t, srv.URL) })
	t.Run("retry", func(t *testing.T) { testRetry(t, srv.URL) })
	t.Run("fair", func(t *testing.T) { testFair(t, srv.URL) })
	t.Run("faillimit", func(t *testing.T) { testFailLimit(t, srv.URL) })
	t.Run("leaselost", func(t *testing.T) { testLeaseLost(t, srv.URL) })
	t.Run("resubmit", func(t *testing.T) { testResubmit(t, srv.URL) })
	t.Run("poison", func(t *testing.T) { testPoison(t, srv.URL) })
	t.Run("history", func(t *testing.T) { testHistory(t, emptyDB(t, srv.URL, "history")) })
}

// emptyDB creates database name on the server at url and returns its URL.
func emptyDB(t *testing.T, url, name string) string {
	q := open(t, url, 0)
	if _, err := q.pool.Exec(context.Background(), "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	return strings.Replace(url, "/postgres?", "/"+name+"?", 1)
}

func testMigrate(t *testing.T, url string) {
	q := open(t, url, 0)
	q2 := open(t, url, 0) // a second Open finds the schema in place
	var v int
	if err := q2.pool.QueryRow(context.Background(), `SELECT version FROM calq_schema WHERE component = 'sched'`).Scan(&v); err != nil || v != len(migrations) {
		t.Fatalf("schema version %d (%v), want %d", v, err, len(migrations))
	}
	if _, err := q.pool.Exec(context.Background(), `UPDATE calq_schema SET version = 99 WHERE component = 'sched'`); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), url, Options{})
	if err == nil || !strings.Contains(err.Error(), "schema version 99 is newer") {
		t.Errorf("Open of a newer schema: %v", err)
	}
	if _, err := q.pool.Exec(context.Background(), `UPDATE calq_schema SET version = $1 WHERE component = 'sched'`, len(migrations)); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), "postgres://calq@127.0.0.1:1/x?sslmode=disable&connect_timeout=1", Options{}); err == nil {
		t.Error("Open of a closed port succeeded")
	}
}

func testRun(t *testing.T, url string) {
	q := open(t, url, 0)
	ctx := context.Background()
	batch, err := q.Batch(ctx, "run", false)
	if err != nil {
		t.Fatal(err)
	}
	const n = 60
	var ran atomic.Int64
	var ws []*Worker
	for range 2 {
		w := q.NewWorker(WorkerOptions{Jobs: 3})
		w.Handle("echo", sched.WorkerFunc(func(ctx context.Context, j *sched.Job) error {
			ran.Add(1)
			w.Output(j, []byte("out "+string(j.Payload)), nil)
			SetResult(ctx, j.Payload)
			return nil
		}))
		ws = append(ws, w)
		runWorker(t, w)
	}
	// Both registered before the jobs come, so that both are listed
	// below however fast the first one is.
	for {
		live := 0
		all, err := q.Workers(ctx)
		for _, s := range all {
			if s.Alive && (s.ID == ws[0].ID() || s.ID == ws[1].ID()) {
				live++
			}
		}
		if err != nil || live == 2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if added, err := q.Submit(ctx, batch, jobs(batch, "echo", n, sched.P2, func(i int) string { return fmt.Sprint(i) })); err != nil || added != n {
		t.Fatalf("submit: %d, %v", added, err)
	}
	us := follow(t, q, batch)
	seen := map[string]bool{}
	for _, u := range us {
		if !u.Final || u.State != sched.StateDone || seen[u.Key] {
			t.Errorf("update %+v: want one final done per job", u)
		}
		seen[u.Key] = true
		if string(u.Stdout) != "out "+string(u.Payload) || string(u.Result) != string(u.Payload) {
			t.Errorf("job %s: stdout %q result %q, payload %q", u.Key, u.Stdout, u.Result, u.Payload)
		}
	}
	if len(seen) != n || ran.Load() != n {
		t.Errorf("%d jobs reported, %d ran; want %d", len(seen), ran.Load(), n)
	}
	// The same name again: the batch, although it has ended, so that a
	// submitter stopped before the end collects its results; a new
	// generation only when asked for.
	if b2, err := q.Batch(ctx, "run", false); err != nil || b2 != batch {
		t.Errorf("the same name again: batch %q (%v), want %q", b2, err, batch)
	}
	if b2, err := q.Batch(ctx, "run", true); err != nil || b2 == batch {
		t.Errorf("fresh batch %q (%v), first %q", b2, err, batch)
	}
	ws2, err := q.Workers(ctx)
	listed := 0
	for _, s := range ws2 {
		if s.ID == ws[0].ID() || s.ID == ws[1].ID() {
			listed++
			if s.Kinds[0] != "echo" || s.Slots != 3 || !s.Alive {
				t.Errorf("worker status %+v", s)
			}
		}
	}
	if err != nil || listed != 2 {
		t.Fatalf("workers: %v, %v; want both", ws2, err)
	}
}

func testRetry(t *testing.T, url string) {
	q := open(t, url, 0)
	ctx := context.Background()
	batch, _ := q.Batch(ctx, "retry", false)
	js := jobs(batch, "flaky", 3, sched.P1, func(i int) string { return fmt.Sprint(i) })
	js[0].Retries = 2                     // fails twice, then succeeds
	js[1].Retries = 1                     // fails twice: failed
	js[2].Timeout = 50 * time.Millisecond // times out, no retry
	if _, err := q.Submit(ctx, batch, js); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	tries := map[string]int{}
	w := q.NewWorker(WorkerOptions{Jobs: 2, Backoff: sched.Backoff{Base: time.Millisecond, Jitter: -1}, FailLimit: -1})
	w.Handle("flaky", sched.WorkerFunc(func(ctx context.Context, j *sched.Job) error {
		mu.Lock()
		tries[j.Key]++
		n := tries[j.Key]
		mu.Unlock()
		switch string(j.Payload) {
		case "0":
			if n <= 2 {
				return errors.New("flaky")
			}
			return nil
		case "1":
			return errors.New("broken")
		}
		<-ctx.Done()
		return context.Cause(ctx)
	}))
	runWorker(t, w)
	us := follow(t, q, batch)
	final := map[string]Update{}
	attempts := map[string]int{}
	for _, u := range us {
		attempts[u.Key]++
		if u.Final {
			final[u.Key] = u
		}
	}
	want := []struct {
		state    sched.State
		attempts int
	}{{sched.StateDone, 3}, {sched.StateFailed, 2}, {sched.StateTimedOut, 1}}
	for i, w := range want {
		u := final[js[i].Key]
		if u.State != w.state || attempts[js[i].Key] != w.attempts || u.Attempt != w.attempts {
			t.Errorf("job %d: final %s at attempt %d of %d recorded, want %s at %d", i, u.State, u.Attempt, attempts[js[i].Key], w.state, w.attempts)
		}
	}
}

// testFair: three workers claim from a backlog of four classes; the
// classes' shares of the first claims are their weights' within ±5 %.
func testFair(t *testing.T, url string) {
	q := open(t, url, 0)
	ctx := context.Background()
	batch, _ := q.Batch(ctx, "fair", false)
	const per = 800
	var all []*sched.Job
	for c := sched.P0; c <= sched.P3; c++ {
		all = append(all, jobs(batch, "fair", per, c, func(int) string { return "" })...)
	}
	if _, err := q.Submit(ctx, batch, all); err != nil {
		t.Fatal(err)
	}
	const first = 1500 // P0's 800 last to about 1500 claims
	var mu sync.Mutex
	var order []sched.Class
	var wg sync.WaitGroup
	for range 3 {
		w := q.NewWorker(WorkerOptions{Jobs: 1})
		w.kinds = []string{"fair"}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				enough := len(order) >= first
				mu.Unlock()
				if enough {
					return
				}
				if _, err := w.claim(ctx, 16, nil); err != nil {
					t.Error(err)
					return
				}
				w.mu.Lock()
				got := w.ready
				w.ready = nil
				w.mu.Unlock()
				mu.Lock()
				for _, tk := range got {
					order = append(order, tk.job.Class)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	var count [sched.NumClasses]int
	for _, c := range order[:first] {
		count[c.Index()]++
	}
	for c := sched.P0; c <= sched.P3; c++ {
		want := first * c.Weight() / 7.5
		got := float64(count[c.Index()])
		if math.Abs(got-want) > 0.05*want {
			t.Errorf("%s: %v of the first %d claims, want %.0f ±5%%", c, got, first, want)
		}
	}
	t.Logf("first %d claims by class: %v", first, count)
}

// testFailLimit: a kind failing FailLimit times in a row is no longer
// claimed by that worker, while the others go on; after the cooldown one
// job of it is claimed again.
func testFailLimit(t *testing.T, url string) {
	q := open(t, url, 0)
	ctx := context.Background()
	batch, _ := q.Batch(ctx, "faillimit", false)
	js := append(jobs(batch, "bad", 8, sched.P2, func(int) string { return "" }),
		jobs(batch, "good", 4, sched.P3, func(int) string { return "" })...)
	if _, err := q.Submit(ctx, batch, js); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var events []WorkerEvent
	var bad atomic.Int64
	w := q.NewWorker(WorkerOptions{Jobs: 1, FailLimit: 3, Cooldown: 300 * time.Millisecond, Horizon: -1,
		Events: func(ev WorkerEvent) { mu.Lock(); events = append(events, ev); mu.Unlock() }})
	w.Handle("bad", sched.WorkerFunc(func(ctx context.Context, j *sched.Job) error {
		if bad.Add(1) > 4 {
			return nil // fixed after the fourth: the half-open probe succeeds
		}
		return errors.New("bad")
	}))
	w.Handle("good", sched.WorkerFunc(func(ctx context.Context, j *sched.Job) error { return nil }))
	runWorker(t, w)
	us := follow(t, q, batch)
	states := map[sched.State]int{}
	for _, u := range us {
		if u.Final {
			states[u.State]++
		}
	}
	mu.Lock()
	defer mu.Unlock()
	var kinds []string
	for _, ev := range events {
		if ev.Type == "disabled" || ev.Type == "enabled" {
			kinds = append(kinds, ev.Type+":"+ev.Kind)
		}
	}
	if fmt.Sprint(kinds) != "[disabled:bad disabled:bad enabled:bad]" {
		t.Errorf("kind events %v, want bad disabled after 3 failures, again after the failed probe, enabled after the good one", kinds)
	}
	if states[sched.StateFailed] != 4 || states[sched.StateDone] != 8 {
		t.Errorf("final states %v, want 4 failed and 8 done", states)
	}
}

// testLeaseLost: a job whose lease another worker took over is cancelled
// with ErrLeaseLost on its worker, and its end is not recorded.
func testLeaseLost(t *testing.T, url string) {
	const lease = 600 * time.Millisecond
	q := open(t, url, lease)
	ctx := context.Background()
	batch, _ := q.Batch(ctx, "leaselost", false)
	if _, err := q.Submit(ctx, batch, jobs(batch, "slow", 1, sched.P2, func(int) string { return "" })); err != nil {
		t.Fatal(err)
	}
	causes := make(chan error, 2)
	started := make(chan struct{}, 2)
	a := q.NewWorker(WorkerOptions{Name: "a"})
	a.Handle("slow", sched.WorkerFunc(func(ctx context.Context, j *sched.Job) error {
		if j.Attempts > 1 {
			return nil // a may claim the requeued job itself
		}
		started <- struct{}{}
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return context.Cause(ctx)
	}))
	stopA := runWorker(t, a)
	<-started
	// As if a's renewals had stopped: the lease runs out in the database,
	// and b, healthy for a lease, requeues the job and runs it.
	if _, err := q.pool.Exec(ctx, `UPDATE jobs SET lease_until = now() - interval '1 second' WHERE batch = $1`, batch); err != nil {
		t.Fatal(err)
	}
	b := q.NewWorker(WorkerOptions{Name: "b"})
	b.Handle("slow", sched.WorkerFunc(func(ctx context.Context, j *sched.Job) error { return nil }))
	runWorker(t, b)
	if c := <-causes; !errors.Is(c, ErrLeaseLost) {
		t.Errorf("a's job ended with cause %v, want ErrLeaseLost", c)
	}
	us := follow(t, q, batch)
	stopA()
	var rows []string
	for _, u := range us {
		rows = append(rows, fmt.Sprintf("%d:%s:%s:%v", u.Attempt, u.State, u.Reason, u.Worker == a.Name() && u.Attempt == 1))
	}
	if fmt.Sprint(rows) != "[1:cancelled:lease expired:true 2:done::false]" {
		t.Errorf("attempts %v, want a's first cancelled by the requeue (a records nothing) and a second done", rows)
	}
}

// testResubmit: submitting the same keys again adds nothing.
func testResubmit(t *testing.T, url string) {
	q := open(t, url, 0)
	ctx := context.Background()
	batch, _ := q.Batch(ctx, "again", false)
	js := jobs(batch, "x", 5, sched.P0, func(int) string { return "" })
	if n, err := q.Submit(ctx, batch, js); err != nil || n != 5 {
		t.Fatalf("submit: %d, %v", n, err)
	}
	if n, err := q.Submit(ctx, batch, js); err != nil || n != 0 {
		t.Fatalf("submit again: %d, %v; want 0 new", n, err)
	}
	if _, err := q.Submit(ctx, batch, []*sched.Job{{Kind: "x"}}); err == nil {
		t.Error("a job without a key was accepted")
	}
}

// testPoison: a job whose worker is lost at every attempt (it kills or
// hangs its worker) fails the MaxLost-th time, whatever its retries,
// instead of being requeued for ever.
func testPoison(t *testing.T, url string) {
	const lease = 600 * time.Millisecond
	q := open(t, url, lease)
	ctx := context.Background()
	batch, _ := q.Batch(ctx, "poison", false)
	js := jobs(batch, "poison", 1, sched.P2, func(int) string { return "" })
	js[0].Retries = 5 // lost attempts do not use them
	if _, err := q.Submit(ctx, batch, js); err != nil {
		t.Fatal(err)
	}
	// Each attempt is claimed by a worker that vanishes.
	for attempt := 1; attempt <= MaxLost; attempt++ {
		if _, err := q.pool.Exec(ctx, `UPDATE jobs SET state = 'running', worker = 'gone', attempts = $2,
			started = now(), lease_until = now() - interval '1 second' WHERE batch = $1`, batch, attempt); err != nil {
			t.Fatal(err)
		}
		w := q.NewWorker(WorkerOptions{})
		w.Handle("other", sched.WorkerFunc(func(ctx context.Context, j *sched.Job) error { return nil }))
		stop := runWorker(t, w)
		want := "queued"
		if attempt == MaxLost {
			want = "failed"
		}
		deadline := time.Now().Add(time.Minute)
		for {
			var state string
			if err := q.pool.QueryRow(ctx, `SELECT state FROM jobs WHERE batch = $1`, batch).Scan(&state); err != nil {
				t.Fatal(err)
			}
			if state == want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("attempt %d: the job is %s after a minute, want %s", attempt, state, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
		stop()
	}
	us := follow(t, q, batch)
	var rows []string
	for _, u := range us {
		rows = append(rows, fmt.Sprintf("%d:%s:%s:%v", u.Attempt, u.State, u.Reason, u.Final))
	}
	if fmt.Sprint(rows) != "[1:cancelled:lease expired:false 2:cancelled:lease expired:false 3:failed:lease expired:true]" {
		t.Errorf("attempts %v, want two requeued and the third failed, final", rows)
	}
	if !strings.Contains(us[len(us)-1].Err, "lost (killed, paused or cut off) 3 times") {
		t.Errorf("the last attempt's error is %q, want it to say the worker was lost 3 times", us[len(us)-1].Err)
	}
}
