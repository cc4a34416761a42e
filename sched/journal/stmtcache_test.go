package journal

import (
	"context"
	"database/sql"
	"testing"
)

// TestExecPreparesOnce: writes through Write and Update that run the
// same text with Exec share one statement, prepared at the first and
// kept (each write was compiling its SQL again); the writes land, a
// failing text is neither cached nor fatal to the cache, and Exec
// outside the writer is tx.ExecContext.
func TestExecPreparesOnce(t *testing.T) {
	ctx := context.Background()
	j := openTemp(t, newClock())
	must(t, j.Migrate(ctx, "ext", []string{`CREATE TABLE IF NOT EXISTS ext_a (x INTEGER)`}))
	const insert = `INSERT INTO ext_a (x) VALUES (?)`
	write := func(x int) error {
		return j.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
			_, err := Exec(ctx, tx, insert, x)
			return err
		})
	}
	must(t, write(1))
	first := cachedStmt(j, insert)
	if first == nil {
		t.Fatalf("after a write, the cache holds no statement for %q", insert)
	}
	for x := 2; x <= 20; x++ {
		must(t, write(x))
	}
	must(t, j.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := Exec(ctx, tx, insert, 21)
		return err
	}))
	if got := cachedStmt(j, insert); got != first {
		t.Errorf("after 21 writes the statement of %q is %p, want the first one %p", insert, got, first)
	}
	err := j.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := Exec(ctx, tx, `INSERT INTO no_such_table (x) VALUES (?)`, 1)
		return err
	})
	if err == nil {
		t.Error("an insert into a missing table succeeded")
	}
	if cachedStmt(j, `INSERT INTO no_such_table (x) VALUES (?)`) != nil {
		t.Error("a statement that failed to prepare is cached")
	}
	must(t, write(22))
	// Outside the writer (a fake's transaction), Exec is tx.ExecContext.
	tx, err := j.db.BeginTx(ctx, nil)
	must(t, err)
	_, err = Exec(ctx, tx, insert, 23)
	must(t, err)
	must(t, tx.Commit())
	var n, sum int
	must(t, j.db.QueryRow(`SELECT COUNT(*), SUM(x) FROM ext_a`).Scan(&n, &sum))
	if n != 23 || sum != 23*24/2 {
		t.Errorf("got %d rows summing to %d, want 23 summing to %d", n, sum, 23*24/2)
	}
}

func cachedStmt(j *Journal, query string) *sql.Stmt {
	j.cache.mu.Lock()
	defer j.cache.mu.Unlock()
	return j.cache.stmts[query]
}

// TestQueryPreparesOnce: reads beside the writer (Query, QueryRow,
// States) run one statement per text, prepared at the first.
func TestQueryPreparesOnce(t *testing.T) {
	ctx := context.Background()
	j := openTemp(t, newClock())
	const q = `SELECT count(*) FROM jobs WHERE state = ?`
	var first *sql.Stmt
	for i := range 3 {
		var n int
		must(t, j.QueryRow(ctx, q, "queued").Scan(&n))
		rows, err := j.Query(ctx, q, "done")
		must(t, err)
		rows.Close()
		if _, err := j.States(ctx, []string{"a", "b"}); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = cachedStmt(j, q)
		}
		if got := cachedStmt(j, q); got == nil || got != first {
			t.Fatalf("read %d: statement %p, want the first one %p (not nil)", i, got, first)
		}
	}
	if cachedStmt(j, `SELECT state FROM jobs WHERE key = ?`) == nil {
		t.Error("States prepared its statement anew")
	}
}
