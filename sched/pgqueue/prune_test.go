package pgqueue

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"calq/internal/pgtest"
	"calq/sched"
	"calq/sched/history"
)

// TestPrune runs history prune's cases on one server: batches whole,
// chunks at batch boundaries, a blob reused during a prune, an
// interrupted batch pruned while it runs, and submitter calls across
// terminated connections.
func TestPrune(t *testing.T) {
	srv := pgtest.Start(t)
	t.Run("whole", func(t *testing.T) { testPruneWhole(t, emptyDB(t, srv.URL, "whole")) })
	t.Run("chunks", func(t *testing.T) { testPruneChunks(t, emptyDB(t, srv.URL, "chunks")) })
	t.Run("blobrace", func(t *testing.T) { testBlobRace(t, emptyDB(t, srv.URL, "blobrace")) })
	t.Run("resume", func(t *testing.T) { testPruneResume(t, emptyDB(t, srv.URL, "resume")) })
	t.Run("paged", func(t *testing.T) { testFollowPaged(t, emptyDB(t, srv.URL, "paged")) })
	t.Run("terminated", func(t *testing.T) { testTerminated(t, emptyDB(t, srv.URL, "terminated")) })
}

// addJobs inserts n jobs of batch (keyed batch/<seq>, or loose/<state>/<seq>
// when batch is "") in state, finished ago (none when queued).
func addJobs(t *testing.T, q *Queue, batch string, n int, state sched.State, ago time.Duration) {
	t.Helper()
	prefix := batch
	if batch == "" {
		prefix = "loose/" + string(state)
	}
	_, err := q.pool.Exec(context.Background(), `INSERT INTO jobs (key, batch, kind, class, tag, state, finished)
		SELECT $1 || '/' || nextval('calq_seq'), $2, 'echo', 2, i, $3, CASE WHEN $3 = 'queued' THEN NULL ELSE now() - $4::interval END
		FROM generate_series(1, $5) AS i`, prefix, batch, string(state), ago, n)
	if err != nil {
		t.Fatal(err)
	}
}

