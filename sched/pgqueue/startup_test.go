package pgqueue

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"calq/internal/pgdb"
	"calq/internal/pgtest"
	"calq/sched"
	"calq/sched/history"
)

// runOne submits one shell-free job of kind "echo" to a new batch name
// and runs it on a worker of q: the tables, their sequences and the
// follower's notifications all work.
func runOne(t *testing.T, q *Queue, name string) {
	t.Helper()
	ctx := context.Background()
	batch, err := q.Batch(ctx, name, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Submit(ctx, batch, jobs(batch, "echo", 1, sched.P2, func(int) string { return name })); err != nil {
		t.Fatal(err)
	}
	w := q.NewWorker(WorkerOptions{Jobs: 1})
	w.Handle("echo", sched.WorkerFunc(func(context.Context, *sched.Job) error { return nil }))
	stop := runWorker(t, w)
	defer stop()
	if us := follow(t, q, batch); len(us) != 1 || us[0].State != sched.StateDone {
		t.Fatalf("batch %s: updates %+v, want one done", batch, us)
	}
}

// TestSchema: calq's tables live in a schema of their own, beside an
// application's tables of the same names in public, and a database an
// older calq left its tables in public keeps its jobs.
func TestSchema(t *testing.T) {
	srv := pgtest.Start(t)
	ctx := context.Background()
	calqTables := []string{"attempts", "batches", "blobs", "calq_schema", "calq_seq", "class_tags", "jobs", "jobs_id_seq", "workers"}

	t.Run("own schema", func(t *testing.T) {
		url := srv.CreateDB("fresh")
		q := open(t, url, 0)
		runOne(t, q, "fresh")
		if got := pgtest.Relations(t, url, "calq"); !slices.Equal(got, calqTables) {
			t.Errorf("schema calq holds %v, want %v", got, calqTables)
		}
		if got := pgtest.Relations(t, url, "public"); len(got) != 0 {
			t.Errorf("public holds %v, want nothing of calq's", got)
		}
	})

	t.Run("foreign jobs table", func(t *testing.T) {
		url := srv.CreateDB("shop")
		pgtest.Exec(t, url, `CREATE TABLE public.jobs (id int PRIMARY KEY, customer text);
			INSERT INTO public.jobs VALUES (7, 'acme')`)
		q := open(t, url, 0)
		runOne(t, q, "beside")
		var customer string
		if err := q.pool.QueryRow(ctx, `SELECT customer FROM public.jobs WHERE id = 7`).Scan(&customer); err != nil || customer != "acme" {
			t.Errorf("the application's public.jobs: %q, %v; want its row untouched", customer, err)
		}
	})

	t.Run("tables of an older calq in public", func(t *testing.T) {
		url := srv.CreateDB("legacy")
		// search_path=public makes Open lay the tables out as calq did
		// before it had a schema: everything, calq_schema too, in public.
		old := open(t, url+"&search_path=public", 0)
		runOne(t, old, "before")
		if got := pgtest.Relations(t, url, "public"); !slices.Equal(got, calqTables) {
			t.Fatalf("the old layout: public holds %v, want %v", got, calqTables)
		}
		old.Close()

		q := open(t, url, 0)
		rs, err := q.List(ctx, history.Filter{})
		if err != nil || len(rs) != 1 || !strings.HasPrefix(rs[0].Key, "before#") || rs[0].State != sched.StateDone {
			t.Fatalf("history after the move: %+v, %v; want the old job, done", rs, err)
		}
		runOne(t, q, "after")
		if got := pgtest.Relations(t, url, "calq"); !slices.Equal(got, calqTables) {
			t.Errorf("schema calq holds %v, want %v", got, calqTables)
		}
		if got := pgtest.Relations(t, url, "public"); len(got) != 0 {
			t.Errorf("public still holds %v", got)
		}
		open(t, url, 0) // and the next Open finds them in place
	})
}

// TestOpenWaits: Open with Wait waits for a server that is down and
// reports the outage once when it begins and once when it ends; a
// database that does not exist is refused at once, without waiting.
func TestOpenWaits(t *testing.T) {
	srv := pgtest.Start(t)
	srv.Stop()
	lost, back := make(chan error, 10), make(chan time.Duration, 10)
	link := &pgdb.Link{Lost: func(err error) { lost <- err }, Back: func(d time.Duration) { back <- d }}
	done := make(chan error, 1)
	go func() {
		q, err := Open(context.Background(), srv.URL, Options{Wait: true, Link: link})
		if err == nil {
			q.Close()
		}
		done <- err
	}()
	if err := <-lost; !pgdb.Transient(err) {
		t.Fatalf("Lost(%v): not an outage", err)
	}
	srv.Start()
	if err := <-done; err != nil {
		t.Fatalf("Open: %v, want it to wait for the server", err)
	}
	if len(back) != 1 || len(lost) != 0 {
		t.Errorf("%d more Lost and %d Back reports, want 0 and 1", len(lost), len(back))
	}

	_, err := Open(context.Background(), strings.Replace(srv.URL, "/postgres?", "/nodb?", 1), Options{Wait: true, Link: link})
	var oe *pgdb.Error
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), `database "nodb" does not exist (SQLSTATE 3D000)`) {
		t.Errorf("Open of a missing database: %v, want SQLSTATE 3D000", err)
	}
	if len(lost) != 0 {
		t.Errorf("a missing database was waited for (%d Lost reports)", len(lost))
	}

	ctx, cancel := context.WithCancel(context.Background())
	srv.Stop()
	go func() { <-lost; cancel() }()
	_, err = Open(ctx, srv.URL, Options{Wait: true, Link: link})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "gave up waiting") {
		t.Errorf("Open interrupted while waiting: %v, want context.Canceled", err)
	}
}
