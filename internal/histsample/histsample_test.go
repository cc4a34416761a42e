package histsample

import (
	"testing"
	"time"

	"calq/analyze"
	"calq/sched"
	"calq/sched/history"
)

func TestFromRecords(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	run := 2.5
	recs := []history.Record{
		{Kind: "convert-office", RanOn: "local", Class: sched.P0, State: sched.StateDone, Enqueued: t0, Started: t0.Add(time.Second),
			Finished: t0.Add(4 * time.Second), RunS: &run},
		{Kind: "convert-office", State: sched.StateQueued, Enqueued: t0}, // never started: left out
		{Kind: "shell", RanOn: "local", Class: sched.P3, State: sched.StateQueued, Enqueued: t0, Started: t0.Add(time.Second), RunS: &run},
		{Kind: "shell", RanOn: "local", State: sched.StateFailed, Enqueued: t0, Started: t0, Finished: t0.Add(time.Second)},
	}
	want := []analyze.JobSample{
		{Kind: "convert-office", Backend: "local", Enqueued: t0, Started: t0.Add(time.Second),
			Finished: t0.Add(4 * time.Second), Service: 2500 * time.Millisecond, OK: true},
		{Kind: "shell", Backend: "local", Class: 3, Enqueued: t0, Started: t0.Add(time.Second)},               // waiting to retry: no service
		{Kind: "shell", Backend: "local", Class: 2, Enqueued: t0, Started: t0, Finished: t0.Add(time.Second)}, // the zero class is P2
	}
	got := FromRecords(recs)
	if len(got) != len(want) {
		t.Fatalf("FromRecords = %d samples, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sample %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
