package shell

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"calq/internal/exitcode"
	"calq/internal/proc"
	"calq/sched"
	"calq/sched/journal"
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

// TestReadCommandsLimits: a byte order mark is not part of the first
// command; a line a shell can be given is read, a longer one (up to 1 MiB
// and beyond) is an error naming its line.
func TestReadCommandsLimits(t *testing.T) {
	longest := ": " + strings.Repeat("x", proc.MaxShellLine-2)
	tests := []struct {
		name     string
		in       string
		want     []string
		wantLine int // a *LineTooLongError for this line
	}{
		{"BOM", "\uFEFFecho a\necho b\n", []string{"echo a", "echo b"}, 0},
		{"BOM then comment", "\uFEFF# c\necho b\n", []string{"echo b"}, 0},
		{"BOM inside is kept", "echo a\n\uFEFFecho b\n", []string{"echo a", "\uFEFFecho b"}, 0},
		{"longest, CRLF", "echo a\r\n" + longest + "\r\n", []string{"echo a", longest}, 0},
		{"one byte too long", "echo a\n" + longest + "x\n", nil, 2},
		{"1 MiB", "echo a\n\n" + strings.Repeat("y", 1<<20) + "\necho c\n", nil, 3},
		{"2 MiB, last line", "# c\n" + strings.Repeat("y", 2<<20), nil, 2},
	}
	for _, tt := range tests {
		got, err := ReadCommands(strings.NewReader(tt.in))
		var long *LineTooLongError
		switch {
		case tt.wantLine != 0:
			if !errors.As(err, &long) || long.Line != tt.wantLine {
				t.Errorf("%s: %v, want a line %d too long", tt.name, err, tt.wantLine)
			} else if msg := err.Error(); !strings.Contains(msg, "line "+strconv.Itoa(tt.wantLine)+": ") || !strings.Contains(msg, strconv.Itoa(proc.MaxShellLine)) {
				t.Errorf("%s: message %q names neither the line nor the limit", tt.name, msg)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case strings.Join(got, "\x00") != strings.Join(tt.want, "\x00"):
			t.Errorf("%s: got %.40q, want %.40q", tt.name, got, tt.want)
		}
	}
}

// TestLongestLineRuns: the longest line ReadCommands takes runs, through
// the keeper as a batch does, and its output is whole.
func TestLongestLineRuns(t *testing.T) {
	line := "echo " + strings.Repeat("x", proc.MaxShellLine-5)
	var out []byte
	_, err := RunCommands(t.Context(), RunOptions{Commands: []string{line},
		Output: func(j *sched.Job, stdout, stderr []byte) { out = append(out, stdout...) }})
	if err != nil {
		t.Fatalf("a line of %d bytes: %v", len(line), err)
	}
	if want := strings.Repeat("x", proc.MaxShellLine-5) + "\n"; string(out) != want {
		t.Errorf("output of %d bytes, want %d", len(out), len(want))
	}
	if err := CheckLine(line + "x"); err == nil {
		t.Errorf("CheckLine of %d bytes: nil, want too long", len(line)+1)
	}
}

// TestRunCommandsPartial: one failing line of five makes a partial failure
// after its retry; the others are done and their output is delivered.
func TestRunCommandsPartial(t *testing.T) {
	var mu sync.Mutex
	var out []string
	res, err := RunCommands(context.Background(), RunOptions{
		Commands: []string{"echo 1", "echo 2", "exit 1", "echo 4", "echo 5"},
		Workers:  2, Retries: 1, Backoff: sched.Backoff{Base: time.Millisecond},
		Output: func(j *sched.Job, stdout, stderr []byte) {
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

// TestOutputAfterRecord: a job's output is handed on only once its
// attempt's end is in the journal. Printing it (to a slow pipe, say) must
// not widen the window in which a finished job is not yet recorded and
// would run again after calq is killed (issue 13: 3 of 28 SIGKILLs).
func TestOutputAfterRecord(t *testing.T) {
	jn := openRecording(t)
	var mu sync.Mutex
	var unrecorded []string
	outputs := 0
	_, err := RunCommands(context.Background(), RunOptions{
		Commands: []string{"echo a", "echo b", "exit 3", "echo c"},
		Workers:  2, Retries: 1, Backoff: sched.Backoff{Base: time.Millisecond}, Journal: jn,
		Output: func(j *sched.Job, stdout, stderr []byte) {
			jn.mu.Lock()
			recorded := slices.ContainsFunc(jn.finished, func(a sched.Attempt) bool { return a.Job.Key == j.Key && a.Attempt == j.Attempts })
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

// recordingJournal is a real journal that remembers the attempts whose end
// it has recorded.
type recordingJournal struct {
	sched.Journal
	mu       sync.Mutex
	finished []sched.Attempt
}

func openRecording(t *testing.T) *recordingJournal {
	t.Helper()
	j, err := journal.Open(context.Background(), filepath.Join(t.TempDir(), "calq.db"), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return &recordingJournal{Journal: j}
}

func (r *recordingJournal) Finish(ctx context.Context, a sched.Attempt) error {
	if err := r.Journal.Finish(ctx, a); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finished = append(r.finished, a)
	return nil
}

// TestOutcome: exit status 1 when nothing succeeded, 3 when only some
// failed (issue 13); jobs done by an earlier run count as succeeded.
func TestOutcome(t *testing.T) {
	tests := []struct {
		name    string
		s       sched.Summary
		partial bool
		none    bool
		msg     string
	}{
		{"all done", sched.Summary{Submitted: 2, Done: 2}, false, false, ""},
		{"one failed of one", sched.Summary{Submitted: 1, Failed: 1}, false, true, "no job succeeded: 1 of 1 job failed"},
		{"all timed out or failed", sched.Summary{Submitted: 3, Failed: 1, TimedOut: 2}, false, true, "no job succeeded: 3 of 3 jobs failed"},
		{"some failed", sched.Summary{Submitted: 3, Done: 2, Failed: 1}, true, false, "partial failure: 1 of 3 jobs failed"},
		{"the rest done before", sched.Summary{Submitted: 2, Skipped: 1, Failed: 1}, true, false, "partial failure: 1 of 2 jobs failed"},
	}
	for _, tt := range tests {
		err := outcome(tt.s)
		if errors.Is(err, exitcode.ErrPartial) != tt.partial || errors.Is(err, ErrNoneSucceeded) != tt.none ||
			(err == nil) != (tt.msg == "") || err != nil && err.Error() != tt.msg {
			t.Errorf("%s: outcome(%+v) = %v, want %q", tt.name, tt.s, err, tt.msg)
		}
	}
}
