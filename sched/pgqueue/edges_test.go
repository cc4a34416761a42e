package pgqueue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"calq/internal/pgtest"
	"calq/sched"
	"calq/sched/history"
)

// TestEdges runs the shared queue's edges on one server: re-runs and
// generations, claims by share, live workers by kind, the stable worker
// name, and the upgrade of a version 1 schema.
func TestEdges(t *testing.T) {
	srv := pgtest.Start(t)
	t.Run("rerun", func(t *testing.T) { testRerun(t, emptyDB(t, srv.URL, "rerun")) })
	t.Run("shares", func(t *testing.T) { testShares(t, emptyDB(t, srv.URL, "shares")) })
	t.Run("unserved", func(t *testing.T) { testUnserved(t, emptyDB(t, srv.URL, "unserved")) })
	t.Run("upgrade", func(t *testing.T) { testUpgrade(t, emptyDB(t, srv.URL, "upgrade")) })
}

// echo is a handler that counts its runs by key.
func echo(ran chan<- string) sched.Worker {
	return sched.WorkerFunc(func(ctx context.Context, j *sched.Job) error {
		ran <- j.Key
		SetResult(ctx, j.Payload)
		return nil
	})
}

// testRerun: the same batch name after its jobs ended is the same batch
// (submitting again adds nothing and runs nothing; its results are all
// there to follow); fresh starts a new generation; a batch that prune
// emptied starts anew.
func testRerun(t *testing.T, url string) {
	q := open(t, url, 0)
	ctx := context.Background()
	batch, err := q.Batch(ctx, "nightly", false)
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan string, 100)
	w := q.NewWorker(WorkerOptions{Jobs: 2, Name: "box"})
	w.Handle("echo", echo(ran))
	stop := runWorker(t, w)
	js := jobs(batch, "echo", 3, sched.P2, func(i int) string { return fmt.Sprint(i) })
	if n, err := q.Submit(ctx, batch, js); err != nil || n != 3 {
		t.Fatalf("submit: %d, %v", n, err)
	}
	first := follow(t, q, batch)
	again, err := q.Batch(ctx, "nightly", false)
	if err != nil || again != batch {
		t.Fatalf("the same name after the end: %q (%v), want %q", again, err, batch)
	}
	if n, err := q.Submit(ctx, again, js); err != nil || n != 0 {
		t.Fatalf("submit again: %d new (%v), want 0", n, err)
	}
	second := follow(t, q, again)
	if len(first) != 3 || len(second) != 3 {
		t.Errorf("followed %d then %d attempts, want 3 both times", len(first), len(second))
	}
	for _, u := range second {
		if !u.Final || u.State != sched.StateDone || string(u.Result) != string(u.Payload) || u.Worker != "box" {
			t.Errorf("collected %+v: want done, its result, worker box", u)
		}
	}
	states, err := q.States(ctx, []string{js[0].Key, "nightly#9/1"})
	if err != nil || len(states) != 1 || states[js[0].Key] != sched.StateDone {
		t.Errorf("States: %v (%v), want only %s done", states, err, js[0].Key)
	}
	// The worker restarts under the same name.
	stop()
	w2 := q.NewWorker(WorkerOptions{Jobs: 2, Name: "box"})
	w2.Handle("echo", echo(ran))
	runWorker(t, w2)
	if w2.ID() == w.ID() || !strings.HasPrefix(w2.ID(), "box:") {
		t.Errorf("ids %s and %s: want two runs of box", w.ID(), w2.ID())
	}
	fresh, err := q.Batch(ctx, "nightly", true)
	if err != nil || fresh == batch {
		t.Fatalf("fresh: %q (%v), want a new generation", fresh, err)
	}
	if n, err := q.Submit(ctx, fresh, jobs(fresh, "echo", 3, sched.P2, func(int) string { return "" })); err != nil || n != 3 {
		t.Fatalf("submit fresh: %d, %v", n, err)
	}
	follow(t, q, fresh)
	if got := len(ran); got != 6 {
		t.Errorf("%d runs, want 6: 3 of the first generation, none for its re-run, 3 forced", got)
	}
	// The stats group by the worker's name, not by its run.
	st, err := q.Stats(ctx, history.Filter{Kind: "echo"})
	if err != nil || len(st.Groups) != 1 || st.Groups[0].Backend != "box" || st.Groups[0].Jobs != 6 {
		t.Errorf("stats: %+v (%v), want one group of worker box, 6 jobs", st.Groups, err)
	}
	if _, err := q.Prune(ctx, time.Now().Add(time.Hour), history.PruneOptions{}); err != nil {
		t.Fatal(err)
	}
	if b, err := q.Batch(ctx, "nightly", false); err != nil || b != "nightly#1" {
		t.Errorf("after prune: %q (%v), want nightly#1 anew", b, err)
	}
}

