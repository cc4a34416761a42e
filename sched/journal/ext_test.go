package journal

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// TestNewJournalJobsOnly: a new journal holds the journal's own tables
// only; other packages' come with their migrations.
func TestNewJournalJobsOnly(t *testing.T) {
	j := openTemp(t, newClock())
	if got, want := tables(t, j), []string{"attempts", "batches", "jobs"}; !slices.Equal(got, want) {
		t.Errorf("tables of a new journal = %v, want %v", got, want)
	}
}

// TestMigrate: a package's migrations run once each, in order, across
// opens; a file whose version is newer than the package knows is refused.
func TestMigrate(t *testing.T) {
	ctx := context.Background()
	j := openTemp(t, newClock())
	v1 := []string{`CREATE TABLE IF NOT EXISTS ext_a (x INTEGER)`}
	v2 := append(slices.Clone(v1), `ALTER TABLE ext_a ADD COLUMN y TEXT`)
	must(t, j.Migrate(ctx, "ext", v1))
	must(t, j.Migrate(ctx, "ext", v1)) // nothing to do
	must(t, j.Migrate(ctx, "ext", v2)) // only the ALTER runs; run again, it would fail
	must(t, j.Migrate(ctx, "ext", v2))
	if _, err := j.db.Exec(`INSERT INTO ext_a (x, y) VALUES (1, 'b')`); err != nil {
		t.Errorf("the table after two migrations: %v", err)
	}
	if err := j.Migrate(ctx, "ext", v1); !errors.Is(err, ErrSchemaNewer) {
		t.Errorf("Migrate with fewer steps than the file has = %v, want ErrSchemaNewer", err)
	}
	if err := j.Migrate(ctx, "other", []string{`CREATE TABLE broken (`}); err == nil {
		t.Error("a failing migration succeeded")
	}
	var n int
	if err := j.db.QueryRow(`SELECT COUNT(*) FROM schema_versions WHERE package = 'other'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("a failed migration recorded a version: %d rows, %v", n, err)
	}
}

func tables(t *testing.T, j *Journal) []string {
	t.Helper()
	rows, err := j.db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	return names
}
