package journal

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"calq/sched"
)

// fillHistory records five jobs, enqueued a minute apart from t0:
//
//	a  shell    done       waited 1s, ran 2s
//	b  shell    failed     waited 2s, ran 4s, exit status 1
//	c  convert-office  timed_out  waited 3s, ran 6s, timeout, label "report"
//	d  shell    done       waited 4s, ran 8s, label "report"
//	e  shell    queued
func fillHistory(t *testing.T, j *Journal) {
	t.Helper()
	specs := []struct {
		key, kind, label string
		state            sched.State
		reason           string
	}{
		{"a", "shell", "", sched.StateDone, ""},
		{"b", "shell", "", sched.StateFailed, "exit status 1"},
		{"c", "convert-office", "monthly report", sched.StateTimedOut, "timeout"},
		{"d", "shell", "report", sched.StateDone, ""},
	}
	for i, s := range specs {
		job := newJob(s.key)
		job.Kind, job.Label, job.Enqueued = s.kind, s.label, t0.Add(time.Duration(i)*time.Minute)
		n := time.Duration(i+1) * time.Second
		run(t, j, job, n, 2*n, s.state, s.reason)
	}
	e := newJob("e")
	e.Enqueued = t0.Add(4 * time.Minute)
	_, err := j.Enqueue(context.Background(), []*sched.Job{e})
	must(t, err)
}

func TestList(t *testing.T) {
	j := openTemp(t, newClock())
	fillHistory(t, j)
	tests := []struct {
		name string
		f    Filter
		want string
	}{
		{"all, newest first", Filter{}, "e d c b a"},
		{"kind", Filter{Kind: "shell"}, "e d b a"},
		{"state", Filter{State: sched.StateDone}, "d a"},
		{"backend", Filter{Backend: "local"}, "d c b a"},
		{"label contains", Filter{Label: "report"}, "d c"},
		{"since", Filter{Since: t0.Add(2 * time.Minute)}, "e d c"},
		{"until", Filter{Until: t0.Add(2 * time.Minute)}, "b a"},
		{"limit", Filter{Limit: 2}, "e d"},
		{"none", Filter{Kind: "sms"}, ""},
		{"kind family", Filter{Kind: "convert"}, "c"},
		{"exact kind", Filter{Kind: "convert-office"}, "c"},
		{"not a prefix of a word", Filter{Kind: "conv"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := j.List(context.Background(), tt.f)
			must(t, err)
			var keys []string
			for _, r := range recs {
				keys = append(keys, r.Key)
			}
			if got := strings.Join(keys, " "); got != tt.want {
				t.Errorf("List(%+v) = %q, want %q", tt.f, got, tt.want)
			}
		})
	}
}

func TestListRecord(t *testing.T) {
	j := openTemp(t, newClock())
	fillHistory(t, j)
	r := record(t, j, "b")
	got := fmt.Sprintf("%s %s %s attempts=%d ran_on=%s wait=%s run=%s err=%q reason=%q started=%v finished=%v",
		r.Key, r.Kind, r.State, r.Attempts, r.RanOn, seconds(r.WaitS), seconds(r.RunS), r.Error, r.Reason,
		r.Started.Format(time.TimeOnly), r.Finished.Format(time.TimeOnly))
	want := `b shell failed attempts=1 ran_on=local wait=2 run=4 err="boom: exit status 1" ` +
		`reason="exit status 1" started=12:01:02 finished=12:01:06`
	if got != want {
		t.Errorf("record\n got %s\nwant %s", got, want)
	}
}

// TestWaitMicroseconds checks that wait_s keeps the microseconds that
// SQLite's date functions would drop.
func TestWaitMicroseconds(t *testing.T) {
	j := openTemp(t, newClock())
	job := newJob("k")
	job.Enqueued = t0.Add(999_999 * time.Microsecond)
	run(t, j, job, 1500*time.Microsecond, time.Second, sched.StateDone, "")
	if got := *record(t, j, "k").WaitS; got < 0.0014999 || got > 0.0015001 {
		t.Errorf("wait_s = %v, want 0.0015", got)
	}
}

