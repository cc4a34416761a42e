package journal

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"

	"calq/sched"
)

// Stats summarises the jobs a Filter selects, one group per kind and
// backend.
type Stats struct {
	Groups []Group `json:"groups"`
}

// Group is the summary of the jobs of one kind on one backend (the backend
// of their last attempt; empty for jobs that never ran).
type Group struct {
	Kind    string              `json:"kind"`
	Backend string              `json:"backend"`
	Jobs    int                 `json:"jobs"`
	States  map[sched.State]int `json:"states"`  // jobs per state
	Wait    Summary             `json:"wait"`    // first start - enqueued, of the jobs that started
	Run     Summary             `json:"run"`     // the last attempt, of the jobs that finished one
	Reasons []ReasonCount       `json:"reasons"` // of the failed and timed-out jobs, most frequent first
}

// Summary is the distribution of a duration in seconds: percentiles by
// nearest rank, all zero when N is; in JSON, null when N is 0 (there is
// no mean of nothing).
type Summary struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean_seconds"`
	P50  float64 `json:"p50_seconds"`
	P90  float64 `json:"p90_seconds"`
	P99  float64 `json:"p99_seconds"`
}

// MarshalJSON writes the measures as null when there are none.
func (s Summary) MarshalJSON() ([]byte, error) {
	v := func(x float64) *float64 {
		if s.N == 0 {
			return nil
		}
		return &x
	}
	return json.Marshal(struct {
		N    int      `json:"n"`
		Mean *float64 `json:"mean_seconds"`
		P50  *float64 `json:"p50_seconds"`
		P90  *float64 `json:"p90_seconds"`
		P99  *float64 `json:"p99_seconds"`
	}{s.N, v(s.Mean), v(s.P50), v(s.P90), v(s.P99)})
}

// ReasonCount is how many jobs failed for one reason.
type ReasonCount struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// Stats summarises the jobs f selects (f.Limit aside). It reads every one
// of them and holds their durations in memory: O(n log n) for n jobs.
func (j *Journal) Stats(ctx context.Context, f Filter) (Stats, error) {
	where, args := f.where()
	rows, err := j.db.QueryContext(ctx, `SELECT kind, COALESCE(ran_on, ''), state, wait_s, run_s,
		COALESCE(reason, '') FROM jobs WHERE `+where+` ORDER BY kind, 2`, args...)
	if err != nil {
		return Stats{}, fmt.Errorf("job stats: %w", err)
	}
	defer rows.Close()
	var acc accumulator
	for rows.Next() {
		if err := acc.scan(rows); err != nil {
			return Stats{}, fmt.Errorf("job stats: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return Stats{}, fmt.Errorf("job stats: %w", err)
	}
	return acc.stats(), nil
}

// accumulator gathers rows sorted by kind and backend into groups.
type accumulator struct {
	groups  []Group
	waits   [][]float64
	runs    [][]float64
	reasons []map[string]int
}

func (a *accumulator) scan(rows *sql.Rows) error {
	var kind, backend, reason string
	var state sched.State
	var wait, run sql.NullFloat64
	if err := rows.Scan(&kind, &backend, &state, &wait, &run, &reason); err != nil {
		return err
	}
	i := len(a.groups) - 1
	if i < 0 || a.groups[i].Kind != kind || a.groups[i].Backend != backend {
		a.groups = append(a.groups, Group{Kind: kind, Backend: backend, States: map[sched.State]int{}})
		a.waits, a.runs = append(a.waits, nil), append(a.runs, nil)
		a.reasons = append(a.reasons, map[string]int{})
		i++
	}
	a.groups[i].Jobs++
	a.groups[i].States[state]++
	if wait.Valid {
		a.waits[i] = append(a.waits[i], wait.Float64)
	}
	if run.Valid {
		a.runs[i] = append(a.runs[i], run.Float64)
	}
	if reason != "" && (state == sched.StateFailed || state == sched.StateTimedOut) {
		a.reasons[i][reason]++
	}
	return nil
}

func (a *accumulator) stats() Stats {
	for i := range a.groups {
		g := &a.groups[i]
		g.Wait, g.Run = summarize(a.waits[i]), summarize(a.runs[i])
		g.Reasons = []ReasonCount{}
		for r, n := range a.reasons[i] {
			g.Reasons = append(g.Reasons, ReasonCount{r, n})
		}
		slices.SortFunc(g.Reasons, func(x, y ReasonCount) int {
			return cmp.Or(cmp.Compare(y.Count, x.Count), cmp.Compare(x.Reason, y.Reason))
		})
	}
	if a.groups == nil {
		return Stats{Groups: []Group{}}
	}
	return Stats{Groups: a.groups}
}

// summarize sorts xs and summarises it.
func summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	slices.Sort(xs)
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return Summary{N: len(xs), Mean: sum / float64(len(xs)),
		P50: nearestRank(xs, 50), P90: nearestRank(xs, 90), P99: nearestRank(xs, 99)}
}

// nearestRank is the p-th percentile of sorted by the nearest-rank
// method: the smallest value with at least p% of the values at or below.
func nearestRank(sorted []float64, p int) float64 {
	rank := (p*len(sorted) + 99) / 100 // ⌈p·n/100⌉ without rounding error
	return sorted[max(rank, 1)-1]
}
