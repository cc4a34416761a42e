package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"calq/sched"
)

// States returns the state of each of keys that the journal holds; keys it
// does not hold are absent from the map. calq convert asks it which files
// are done already before it names their jobs.
func (j *Journal) States(ctx context.Context, keys []string) (map[string]sched.State, error) {
	states := make(map[string]sched.State, len(keys))
	for _, k := range keys {
		var s string
		switch err := j.queryRow(ctx, `SELECT state FROM jobs WHERE key = ?`, k).Scan(&s); {
		case err == nil:
			states[k] = sched.State(s)
		case !errors.Is(err, sql.ErrNoRows):
			return nil, fmt.Errorf("look up job %s: %w", k, err)
		}
	}
	return states, nil
}
