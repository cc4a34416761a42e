package serve

import (
	"context"
	"sync"

	"calq/convert"
	"calq/sched"
)

// convertStore is the store of the conversions' records in the server's
// journal, opened at the first job that needs it and kept: convert.Run
// opening it itself checks its tables' version with a query, at every
// job.
type convertStore struct {
	mu    sync.Mutex
	store convert.Store
}

// get returns the store over j; nil (convert.Run opens it then, and says
// why it cannot) without a journal of records, or when opening it fails.
func (c *convertStore) get(ctx context.Context, j sched.Journal) convert.Store {
	sj, ok := j.(convert.SQLJournal)
	if !ok {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.store == nil {
		if s, err := convert.OpenStore(ctx, sj); err == nil {
			c.store = s
		}
	}
	return c.store
}