func TestStats(t *testing.T) {
	j := openTemp(t, newClock())
	fillHistory(t, j)
	s, err := j.Stats(context.Background(), Filter{})
	must(t, err)
	b, err := json.Marshal(s)
	must(t, err)
	want := `{"groups":[` +
		`{"kind":"convert-office","backend":"local","jobs":1,"states":{"timed_out":1},` +
		`"wait":{"n":1,"mean_seconds":3,"p50_seconds":3,"p90_seconds":3,"p95_seconds":3,"p99_seconds":3},` +
		`"run":{"n":1,"mean_seconds":6,"p50_seconds":6,"p90_seconds":6,"p95_seconds":6,"p99_seconds":6},` +
		`"reasons":[{"reason":"timeout","count":1}]},` +
		`{"kind":"shell","backend":"","jobs":1,"states":{"queued":1},` +
		`"wait":{"n":0,"mean_seconds":null,"p50_seconds":null,"p90_seconds":null,"p95_seconds":null,"p99_seconds":null},` +
		`"run":{"n":0,"mean_seconds":null,"p50_seconds":null,"p90_seconds":null,"p95_seconds":null,"p99_seconds":null},"reasons":[]},` +
		`{"kind":"shell","backend":"local","jobs":3,"states":{"done":2,"failed":1},` +
		`"wait":{"n":3,"mean_seconds":2.3333333333333335,"p50_seconds":2,"p90_seconds":4,"p95_seconds":4,"p99_seconds":4},` +
		`"run":{"n":3,"mean_seconds":4.666666666666667,"p50_seconds":4,"p90_seconds":8,"p95_seconds":8,"p99_seconds":8},` +
		`"reasons":[{"reason":"exit status 1","count":1}]}],` +
		`"total":{"kind":"","backend":"","jobs":5,"states":{"done":2,"failed":1,"queued":1,"timed_out":1},` +
		`"wait":{"n":4,"mean_seconds":2.5,"p50_seconds":2,"p90_seconds":4,"p95_seconds":4,"p99_seconds":4},` +
		`"run":{"n":4,"mean_seconds":5,"p50_seconds":4,"p90_seconds":8,"p95_seconds":8,"p99_seconds":8},` +
		`"reasons":[{"reason":"exit status 1","count":1},{"reason":"timeout","count":1}]}}`
	if got := string(b); got != want {
		t.Errorf("Stats\n got %s\nwant %s", got, want)
	}
	empty, err := j.Stats(context.Background(), Filter{Kind: "sms"})
	must(t, err)
	const none = `{"groups":[],"total":{"kind":"","backend":"","jobs":0,"states":{},` +
		`"wait":{"n":0,"mean_seconds":null,"p50_seconds":null,"p90_seconds":null,"p95_seconds":null,"p99_seconds":null},` +
		`"run":{"n":0,"mean_seconds":null,"p50_seconds":null,"p90_seconds":null,"p95_seconds":null,"p99_seconds":null},` +
		`"reasons":[]}}`
	if b, _ := json.Marshal(empty); string(b) != none {
		t.Errorf("Stats of nothing = %s, want %s", b, none)
	}
}

// closingBuffer is an archive that records whether Prune closed it.
type closingBuffer struct {
	bytes.Buffer
	closed bool
}

func (b *closingBuffer) Close() error { b.closed = true; return nil }

func TestPrune(t *testing.T) {
	// a, b, c, d finished at 12:00:03, 12:01:06, 12:02:09, 12:03:12; e is queued.
	before := t0.Add(2*time.Minute + 10*time.Second)
	tests := []struct {
		name         string
		opts         PruneOptions
		wantN        int
		wantLeft     string
		wantAttempts int
		wantArchived string
	}{
		{"dry run", PruneOptions{DryRun: true}, 3, "e d c b a", 4, ""},
		{"archive and vacuum", PruneOptions{Archive: &closingBuffer{}, Vacuum: true}, 3, "e d", 1, "a b c"},
		{"plain", PruneOptions{}, 3, "e d", 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := openTemp(t, newClock())
			fillHistory(t, j)
			n, err := j.Prune(context.Background(), before, tt.opts)
			must(t, err)
			if n != tt.wantN {
				t.Errorf("Prune() = %d, want %d", n, tt.wantN)
			}
			if got := listKeys(t, j); got != tt.wantLeft {
				t.Errorf("jobs left %q, want %q", got, tt.wantLeft)
			}
			if buf, ok := tt.opts.Archive.(*closingBuffer); ok {
				if got := archivedKeys(t, &buf.Buffer); got != tt.wantArchived || !buf.closed {
					t.Errorf("archive holds %q, closed %v; want %q, closed", got, buf.closed, tt.wantArchived)
				}
			}
			var attempts int
			must(t, j.db.QueryRow(`SELECT count(*) FROM attempt_log`).Scan(&attempts))
			if attempts != tt.wantAttempts {
				t.Errorf("%d attempts rows left, want %d", attempts, tt.wantAttempts)
			}
		})
	}
}

