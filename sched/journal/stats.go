package journal

import (
	"context"
	"database/sql"
	"fmt"

	"calq/sched"
	"calq/sched/history"
)

// Stats summarises the jobs f selects (f.Limit aside). It reads every one
// of them and holds their durations in memory: O(n log n) for n jobs.
func (j *Journal) Stats(ctx context.Context, f Filter) (Stats, error) {
	where, args := where(f)
	rows, err := j.db.QueryContext(ctx, `SELECT kind, COALESCE(ran_on, ''), state, wait_s, run_s,
		COALESCE(reason, '') FROM jobs WHERE `+where+` ORDER BY kind, 2`, args...)
	if err != nil {
		return Stats{}, fmt.Errorf("job stats: %w", err)
	}
	defer rows.Close()
	var acc history.Accumulator
	for rows.Next() {
		var kind, backend, reason string
		var state sched.State
		var wait, run sql.NullFloat64
		if err := rows.Scan(&kind, &backend, &state, &wait, &run, &reason); err != nil {
			return Stats{}, fmt.Errorf("job stats: %w", err)
		}
		acc.Add(kind, backend, state, floatOrNil(wait), floatOrNil(run), reason)
	}
	if err := rows.Err(); err != nil {
		return Stats{}, fmt.Errorf("job stats: %w", err)
	}
	return acc.Stats(), nil
}
