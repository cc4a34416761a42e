package jobs

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"calq/sched/journal"
)

// TestCrashed: a job running when its server died is counted and queued
// again; one stopped by its server is queued again, uncounted; a queued
// job is neither.
func TestCrashed(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	if err := s.Add(ctx, &Job{ID: "j", Route: "pdfengines/rotate"}); err != nil {
		t.Fatal(err)
	}
	state := func(wantState State, wantCrashes int) {
		t.Helper()
		j, err := s.Get(ctx, "*", "j")
		if err != nil || j.State != wantState || j.Crashes != wantCrashes {
			t.Fatalf("job %s with %d crashes, %v; want %s with %d", j.State, j.Crashes, err, wantState, wantCrashes)
		}
	}
	steps := []struct {
		name    string
		do      func() (int, error)
		want    int // Crashed's count
		state   State
		crashes int
	}{
		{"crash while queued", func() (int, error) { return s.Crashed(ctx, "j") }, 0, Queued, 0},
		{"start", func() (int, error) { _, err := s.Start(ctx, "j"); return 0, err }, 0, Running, 0},
		{"crash while running", func() (int, error) { return s.Crashed(ctx, "j") }, 1, Queued, 1},
		{"start again", func() (int, error) { _, err := s.Start(ctx, "j"); return 0, err }, 0, Running, 1},
		{"stopped by the server", func() (int, error) { return 0, s.Requeue(ctx, "j") }, 0, Queued, 1},
		{"start a third time", func() (int, error) { _, err := s.Start(ctx, "j"); return 0, err }, 0, Running, 1},
		{"second crash", func() (int, error) { return s.Crashed(ctx, "j") }, 2, Queued, 2},
	}
	for _, st := range steps {
		got, err := st.do()
		if err != nil || got != st.want {
			t.Fatalf("%s: got %d, %v; want %d", st.name, got, err, st.want)
		}
		state(st.state, st.crashes)
	}
}

// TestMigrateCrashes: jobs of a journal from before version 4 have no
// crash.
func TestMigrateCrashes(t *testing.T) {
	ctx := context.Background()
	j, err := journal.Open(ctx, filepath.Join(t.TempDir(), "calq.db"), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := j.Migrate(ctx, "serve/jobs", []string{schema, deliveriesSchema, filesSchema}); err != nil {
		t.Fatal(err)
	}
	err = j.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO serve_jobs (id, owner, route, class, state, sync, created, request)
			VALUES ('old', 'u', 'pdfengines/rotate', 0, 'running', 0, '2026-01-01 00:00:00.000000', '{"files":[]}')`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, j)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.Crashed(ctx, "old"); n != 1 || err != nil {
		t.Errorf("the old running job's first crash: %d, %v; want 1", n, err)
	}
}