func listKeys(t *testing.T, j *Journal) string {
	t.Helper()
	recs, err := j.List(context.Background(), Filter{})
	must(t, err)
	var keys []string
	for _, r := range recs {
		keys = append(keys, r.Key)
	}
	return strings.Join(keys, " ")
}

func archivedKeys(t *testing.T, archive *bytes.Buffer) string {
	t.Helper()
	var keys []string
	sc := bufio.NewScanner(archive)
	for sc.Scan() {
		var r Record
		must(t, json.Unmarshal(sc.Bytes(), &r))
		keys = append(keys, r.Key)
	}
	slices.Sort(keys)
	return strings.Join(keys, " ")
}

func TestPruneDropsEmptiedBatches(t *testing.T) {
	c := newClock()
	j := openTemp(t, c)
	ctx := context.Background()
	key, err := j.Batch(ctx, "nightly")
	must(t, err)
	run(t, j, newJob(key+"/0"), 0, time.Second, sched.StateDone, "")
	c.Set(t0.Add(time.Hour))
	_, err = j.Prune(ctx, t0.Add(time.Minute), PruneOptions{})
	must(t, err)
	var batches int
	must(t, j.db.QueryRow(`SELECT count(*) FROM batches`).Scan(&batches))
	if batches != 0 {
		t.Errorf("%d batches left, want 0", batches)
	}
}

// TestPruneWholeBatches: a batch is pruned whole or not at all: one with
// a job left to do (queued, or cancelled by a stop: it resumes) keeps
// the jobs it finished; one that ended whole goes; a job outside batches
// goes once it ended, cancelled or not.
func TestPruneWholeBatches(t *testing.T) {
	c := newClock()
	j := openTemp(t, c)
	ctx := context.Background()
	interrupted, err := j.Batch(ctx, "interrupted")
	must(t, err)
	ended, err := j.Batch(ctx, "ended")
	must(t, err)
	run(t, j, newJob(interrupted+"/1"), 0, time.Second, sched.StateDone, "")
	run(t, j, newJob(interrupted+"/2"), 0, time.Second, sched.StateDone, "")
	cancelled := newJob(interrupted + "/3")
	_, err = j.Enqueue(ctx, []*sched.Job{cancelled})
	must(t, err)
	must(t, j.CancelQueued(ctx, []*sched.Job{cancelled}, "stopped before it started"))
	run(t, j, newJob(ended+"/1"), 0, time.Second, sched.StateDone, "")
	run(t, j, newJob(ended+"/2"), 0, time.Second, sched.StateFailed, "exit status 1")
	loose := newJob("loose")
	_, err = j.Enqueue(ctx, []*sched.Job{loose})
	must(t, err)
	must(t, j.CancelQueued(ctx, []*sched.Job{loose}, "stopped before it started"))
	c.Set(t0.Add(time.Hour))
	before := t0.Add(30 * time.Minute)
	dry, err := j.Prune(ctx, before, PruneOptions{DryRun: true})
	must(t, err)
	n, err := j.Prune(ctx, before, PruneOptions{})
	must(t, err)
	want := interrupted + "/3 " + interrupted + "/2 " + interrupted + "/1"
	if got := listKeys(t, j); n != 3 || dry != 3 || !sameKeys(got, want) {
		t.Errorf("Prune removed %d (dry run %d), left %q; want 3 (ended's 2, loose), left %q", n, dry, got, want)
	}
	key, err := j.Batch(ctx, "interrupted")
	must(t, err)
	if key != interrupted {
		t.Errorf("the interrupted batch resumes as %q, want %q", key, interrupted)
	}
}

func sameKeys(a, b string) bool {
	x, y := strings.Fields(a), strings.Fields(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}
