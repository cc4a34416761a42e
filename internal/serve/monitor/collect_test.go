package monitor

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"calq/convert/lo"
	"calq/internal/serve/fair"
	"calq/sched"
	"calq/sched/history"
	"calq/sched/journal"
	"calq/sms/store"
)

// now is the fake clock of TestCollect: the hour's buckets run from
// 11:05 to 12:05, the day's from 13:00 the day before to 13:00.
var now = time.Date(2026, 11, 1, 12, 2, 30, 0, time.UTC)

type fakeSMS struct{ c store.Counts }

func (f fakeSMS) Counts(context.Context) (store.Counts, error) { return f.c, nil }

// job is a job TestCollect records through the journal's API.
type job struct {
	kind     string
	enqueued time.Time
	run      time.Duration // 0: never started
	state    sched.State
	reason   string
}

func record(t *testing.T, j *journal.Journal, jobs []job) {
	t.Helper()
	ctx := context.Background()
	for n, jb := range jobs {
		sj := &sched.Job{Key: fmt.Sprint("k", n), Kind: jb.kind, Class: sched.P2, Enqueued: jb.enqueued}
		if _, err := j.Enqueue(ctx, []*sched.Job{sj}); err != nil {
			t.Fatal(err)
		}
		if jb.run == 0 {
			continue
		}
		at := jb.enqueued.Add(time.Second)
		if won, err := j.Claim(ctx, sj, "lo-1", at); err != nil || !won {
			t.Fatalf("Claim %d: %v, %v", n, won, err)
		}
		a := sched.Attempt{Job: sj, Backend: "lo-1", Attempt: sj.Attempts, State: jb.state, Started: at,
			Finished: at.Add(jb.run), Reason: jb.reason}
		if jb.reason != "" {
			a.Err = jb.reason
		}
		if err := j.Finish(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCollect(t *testing.T) {
	ctx := context.Background()
	j, err := journal.Open(ctx, filepath.Join(t.TempDir(), "calq.db"), journal.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	at := func(hm string) time.Time {
		tm, err := time.Parse("2006-01-02 15:04:05", "2026-11-01 "+hm)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	s := time.Second
	record(t, j, []job{
		{"convert-office", at("11:52:00"), 1 * s, sched.StateDone, ""},
		{"convert-office", at("11:53:00"), 3 * s, sched.StateDone, ""},
		{"convert-image", at("11:54:59"), 2 * s, sched.StateDone, ""},
		{"convert-office", at("12:01:00"), 4 * s, sched.StateFailed, "load failed"},
		{"convert-office", at("12:01:30"), 10 * s, sched.StateTimedOut, "timeout"},
		{"convert-office", at("12:02:00"), 0, sched.StateQueued, ""},
		{"shell", at("12:00:00"), 7 * s, sched.StateDone, ""},                           // not a conversion
		{"convert-office", at("08:30:00"), 5 * s, sched.StateDone, ""},                  // the day only
		{"convert-office", at("08:30:00").Add(-48 * time.Hour), s, sched.StateDone, ""}, // neither
	})
	gate := fair.Stats{Servers: 2, Busy: 2, Waiting: 3, WaitingByClass: [sched.NumClasses]int{0, 1, 2, 0},
		WaitingByUser: map[string]int{"ann": 1, "bob": 2}}
	insts := []lo.InstanceStats{{Name: "lo-1", State: lo.StateBusy, Conversions: 9, Restarts: 1, RSS: 1 << 20}}
	snap, err := Collect(ctx, Sources{
		History:   j,
		Instances: func() []lo.InstanceStats { return insts },
		Queue:     func() fair.Stats { return gate },
		SMS:       fakeSMS{store.Counts{Outbox: map[string]int{"queued": 2}, Inbox: 5}},
		Now:       func() time.Time { return now },
		Analyze:   true,
	})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("hour", func(t *testing.T) {
		h := snap.Hour
		if len(h.Buckets) != 12 || !h.Since.Equal(at("11:05:00")) || !h.Until.Equal(now) || h.Step != 5*time.Minute {
			t.Fatalf("hour window: %d buckets from %v to %v by %v", len(h.Buckets), h.Since, h.Until, h.Step)
		}
		checkBucket(t, "11:50", h.Buckets[9], at("11:50:00"), 3, 3, 0, 3, 2, 3)
		checkBucket(t, "12:00", h.Buckets[11], at("12:00:00"), 3, 0, 2, 2, 4, 10)
		checkBucket(t, "11:05", h.Buckets[0], at("11:05:00"), 0, 0, 0, 0, 0, 0)
		checkBucket(t, "total", h.Total, at("11:05:00"), 6, 3, 2, 5, 3, 10)
	})
	t.Run("day", func(t *testing.T) {
		d := snap.Day
		if len(d.Buckets) != 24 || !d.Since.Equal(at("13:00:00").Add(-24*time.Hour)) || d.Step != time.Hour {
			t.Fatalf("day window: %d buckets from %v by %v", len(d.Buckets), d.Since, d.Step)
		}
		checkBucket(t, "08:00", d.Buckets[19], at("08:00:00"), 1, 1, 0, 1, 5, 5)
		checkBucket(t, "11:00", d.Buckets[22], at("11:00:00"), 3, 3, 0, 3, 2, 3)
		checkBucket(t, "12:00", d.Buckets[23], at("12:00:00"), 3, 0, 2, 2, 4, 10)
		checkBucket(t, "total", d.Total, d.Since, 7, 4, 2, 6, 3, 10)
		want := []history.ReasonCount{{Reason: "load failed", Count: 1}, {Reason: "timeout", Count: 1}}
		if fmt.Sprint(snap.Failures) != fmt.Sprint(want) {
			t.Errorf("failures %v, want %v", snap.Failures, want)
		}
	})
	t.Run("analysis", func(t *testing.T) {
		var jobs int
		for _, g := range snap.Analysis {
			jobs += g.Jobs
			if g.Backend != "lo-1" {
				t.Errorf("analysis group %s/%s, want backend lo-1", g.Kind, g.Backend)
			}
		}
		if len(snap.Analysis) != 2 || jobs != 6 { // the 6 conversions of the day that started
			t.Errorf("analysis: %d groups, %d jobs; want 2 kinds, 6 jobs", len(snap.Analysis), jobs)
		}
	})
	t.Run("live", func(t *testing.T) {
		q := snap.Queue
		if q == nil || q.ByClass != gate.WaitingByClass || fmt.Sprint(q.ByUser) != "[{bob 2} {ann 1}]" || q.Waiting != 3 {
			t.Errorf("queue %+v, want P1 1, P2 2, bob 2 before ann 1", q)
		}
		if len(snap.Instances) != 1 || snap.Instances[0] != insts[0] {
			t.Errorf("instances %+v, want %+v", snap.Instances, insts)
		}
		if snap.SMS == nil || snap.SMS.Outbox["queued"] != 2 || snap.SMS.Inbox != 5 {
			t.Errorf("sms %+v", snap.SMS)
		}
		if !snap.At.Equal(now) {
			t.Errorf("at %v, want %v", snap.At, now)
		}
	})
}

func checkBucket(t *testing.T, name string, b Bucket, start time.Time, jobs, done, failed, n int, p50, p95 float64) {
	t.Helper()
	if !b.Start.Equal(start) || b.Jobs != jobs || b.Done != done || b.Failed != failed || b.Run.N != n ||
		b.Run.P50 != p50 || b.Run.P95 != p95 {
		t.Errorf("bucket %s = %+v,\nwant start %v, %d jobs, %d done, %d failed, %d runs, p50 %v, p95 %v",
			name, b, start, jobs, done, failed, n, p50, p95)
	}
}

// TestCollectWithout: without a pool, a gate or SMS, their parts are nil
// and an empty history gives empty buckets.
func TestCollectWithout(t *testing.T) {
	j, err := journal.Open(context.Background(), filepath.Join(t.TempDir(), "calq.db"), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	snap, err := Collect(context.Background(), Sources{History: j, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Instances != nil || snap.Queue != nil || snap.SMS != nil || snap.Analysis != nil || len(snap.Failures) != 0 {
		t.Errorf("snapshot without sources: %+v", snap)
	}
	if len(snap.Day.Buckets) != 24 || snap.Day.Total.Jobs != 0 || snap.Day.Total.Run.N != 0 {
		t.Errorf("day of an empty history: %+v", snap.Day.Total)
	}
}

// TestQueueClasses: the queue's classes come out P0 to P3, each with its
// own count (ByClass is indexed by Class.Index, not by the Class).
func TestQueueClasses(t *testing.T) {
	q := queueOf(fair.Stats{WaitingByClass: [sched.NumClasses]int{1, 2, 3, 4}})
	got := fmt.Sprint(q.Classes())
	if want := "[{P0 1} {P1 2} {P2 3} {P3 4}]"; got != want {
		t.Errorf("Classes() = %s, want %s", got, want)
	}
}
