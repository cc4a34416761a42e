package serve

import (
	"context"
	"path/filepath"
	"testing"

	"calq/sched/journal"
)

// countingJournal counts the migrations asked of a journal.
type countingJournal struct {
	*journal.Journal
	migrations int
}

func (c *countingJournal) Migrate(ctx context.Context, pkg string, m []string) error {
	c.migrations++
	return c.Journal.Migrate(ctx, pkg, m)
}

// TestConvertStoreOnce: the jobs of a server share one store of
// conversion records, opened (its tables' version checked) once, not
// once per job; without a journal there is none.
func TestConvertStoreOnce(t *testing.T) {
	ctx := context.Background()
	j, err := journal.Open(ctx, filepath.Join(t.TempDir(), "calq.db"), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	cj := &countingJournal{Journal: j}
	var c convertStore
	first := c.get(ctx, cj)
	for range 5 {
		if got := c.get(ctx, cj); got != first || got == nil {
			t.Fatalf("got store %v, want the first one %v", got, first)
		}
	}
	if cj.migrations != 1 {
		t.Errorf("got %d migrations for 6 jobs, want 1", cj.migrations)
	}
	var none convertStore
	if got := none.get(ctx, nil); got != nil {
		t.Errorf("without a journal: got store %v, want nil", got)
	}
}
