package sched

import (
	"context"
	"sync"
	"testing"
	"time"
)

// fakeJournal admits every job and lets a claim through only for keys it
// is told this process wins.
type fakeJournal struct {
	mu       sync.Mutex
	win      map[string]bool
	winAll   bool
	finished []Attempt
}

func (f *fakeJournal) Batch(_ context.Context, key string) (string, error) { return key + "#1", nil }
func (f *fakeJournal) Enqueue(_ context.Context, jobs []*Job) ([]Admission, error) {
	adm := make([]Admission, len(jobs))
	for i := range adm {
		adm[i] = Admission{Run: true, State: StateQueued}
	}
	return adm, nil
}
func (f *fakeJournal) Claim(_ context.Context, j *Job, _ string, _ time.Time) (bool, error) {
	if !f.win[j.Key] && !f.winAll {
		return false, nil
	}
	j.Attempts++
	return true, nil
}
func (f *fakeJournal) Finish(_ context.Context, a Attempt) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.finished = append(f.finished, a)
	return nil
}
func (f *fakeJournal) Close() error { return nil }

// TestJournalClaimLost: a job whose claim another process won is skipped,
// never run, and not recorded by this process.
func TestJournalClaimLost(t *testing.T) {
	rec := &recorder{}
	jn := &fakeJournal{win: map[string]bool{"a": true}}
	e := newTestEngine(t, EngineOptions{Journal: jn, Backends: []Backend{{Name: "b", Workers: []Worker{rec}}}})
	e.Start()
	if err := e.Submit(context.Background(), &Job{Key: "a", Kind: "k"}, &Job{Key: "b", Kind: "k"}); err != nil {
		t.Fatal(err)
	}
	sum := wait(t, e)
	if sum.Done != 1 || sum.Skipped != 1 || len(rec.jobs()) != 1 || rec.jobs()[0].Key != "a" {
		t.Errorf("summary %+v, ran %d jobs; want a done and b skipped", sum, len(rec.jobs()))
	}
	if len(jn.finished) != 1 || jn.finished[0].Job.Key != "a" || jn.finished[0].State != StateDone || jn.finished[0].Attempt != 1 {
		t.Errorf("journal got %+v, want one done attempt of a", jn.finished)
	}
}
