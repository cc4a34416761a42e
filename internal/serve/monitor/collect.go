package monitor

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"calq/analyze"
	"calq/convert/lo"
	"calq/internal/histsample"
	"calq/internal/serve/fair"
	"calq/sched"
	"calq/sched/history"
	"calq/sms/store"
)

// Kind is the kind family of calq serve's conversions in the history.
const Kind = "convert"

// SMSCounter counts the SMS daemon's outbox and inbox (*store.Store does).
type SMSCounter interface {
	Counts(ctx context.Context) (store.Counts, error)
}

// Sources are where Collect reads. A nil field but History is left out
// of the snapshot.
type Sources struct {
	History   history.Store
	Instances func() []lo.InstanceStats // (*lo.Pool).Stats
	Queue     func() fair.Stats         // (*fair.Gate).Stats
	SMS       SMSCounter
	Now       func() time.Time // nil: time.Now
	// Analyze adds analyze.History over the day's conversions: one List
	// of them, O(n log n) in their number.
	Analyze bool
}

// Snapshot is every figure of the monitoring page at one time.
type Snapshot struct {
	At        time.Time
	Instances []lo.InstanceStats // nil without a pool
	Queue     *Queue             // nil without a gate
	Hour, Day Window
	Failures  []history.ReasonCount  // the day's failed and timed-out conversions by reason, most frequent first
	Analysis  []analyze.HistoryGroup // the day's, per kind and backend; nil unless Sources.Analyze
	SMS       *store.Counts          // nil without an SMS daemon
}

// Queue is the fair gate's live queue.
type Queue struct {
	Servers, Busy, Waiting int
	ByClass                [sched.NumClasses]int // by Class.Index: P0 to P3; read through Classes
	ByUser                 []UserCount           // most waiting first
}

// ClassCount is how many files of one class wait.
type ClassCount struct {
	Class   sched.Class
	Waiting int
}

// Classes are the waiting files by class, P0 to P3 in order: ByClass
// is indexed by Class.Index, which is not the Class itself (the zero
// Class is P2).
func (q *Queue) Classes() []ClassCount {
	out := make([]ClassCount, sched.NumClasses)
	for i, n := range q.ByClass {
		out[i] = ClassCount{sched.ClassOf(i), n}
	}
	return out
}

// UserCount is how many files of one user wait.
type UserCount struct {
	User    string
	Waiting int
}

// Window is the conversions of a span of time, in buckets of Step. Jobs
// fall in a bucket by their enqueue time (history.Filter's Since and
// Until); a conversion lasts seconds, a bucket minutes.
type Window struct {
	Since, Until time.Time
	Step         time.Duration
	Buckets      []Bucket
	Total        Bucket // the whole window
}

// Bucket is the conversions enqueued in [Start, Start+Step).
type Bucket struct {
	Start        time.Time
	Jobs         int // every state, the queued and running included
	Done, Failed int // failed counts the timed-out too
	Run          history.Summary
}

// Collect reads every figure of the monitoring page (see the package
// documentation for its cost).
func Collect(ctx context.Context, src Sources) (Snapshot, error) {
	clock := src.Now
	if clock == nil {
		clock = time.Now
	}
	now := clock().UTC()
	s := Snapshot{At: now}
	if src.Instances != nil {
		s.Instances = src.Instances()
	}
	if src.Queue != nil {
		s.Queue = queueOf(src.Queue())
	}
	var err error
	if s.Hour, _, err = window(ctx, src.History, now, 5*time.Minute, 12); err != nil {
		return s, err
	}
	var day history.Group
	if s.Day, day, err = window(ctx, src.History, now, time.Hour, 24); err != nil {
		return s, err
	}
	s.Failures = day.Reasons
	if src.Analyze {
		if s.Analysis, err = analyzeDay(ctx, src.History, s.Day); err != nil {
			return s, err
		}
	}
	if src.SMS != nil {
		c, err := src.SMS.Counts(ctx)
		if err != nil {
			return s, fmt.Errorf("monitor: %w", err)
		}
		s.SMS = &c
	}
	return s, nil
}

func queueOf(st fair.Stats) *Queue {
	q := &Queue{Servers: st.Servers, Busy: st.Busy, Waiting: st.Waiting, ByClass: st.WaitingByClass}
	for _, u := range slices.Sorted(maps.Keys(st.WaitingByUser)) {
		q.ByUser = append(q.ByUser, UserCount{u, st.WaitingByUser[u]})
	}
	slices.SortStableFunc(q.ByUser, func(a, b UserCount) int { return cmp.Compare(b.Waiting, a.Waiting) })
	return q
}

// window reads n buckets of step, the last holding now, and their total
// (returned whole too, for its reasons).
func window(ctx context.Context, h history.Store, now time.Time, step time.Duration, n int) (Window, history.Group, error) {
	end := now.Truncate(step).Add(step)
	w := Window{Since: end.Add(-time.Duration(n) * step), Until: now, Step: step}
	for k := range n {
		start := w.Since.Add(time.Duration(k) * step)
		until := start.Add(step)
		if k == n-1 {
			until = now.Add(time.Nanosecond) // the current bucket, up to now included
		}
		g, err := stats(ctx, h, start, until)
		if err != nil {
			return w, g, err
		}
		w.Buckets = append(w.Buckets, bucketOf(start, g))
	}
	g, err := stats(ctx, h, w.Since, now.Add(time.Nanosecond))
	w.Total = bucketOf(w.Since, g)
	return w, g, err
}

// stats is the total of the conversions enqueued in [since, until).
func stats(ctx context.Context, h history.Store, since, until time.Time) (history.Group, error) {
	st, err := h.Stats(ctx, history.Filter{Kind: Kind, Since: since, Until: until})
	if err != nil {
		return history.Group{}, fmt.Errorf("monitor: conversions from %s to %s: %w",
			since.Format(time.RFC3339), until.Format(time.RFC3339), err)
	}
	return st.Total, nil
}

func bucketOf(start time.Time, g history.Group) Bucket {
	return Bucket{Start: start, Jobs: g.Jobs, Done: g.States[sched.StateDone],
		Failed: g.States[sched.StateFailed] + g.States[sched.StateTimedOut], Run: g.Run}
}

// analyzeDay runs analyze.History over the day's conversions.
func analyzeDay(ctx context.Context, h history.Store, day Window) ([]analyze.HistoryGroup, error) {
	recs, err := h.List(ctx, history.Filter{Kind: Kind, Since: day.Since, Until: day.Until.Add(time.Nanosecond)})
	if err != nil {
		return nil, fmt.Errorf("monitor: the day's conversions: %w", err)
	}
	groups, err := analyze.History(ctx, histsample.FromRecords(recs), analyze.HistoryOptions{})
	if err != nil {
		return nil, fmt.Errorf("monitor: analyze the day: %w", err)
	}
	return groups, nil
}