// testShares: a job submitted on a share goes only to a worker that
// mounts it; one without a share goes to any.
func testShares(t *testing.T, url string) {
	q := open(t, url, 0)
	ctx := context.Background()
	batch, _ := q.Batch(ctx, "shares", false)
	ran := map[string]chan string{"a": make(chan string, 10), "b": make(chan string, 10), "none": make(chan string, 10)}
	for name, shares := range map[string][]string{"a": {"share-a"}, "b": {"share-b"}, "none": nil} {
		// A pool each, as each machine has: a worker holds a connection
		// to listen on.
		w := open(t, url, 0).NewWorker(WorkerOptions{Jobs: 4, Name: name, Shares: shares})
		w.Handle("echo", echo(ran[name]))
		runWorker(t, w)
	}
	for _, share := range []string{"share-a", "share-b"} {
		js := jobs(batch+"/"+share, "echo", 4, sched.P2, func(int) string { return "" })
		if _, err := q.SubmitOn(ctx, batch, share, js); err != nil {
			t.Fatal(err)
		}
	}
	for _, u := range follow(t, q, batch) {
		want := map[bool]string{true: "a", false: "b"}[strings.Contains(u.Key, "share-a")]
		if u.Worker != want || u.State != sched.StateDone {
			t.Errorf("%s: %s on %s, want done on %s", u.Key, u.State, u.Worker, want)
		}
	}
	if n := len(ran["none"]); n != 0 {
		t.Errorf("the worker without shares ran %d jobs on shares", n)
	}
}

// testUnserved: a submitter learns at once which kinds (on which share)
// no live worker takes; a stopped worker, or one limited to another
// batch, does not count.
func testUnserved(t *testing.T, url string) {
	q := open(t, url, 0)
	ctx := context.Background()
	check := func(kinds []string, share string, want []string) {
		t.Helper()
		err := q.Unserved(ctx, kinds, share)
		var nw *NoWorkerError
		switch {
		case want == nil && err != nil:
			t.Errorf("Unserved(%v, %q): %v, want nil", kinds, share, err)
		case want != nil && (!errors.As(err, &nw) || !errors.Is(err, ErrNoWorker) || !slices.Equal(nw.Kinds, want)):
			t.Errorf("Unserved(%v, %q): %v, want %v missing", kinds, share, err, want)
		}
	}
	check([]string{"shell"}, "", []string{"shell"})
	own := q.NewWorker(WorkerOptions{Batch: "someone#1"})
	own.Handle("shell", echo(make(chan string, 1)))
	stopOwn := runWorker(t, own)
	w := q.NewWorker(WorkerOptions{Shares: []string{"s1"}})
	w.Handle("convert-office", echo(make(chan string, 1)))
	stop := runWorker(t, w)
	for {
		ws, err := q.Workers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ws) == 2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	check([]string{"shell"}, "", []string{"shell"}) // only a submitter's own
	check([]string{"convert-office"}, "", nil)
	check([]string{"convert-office"}, "s1", nil)
	check([]string{"convert-image", "convert-office"}, "s2", []string{"convert-image", "convert-office"})
	if err := q.Unserved(ctx, []string{"convert-office"}, "s2"); err == nil || !strings.Contains(err.Error(), "share s2") ||
		!strings.Contains(err.(*NoWorkerError).Hint(), "--shared-root") {
		t.Errorf("a share no worker mounts: %v", err)
	}
	stop()
	stopOwn()
	check([]string{"convert-office"}, "", []string{"convert-office"})
}

// testUpgrade: a version 1 database's rows of kind convert take their
// file's kind, and its workers their host's name.
func testUpgrade(t *testing.T, url string) {
	ctx := context.Background()
	q := open(t, url, 0)
	_, err := q.pool.Exec(ctx, `DROP TABLE jobs, attempts, batches, class_tags, workers, blobs CASCADE;
		DROP SEQUENCE calq_seq; DELETE FROM calq_schema`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.pool.Exec(ctx, migrations[0]); err != nil {
		t.Fatal(err)
	}
	_, err = q.pool.Exec(ctx, `INSERT INTO calq_schema VALUES ('sched', 1);
		INSERT INTO jobs (key, kind, class, tag, payload, state) VALUES
			('b#1/1', 'convert', 2, 1, '{"name":"a.docx","kind":1}', 'queued'),
			('b#1/2', 'convert', 2, 2, '{"name":"b.png","kind":2}', 'queued'),
			('b#1/3', 'convert', 2, 3, '{"name":"c.pdf","kind":3}', 'done'),
			('b#1/4', 'shell', 2, 4, '{"kind":2,"command":"true"}', 'queued');
		INSERT INTO workers (id, host, pid, kinds, slots, stopped) VALUES ('old:1:ab', 'old', 1, '{convert}', 1, now())`)
	if err != nil {
		t.Fatal(err)
	}
	q2 := open(t, url, 0)
	rows, err := q2.pool.Query(ctx, `SELECT key || ' ' || kind FROM jobs ORDER BY key`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var s string
		rows.Scan(&s)
		got = append(got, s)
	}
	want := []string{"b#1/1 convert-office", "b#1/2 convert-image", "b#1/3 convert-pdf", "b#1/4 shell"}
	if !slices.Equal(got, want) {
		t.Errorf("kinds after the upgrade: %q, want %q", got, want)
	}
	var name string
	if err := q2.pool.QueryRow(ctx, `SELECT name FROM workers WHERE id = 'old:1:ab'`).Scan(&name); err != nil || name != "old" {
		t.Errorf("the old worker's name: %q (%v), want its host", name, err)
	}
}