func countJobs(t *testing.T, q *Queue, batch string) int {
	t.Helper()
	var n int
	if err := q.pool.QueryRow(context.Background(), `SELECT count(*) FROM jobs WHERE batch = $1`, batch).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// testPruneWhole: a batch with a job left to do keeps all its jobs; one
// that ended whole before the time goes, and so do loose ended jobs; a
// batch that ended partly after the time stays whole.
func testPruneWhole(t *testing.T, url string) {
	q := open(t, url, 0)
	ctx := context.Background()
	addJobs(t, q, "open#1", 94, sched.StateDone, 48*time.Hour)
	addJobs(t, q, "open#1", 106, sched.StateQueued, 0)
	addJobs(t, q, "ended#1", 5, sched.StateDone, 48*time.Hour)
	addJobs(t, q, "ended#1", 2, sched.StateFailed, 48*time.Hour)
	addJobs(t, q, "recent#1", 3, sched.StateDone, 48*time.Hour)
	addJobs(t, q, "recent#1", 1, sched.StateDone, time.Minute)
	addJobs(t, q, "", 4, sched.StateTimedOut, 48*time.Hour)
	before := time.Now().Add(-time.Hour)
	dry, err := q.Prune(ctx, before, history.PruneOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	var archive closingBuffer
	n, err := q.Prune(ctx, before, history.PruneOptions{Archive: &archive})
	if err != nil {
		t.Fatal(err)
	}
	if dry != 11 || n != 11 || bytes.Count(archive.Bytes(), []byte("\n")) != 11 || !archive.closed {
		t.Errorf("dry run %d, pruned %d, archived %d lines (closed %v); want 11 (ended#1's 7, 4 loose), archive closed",
			dry, n, bytes.Count(archive.Bytes(), []byte("\n")), archive.closed)
	}
	for _, tt := range []struct {
		batch string
		want  int
	}{{"open#1", 200}, {"ended#1", 0}, {"recent#1", 4}, {"", 0}} {
		if got := countJobs(t, q, tt.batch); got != tt.want {
			t.Errorf("batch %q: %d jobs left, want %d", tt.batch, got, tt.want)
		}
	}
}

type closingBuffer struct {
	bytes.Buffer
	closed bool
}

func (b *closingBuffer) Close() error { b.closed = true; return nil }

// testPruneChunks: 10k ended jobs among 20k kept go in transactions of
// about pruneChunk jobs, each holding whole batches; the time it took is
// printed, not asserted.
func testPruneChunks(t *testing.T, url string) {
	q := open(t, url, 0)
	ctx := context.Background()
	for b := range 20 {
		addJobs(t, q, fmt.Sprintf("ended%d#1", b), 300, sched.StateDone, 48*time.Hour)
		addJobs(t, q, fmt.Sprintf("open%d#1", b), 999, sched.StateDone, 48*time.Hour)
		addJobs(t, q, fmt.Sprintf("open%d#1", b), 1, sched.StateQueued, 0)
	}
	addJobs(t, q, "", 4000, sched.StateDone, 48*time.Hour)
	before := time.Now().Add(-time.Hour)
	chunks, err := q.pruneChunks(ctx, before, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	total := 0
	for i, c := range chunks {
		total += len(c.ids)
		if len(c.ids) > pruneChunk+300 {
			t.Errorf("chunk %d: %d jobs, want at most %d", i, len(c.ids), pruneChunk+300)
		}
		for _, b := range c.batches {
			seen[b]++
		}
	}
	for b, k := range seen {
		if k != 1 {
			t.Errorf("batch %s in %d chunks, want 1", b, k)
		}
	}
	if total != 10000 || len(seen) != 20 {
		t.Errorf("chunks hold %d jobs of %d batches, want 10000 of 20", total, len(seen))
	}
	start := time.Now()
	n, err := q.Prune(ctx, before, history.PruneOptions{})
	if err != nil || n != 10000 {
		t.Fatalf("Prune: %d (%v), want 10000", n, err)
	}
	t.Logf("pruned 10000 jobs of 30000 in %d transactions in %v", len(chunks), time.Since(start).Round(time.Millisecond))
	var left int
	if err := q.pool.QueryRow(ctx, `SELECT count(*) FROM jobs`).Scan(&left); err != nil || left != 20000 {
		t.Errorf("%d jobs left (%v), want 20000", left, err)
	}
}

// testBlobRace: a blob that a new job reuses survives a prune that runs
// between its PutFile and its SubmitOn, and a prune loop running beside
// the submissions (fixed seed) never leaves a job whose input is gone.
func testBlobRace(t *testing.T, url string) {
	q := open(t, url, 0)
	ctx := context.Background()
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if err := os.WriteFile(in, bytes.Repeat([]byte("calq "), 300_000), 0o600); err != nil { // 2 chunks
		t.Fatal(err)
	}
	age := func() {
		if _, err := q.pool.Exec(ctx, `UPDATE blobs SET created = now() - interval '2 days'`); err != nil {
			t.Fatal(err)
		}
		if _, err := q.pool.Exec(ctx, `UPDATE jobs SET state = 'done', finished = now() - interval '2 days'`); err != nil {
			t.Fatal(err)
		}
	}
	pruneNow := func() {
		if _, err := q.Prune(ctx, time.Now().Add(time.Hour), history.PruneOptions{}); err != nil {
			t.Error(err)
		}
	}
	check := func(i int, digest string) {
		out := filepath.Join(dir, fmt.Sprint("out", i))
		if err := q.GetFile(ctx, digest, out); err != nil {
			t.Errorf("submission %d: %v", i, err)
		}
	}
	submit := func(i int, digest string) {
		j := &sched.Job{Key: fmt.Sprintf("b%d#1/1", i), Kind: "echo", Payload: []byte(`{"input":"` + digest + `"}`)}
		if _, err := q.Submit(ctx, fmt.Sprintf("b%d#1", i), []*sched.Job{j}); err != nil {
			t.Fatal(err)
		}
	}
	// The exploit: stored long ago, reused now, pruned in between.
	d, err := q.PutFile(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	age()
	if d, err = q.PutFile(ctx, in); err != nil {
		t.Fatal(err)
	}
	pruneNow()
	submit(0, d)
	check(0, d)

	// The loop: prunes beside submissions, at points a fixed seed picks.
	rng := rand.New(rand.NewPCG(23, 6))
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
				pruneNow()
			}
		}
	}()
	for i := 1; i <= 40; i++ {
		age()
		if rng.IntN(2) == 0 {
			pruneNow()
		}
		d, err := q.PutFile(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if rng.IntN(2) == 0 {
			pruneNow()
		}
		submit(i, d)
		check(i, d)
	}
	close(stop)
	wg.Wait()
}

// testPruneResume: a batch run in rounds, each stopped after a number of
// runs a fixed seed picks, pruned while it is unfinished, then resumed
// (submitted again) runs every job once: no finished job runs again.
func testPruneResume(t *testing.T, url string) {
	// A job a stopped worker left running goes back to the queue once its
	// short lease expires.
	q := open(t, url, time.Second)
	ctx := context.Background()
	const n = 60
	rng := rand.New(rand.NewPCG(23, 7))
	var mu sync.Mutex
	finished := map[string]bool{} // recorded done before the round
	again := 0
	ran := make(chan string, n*4)
	h := sched.WorkerFunc(func(ctx context.Context, j *sched.Job) error {
		mu.Lock()
		if finished[j.Key] {
			again++
		}
		mu.Unlock()
		ran <- j.Key
		return nil
	})
	rounds := 0
	for round := 0; ; round++ {
		rounds = round
		batch, err := q.Batch(ctx, "nightly", false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := q.Submit(ctx, batch, jobs(batch, "echo", n, sched.P2, func(int) string { return "" })); err != nil {
			t.Fatal(err)
		}
		p, err := q.Progress(ctx, batch)
		if err != nil {
			t.Fatal(err)
		}
		if p.Open() == 0 {
			if p.Jobs != n || p.Done != n {
				t.Errorf("batch ended with %+v, want %d done", p, n)
			}
			break
		}
		w := q.NewWorker(WorkerOptions{Jobs: 2, Name: "box"})
		w.Handle("echo", h)
		stop := runWorker(t, w)
		for range min(1+rng.IntN(15), p.Open()) {
			<-ran
		}
		stop()
		for len(ran) > 0 { // runs past the count: not this round's wait
			<-ran
		}
		if p, err = q.Progress(ctx, batch); err != nil {
			t.Fatal(err)
		}
		if p.Open() == 0 {
			// Ended whole: a prune now would rightly start it anew.
			if p.Jobs != n || p.Done != n {
				t.Errorf("batch ended with %+v, want %d done", p, n)
			}
			break
		}
		if _, err := q.Prune(ctx, time.Now().Add(time.Hour), history.PruneOptions{}); err != nil {
			t.Fatal(err)
		}
		keys := make([]string, n)
		for i, j := range jobs(batch, "echo", n, sched.P2, func(int) string { return "" }) {
			keys[i] = j.Key
		}
		states, err := q.States(ctx, keys)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		for k, s := range states {
			finished[k] = finished[k] || s == sched.StateDone
		}
		mu.Unlock()
		if round > 1000 {
			t.Fatal("the batch did not end in 1000 rounds")
		}
	}
	if again != 0 {
		t.Errorf("%d finished jobs ran again, want 0", again)
	}
	t.Logf("%d rounds, %d finished jobs ran again", rounds, again)
}

// testFollowPaged: Follow reads a batch's attempts a page at a time (the
// outputs of a page in memory at once), and delivers each once.
func testFollowPaged(t *testing.T, url string) {
	q := open(t, url, 0)
	ctx := context.Background()
	defer func(p int) { updatesPage = p }(updatesPage)
	updatesPage = 5
	batch, err := q.Batch(ctx, "paged", false)
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan string, 100)
	w := q.NewWorker(WorkerOptions{Jobs: 2})
	w.Handle("echo", echo(ran))
	runWorker(t, w)
	if _, err := q.Submit(ctx, batch, jobs(batch, "echo", 23, sched.P2, func(i int) string { return fmt.Sprint(i) })); err != nil {
		t.Fatal(err)
	}
	us := follow(t, q, batch)
	var keys []string
	for _, u := range us {
		keys = append(keys, u.Key)
	}
	slices.Sort(keys)
	if len(us) != 23 || len(slices.Compact(keys)) != 23 {
		t.Errorf("followed %d attempts of %d jobs, want 23 of 23", len(us), len(keys))
	}
	page, _, more, err := q.updates(ctx, batch, 0, 0, updatesPage)
	if err != nil || len(page) != 5 || !more {
		t.Fatalf("a page: %d attempts (%v), more %v, want 5 and more", len(page), err, more)
	}
	next, _, _, err := q.updates(ctx, batch, 0, page[4].Seq, updatesPage)
	if err != nil || len(next) != 5 || next[0].Seq <= page[4].Seq {
		t.Errorf("the next page: %d attempts (%v), want 5 after seq %d", len(next), err, page[4].Seq)
	}

	// By bytes: with 1,000 bytes of output each and a budget of 2,500, a
	// page holds 2 attempts; with a budget below one attempt's, 1; and
	// following still delivers all 23, each once.
	if _, err := q.pool.Exec(ctx, `UPDATE attempts SET stdout = decode(repeat('78', 600), 'hex'),
		stderr = decode(repeat('78', 400), 'hex')`); err != nil {
		t.Fatal(err)
	}
	defer func(b int64) { updatesBytes = b }(updatesBytes)
	for _, c := range []struct {
		budget int64
		want   int
	}{{2500, 2}, {1000, 1}, {10, 1}, {100_000, 5}} {
		updatesBytes = c.budget
		page, _, more, err := q.updates(ctx, batch, 0, 0, updatesPage)
		if err != nil || len(page) != c.want || !more {
			t.Errorf("a page within %d bytes: %d attempts (%v), more %v, want %d and more", c.budget, len(page), err, more, c.want)
		}
	}
	updatesBytes = 2500
	if us := follow(t, q, batch); len(us) != 23 || len(us[22].Stdout) != 600 {
		t.Errorf("followed %d attempts by pages of 2, want 23 with their outputs", len(us))
	}
}

// testTerminated: the submitter's calls (PutFile, SubmitOn, States,
// Unserved, GetFile) outlast its connections being terminated (pg_terminate_backend)
// before and during them: every file is stored and read back whole.
func testTerminated(t *testing.T, url string) {
	q := open(t, url, 0)
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["application_name"] = "killer"
	killer, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer killer.Close(ctx)
	kill := func() int {
		var n int
		if err := killer.QueryRow(ctx, `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE application_name = 'calq' AND datname = current_database()`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(23, 7))
	batch, err := q.Batch(ctx, "terminated", false)
	if err != nil {
		t.Fatal(err)
	}
	killed := 0
	for i := range 6 {
		in := filepath.Join(dir, fmt.Sprint("in", i))
		if err := os.WriteFile(in, bytes.Repeat([]byte{byte('a' + i)}, 1<<20+rng.IntN(1<<21)), 0o600); err != nil {
			t.Fatal(err)
		}
		killed += kill()
		d, err := q.PutFile(ctx, in)
		if err != nil {
			t.Fatalf("PutFile %d: %v", i, err)
		}
		killed += kill()
		j := &sched.Job{Key: fmt.Sprintf("%s/%d", batch, i), Kind: "echo", Payload: []byte(d)}
		if _, err := q.Submit(ctx, batch, []*sched.Job{j}); err != nil {
			t.Fatalf("Submit %d: %v", i, err)
		}
		killed += kill()
		if _, err := q.States(ctx, []string{j.Key}); err != nil {
			t.Fatalf("States %d: %v", i, err)
		}
		killed += kill()
		// No worker runs echo here: the answer, not a lost connection.
		var nw *NoWorkerError
		if err := q.Unserved(ctx, []string{"echo"}, ""); !errors.As(err, &nw) {
			t.Fatalf("Unserved %d: %v, want a *NoWorkerError", i, err)
		}
		killed += kill()
		out := filepath.Join(dir, fmt.Sprint("out", i))
		if err := q.GetFile(ctx, d, out); err != nil {
			t.Fatalf("GetFile %d: %v", i, err)
		}
		a, _ := os.ReadFile(in)
		b, _ := os.ReadFile(out)
		if !bytes.Equal(a, b) {
			t.Errorf("file %d: read back %d bytes, want its %d", i, len(b), len(a))
		}
	}
	if killed == 0 {
		t.Error("no connection was terminated: the test proved nothing")
	}
	t.Logf("%d connections terminated", killed)
}
