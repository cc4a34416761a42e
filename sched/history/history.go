// Package history is what calq's stores of jobs have in common for
// `calq history`, `history stats`, `history prune` and `analyze
// history`: the filter, the records, the statistics and the Store
// interface that the SQLite journal (sched/journal) and the shared queue
// on PostgreSQL (sched/pgqueue) both implement. StoreTest (in
// storetest.go) is the contract both are tested against.
package history

import (
	"cmp"
	"context"
	"encoding/json"
	"io"
	"slices"
	"time"

	"calq/sched"
)

// Store is a store of jobs that answers the history queries.
type Store interface {
	// List returns the jobs f selects, newest first (by enqueue time).
	List(ctx context.Context, f Filter) ([]Record, error)
	// Stats summarises the jobs f selects (f.Limit aside).
	Stats(ctx context.Context, f Filter) (Stats, error)
	// Prune deletes the jobs that ended before before, with what is
	// theirs, and returns how many.
	Prune(ctx context.Context, before time.Time, o PruneOptions) (int, error)
}

// Filter selects jobs for a Store's List and Stats. Zero fields select everything.
type Filter struct {
	Kind    string // a kind ("convert-office"), or a family of kinds ("convert" matches convert-*)
	State   sched.State
	Backend string    // the backend of the last attempt (ran_on)
	Label   string    // jobs whose label contains it
	Since   time.Time // enqueued at or after
	Until   time.Time // enqueued before
	Limit   int       // List returns at most this many; 0 for all
}

// Record is a job as a store holds it. Times are UTC; a zero time, a
// nil duration or an empty string is a NULL column, left out of JSON.
type Record struct {
	ID         int64       `json:"id"`
	Key        string      `json:"key"`
	Kind       string      `json:"kind"`
	Label      string      `json:"label,omitempty"`
	Payload    []byte      `json:"payload,omitempty"`
	Class      sched.Class `json:"class"`
	Backend    string      `json:"backend,omitempty"` // requested
	State      sched.State `json:"state"`
	Attempts   int         `json:"attempts"`
	Retries    int         `json:"retries"`
	TimeoutS   *float64    `json:"timeout_seconds,omitempty"`
	NotBefore  time.Time   `json:"not_before,omitzero"`
	Enqueued   time.Time   `json:"enqueued"`
	Started    time.Time   `json:"started,omitzero"` // first start
	Finished   time.Time   `json:"finished,omitzero"`
	RanOn      string      `json:"ran_on,omitempty"` // backend of the last attempt
	Error      string      `json:"error,omitempty"`
	Reason     string      `json:"reason,omitempty"`
	WaitS      *float64    `json:"wait_seconds,omitempty"` // first start - enqueued
	RunS       *float64    `json:"run_seconds,omitempty"`  // the last attempt's duration
	Owner      string      `json:"owner,omitempty"`
	OwnerPid   int         `json:"owner_pid,omitempty"`
	OwnerHost  string      `json:"owner_host,omitempty"`
	LeaseUntil time.Time   `json:"lease_until,omitzero"`
}

// Stats summarises the jobs a Filter selects, one group per kind and
// backend, and all of them together.
type Stats struct {
	Groups []Group `json:"groups"`
	// Total is every group at once (its Kind and Backend are empty): the
	// percentiles of a kind family ("convert") across its kinds and
	// backends, which the groups' own cannot be combined into.
	Total Group `json:"total"`
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
	P95  float64 `json:"p95_seconds"`
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
		P95  *float64 `json:"p95_seconds"`
		P99  *float64 `json:"p99_seconds"`
	}{s.N, v(s.Mean), v(s.P50), v(s.P90), v(s.P95), v(s.P99)})
}

// ReasonCount is how many jobs failed for one reason.
type ReasonCount struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// PruneOptions configure a Store's Prune.
type PruneOptions struct {
	// Archive, when set, receives the pruned jobs as JSON lines, one
	// Record each, before they are deleted. When it is an io.Closer, Prune
	// closes it after the last line and deletes only if that succeeds, so
	// a file can be made durable (synced, renamed into place) first.
	Archive io.Writer
	Vacuum  bool // compact the file afterwards (VACUUM), returning the space to the system
	DryRun  bool // count the jobs only: write, delete and vacuum nothing
}

// Accumulator gathers jobs, sorted by kind and backend, into the groups
// of Stats and their total: a store feeds it its rows with Add.
type Accumulator struct {
	groups []groupAcc
	total  groupAcc
}

// groupAcc gathers the jobs of one group.
type groupAcc struct {
	g       Group
	waits   []float64
	runs    []float64
	reasons map[string]int
}

func newGroupAcc(kind, backend string) groupAcc {
	return groupAcc{g: Group{Kind: kind, Backend: backend, States: map[sched.State]int{}}, reasons: map[string]int{}}
}

// Add counts one job: its kind, the backend of its last attempt, its
// state, its wait and run in seconds (nil when it has none) and its
// failure reason.
func (a *Accumulator) Add(kind, backend string, state sched.State, wait, run *float64, reason string) {
	i := len(a.groups) - 1
	if i < 0 || a.groups[i].g.Kind != kind || a.groups[i].g.Backend != backend {
		a.groups = append(a.groups, newGroupAcc(kind, backend))
		i++
	}
	if a.total.reasons == nil {
		a.total = newGroupAcc("", "")
	}
	a.groups[i].add(state, wait, run, reason)
	a.total.add(state, wait, run, reason)
}

func (g *groupAcc) add(state sched.State, wait, run *float64, reason string) {
	g.g.Jobs++
	g.g.States[state]++
	if wait != nil {
		g.waits = append(g.waits, *wait)
	}
	if run != nil {
		g.runs = append(g.runs, *run)
	}
	if reason != "" && (state == sched.StateFailed || state == sched.StateTimedOut) {
		g.reasons[reason]++
	}
}

// group returns the group with its summaries.
func (g *groupAcc) group() Group {
	out := g.g
	if out.States == nil {
		out.States = map[sched.State]int{}
	}
	out.Wait, out.Run = summarize(g.waits), summarize(g.runs)
	out.Reasons = []ReasonCount{}
	for r, n := range g.reasons {
		out.Reasons = append(out.Reasons, ReasonCount{r, n})
	}
	slices.SortFunc(out.Reasons, func(x, y ReasonCount) int {
		return cmp.Or(cmp.Compare(y.Count, x.Count), cmp.Compare(x.Reason, y.Reason))
	})
	return out
}

// Stats returns the groups gathered so far, with their summaries, and
// their total.
func (a *Accumulator) Stats() Stats {
	s := Stats{Groups: make([]Group, len(a.groups)), Total: a.total.group()}
	for i := range a.groups {
		s.Groups[i] = a.groups[i].group()
	}
	return s
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
		P50: nearestRank(xs, 50), P90: nearestRank(xs, 90),
		P95: nearestRank(xs, 95), P99: nearestRank(xs, 99)}
}

// nearestRank is the p-th percentile of sorted by the nearest-rank
// method: the smallest value with at least p% of the values at or below.
func nearestRank(sorted []float64, p int) float64 {
	rank := (p*len(sorted) + 99) / 100 // ⌈p·n/100⌉ without rounding error
	return sorted[max(rank, 1)-1]
}
