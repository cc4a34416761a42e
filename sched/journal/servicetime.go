package journal

import (
	"context"
	"database/sql"
	"fmt"
)

// MeanRunSeconds returns the mean run time of the last n jobs of kind that
// ended done, and how many there were (0 with no history): what callers
// size their workers by (calq convert sizes its LibreOffice pool by it).
func (j *Journal) MeanRunSeconds(ctx context.Context, kind string, n int) (float64, int, error) {
	var mean sql.NullFloat64
	var count int
	err := j.db.QueryRowContext(ctx, `SELECT AVG(run_s), COUNT(*) FROM (SELECT run_s FROM jobs
		WHERE kind = ? AND state = 'done' AND run_s IS NOT NULL ORDER BY id DESC LIMIT ?)`, kind, n).Scan(&mean, &count)
	if err != nil {
		return 0, 0, fmt.Errorf("journal: mean run time of %s: %w", kind, err)
	}
	return mean.Float64, count, nil
}
