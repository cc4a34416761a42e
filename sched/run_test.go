package sched

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"calq/internal/exitcode"
)

func TestReadCommands(t *testing.T) {
	got, err := ReadCommands(strings.NewReader("echo a\n\n  # comment\n  echo b  \n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"echo a", "echo b"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestRunCommandsPartial: one failing line of five makes a partial failure
// after its retry; the others are done and their output is delivered.
func TestRunCommandsPartial(t *testing.T) {
	var mu sync.Mutex
	var out []string
	res, err := RunCommands(context.Background(), RunOptions{
		Commands: []string{"echo 1", "echo 2", "exit 1", "echo 4", "echo 5"},
		Workers:  2, Retries: 1, Backoff: Backoff{Base: time.Millisecond},
		Output: func(j *Job, stdout, stderr []byte) {
			mu.Lock()
			if len(stdout) > 0 {
				out = append(out, strings.TrimSpace(string(stdout)))
			}
			mu.Unlock()
		},
	})
	if !errors.Is(err, exitcode.ErrPartial) {
		t.Errorf("error %v, want ErrPartial", err)
	}
	if res.Done != 4 || res.Failed != 1 || res.Retries != 1 {
		t.Errorf("summary %+v, want 4 done, 1 failed after 1 retry", res.Summary)
	}
	if len(out) != 4 {
		t.Errorf("outputs %q, want the four echoes", out)
	}
}

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

func TestClass(t *testing.T) {
	tests := []struct {
		in     string
		want   Class
		str    string
		weight float64
	}{
		{"P0", P0, "P0", 4},
		{"interactive", P1, "P1", 2},
		{"2", P2, "P2", 1},
		{" p3 ", P3, "P3", 0.5},
	}
	for _, tt := range tests {
		c, err := ParseClass(tt.in)
		if err != nil || c != tt.want || c.String() != tt.str || c.Weight() != tt.weight {
			t.Errorf("ParseClass(%q) = %v (%v, weight %v), want %v (weight %v)", tt.in, c, err, c.Weight(), tt.str, tt.weight)
		}
		if b, err := c.MarshalText(); err != nil || string(b) != tt.str {
			t.Errorf("%v.MarshalText() = %q, %v", c, b, err)
		}
	}
	var zero Class
	if zero.Index() != P2.Index() || zero.Weight() != 1 {
		t.Errorf("the zero Class has index %d, weight %v; want P2's", zero.Index(), zero.Weight())
	}
	if _, err := ParseClass("P4"); err == nil {
		t.Error("ParseClass(P4) succeeded")
	}
	if _, err := Class(9).MarshalText(); err == nil {
		t.Error("Class(9).MarshalText() succeeded")
	}
}

// TestOutputAfterRecord: a job's output is handed on only once its
// attempt's end is in the journal. Printing it (to a slow pipe, say) must
// not widen the window in which a finished job is not yet recorded and
// would run again after calq is killed (issue 13: 3 of 28 SIGKILLs).
func TestOutputAfterRecord(t *testing.T) {
	jn := &fakeJournal{winAll: true}
	var mu sync.Mutex
	var unrecorded []string
	outputs := 0
	_, err := RunCommands(context.Background(), RunOptions{
		Commands: []string{"echo a", "echo b", "exit 3", "echo c"},
		Workers:  2, Retries: 1, Backoff: Backoff{Base: time.Millisecond}, Journal: jn,
		Output: func(j *Job, stdout, stderr []byte) {
			jn.mu.Lock()
			recorded := slices.ContainsFunc(jn.finished, func(a Attempt) bool { return a.Job.Key == j.Key && a.Attempt == j.Attempts })
			jn.mu.Unlock()
			mu.Lock()
			defer mu.Unlock()
			outputs++
			if !recorded {
				unrecorded = append(unrecorded, fmt.Sprintf("%s attempt %d", j.Key, j.Attempts))
			}
		},
	})
	if !errors.Is(err, exitcode.ErrPartial) {
		t.Fatalf("RunCommands: %v, want ErrPartial (exit 3 fails after its retry)", err)
	}
	if outputs != 5 {
		t.Errorf("got output of %d attempts, want 5 (exit 3 ran twice)", outputs)
	}
	if len(unrecorded) > 0 {
		t.Errorf("output handed on before the journal recorded the attempt: %v", unrecorded)
	}
}
