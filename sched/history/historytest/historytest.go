// Package historytest is the contract of history.Store: Run checks a
// store's List, Stats and Prune on the same jobs, whatever the store.
// The SQLite journal and the shared queue on PostgreSQL both run it.
package historytest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"calq/sched"
	"calq/sched/history"
)

// Job is a job as the contract puts it in a store: the store's test
// writes it with its own SQL.
type Job struct {
	Key, Kind, Label string
	RanOn            string // the backend (worker) of its last attempt; "" if it never ran
	State            sched.State
	Enqueued         time.Time
	Finished         time.Time // zero unless ended
	Wait, Run        *float64
	Reason           string
}

// T0 is the enqueue time of the contract's first job.
var T0 = time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)

func secs(x float64) *float64 { return &x }

// Jobs are the contract's jobs, oldest first.
func Jobs() []Job {
	m := time.Minute
	return []Job{
		{Key: "a", Kind: "convert-office", RanOn: "lo-1", State: sched.StateDone, Enqueued: T0,
			Finished: T0.Add(10 * time.Second), Wait: secs(1), Run: secs(2)},
		{Key: "b", Kind: "convert-image", RanOn: "pdfcpu", State: sched.StateFailed, Enqueued: T0.Add(m),
			Finished: T0.Add(m + 10*time.Second), Wait: secs(3), Run: secs(4), Reason: "bad image"},
		{Key: "c", Kind: "shell", Label: "nightly run", RanOn: "w1", State: sched.StateDone, Enqueued: T0.Add(2 * m),
			Finished: T0.Add(2*m + 10*time.Second), Wait: secs(5), Run: secs(6)},
		{Key: "d", Kind: "shell", State: sched.StateQueued, Enqueued: T0.Add(3 * m)},
	}
}

// Run checks s, which holds nothing yet; add writes jobs into it.
func Run(t *testing.T, s history.Store, add func(t *testing.T, jobs []Job)) {
	ctx := context.Background()
	add(t, Jobs())
	m := time.Minute
	keys := func(f history.Filter) string {
		t.Helper()
		recs, err := s.List(ctx, f)
		if err != nil {
			t.Fatalf("List(%+v): %v", f, err)
		}
		var ks []string
		for _, r := range recs {
			ks = append(ks, r.Key)
		}
		return fmt.Sprint(ks)
	}
	for _, tt := range []struct {
		name string
		f    history.Filter
		want string
	}{
		{"all, newest first", history.Filter{}, "[d c b a]"},
		{"kind family", history.Filter{Kind: "convert"}, "[b a]"},
		{"kind", history.Filter{Kind: "convert-image"}, "[b]"},
		{"no kind prefix without the dash", history.Filter{Kind: "conv"}, "[]"},
		{"state", history.Filter{State: sched.StateFailed}, "[b]"},
		{"backend", history.Filter{Backend: "pdfcpu"}, "[b]"},
		{"label substring", history.Filter{Label: "nightly"}, "[c]"},
		{"since", history.Filter{Since: T0.Add(m)}, "[d c b]"},
		{"until", history.Filter{Until: T0.Add(m)}, "[a]"},
		{"limit", history.Filter{Limit: 2}, "[d c]"},
	} {
		if got := keys(tt.f); got != tt.want {
			t.Errorf("List %s: %s, want %s", tt.name, got, tt.want)
		}
	}
	recs, err := s.List(ctx, history.Filter{Kind: "convert-image"})
	if err != nil || len(recs) != 1 {
		t.Fatalf("List: %v, %v", recs, err)
	}
	if r := recs[0]; r.State != sched.StateFailed || r.Reason != "bad image" || r.RanOn != "pdfcpu" ||
		!r.Enqueued.Equal(T0.Add(m)) || !r.Finished.Equal(T0.Add(m+10*time.Second)) || r.WaitS == nil || *r.WaitS != 3 {
		t.Errorf("record b: %+v", r)
	}

	st, err := s.Stats(ctx, history.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var groups []string
	for _, g := range st.Groups {
		groups = append(groups, fmt.Sprintf("%s/%s:%d", g.Kind, g.Backend, g.Jobs))
	}
	if want := "[convert-image/pdfcpu:1 convert-office/lo-1:1 shell/:1 shell/w1:1]"; fmt.Sprint(groups) != want {
		t.Errorf("Stats groups %v, want %s", groups, want)
	}
	if g := st.Groups[0]; len(g.Reasons) != 1 || g.Reasons[0].Reason != "bad image" || g.Run.N != 1 || g.Run.Mean != 4 {
		t.Errorf("Stats of convert-image: %+v", g)
	}
	// a, b and c ran (2 s, 4 s, 6 s); d waits.
	if tot := st.Total; tot.Jobs != 4 || tot.States[sched.StateDone] != 2 || tot.Run.N != 3 || tot.Run.Mean != 4 ||
		tot.Run.P50 != 4 || tot.Run.P95 != 6 || len(tot.Reasons) != 1 || tot.Reasons[0].Reason != "bad image" {
		t.Errorf("Stats total: %+v", tot)
	}

	n, err := s.Prune(ctx, T0.Add(2*m), history.PruneOptions{DryRun: true})
	if err != nil || n != 2 {
		t.Errorf("Prune dry run: %d, %v; want 2", n, err)
	}
	if got := keys(history.Filter{}); got != "[d c b a]" {
		t.Errorf("after a dry run: %s", got)
	}
	var archive bytes.Buffer
	n, err = s.Prune(ctx, T0.Add(2*m), history.PruneOptions{Archive: &archive})
	if err != nil || n != 2 {
		t.Errorf("Prune: %d, %v; want 2", n, err)
	}
	var archived []string
	dec := json.NewDecoder(&archive)
	for dec.More() {
		var r history.Record
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		archived = append(archived, r.Key)
	}
	slices.Sort(archived)
	if fmt.Sprint(archived) != "[a b]" {
		t.Errorf("archived %v, want [a b]", archived)
	}
	if got := keys(history.Filter{}); got != "[d c]" {
		t.Errorf("after Prune: %s, want [d c]", got)
	}
}
