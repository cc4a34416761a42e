package schedcmd

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"calq/internal/cli/base"
	"calq/sched"
	"calq/sched/shell"
)

// runRenderer shows calq sched run's events: JSON lines on stdout, or a
// progress bar (terminal) or one line per job (otherwise) on stderr, with
// each job's output on stdout and stderr as the job ends. The engine calls
// it from several goroutines.
type runRenderer struct {
	mu     sync.Mutex
	stdout io.Writer
	stderr io.Writer
	json   bool // --json
	quiet  bool
	bar    *progressbar.ProgressBar // stderr is a terminal
	total  int
	ended  int
}

func newRunRenderer(stdout, stderr io.Writer, asJSON, quiet bool, total int) *runRenderer {
	r := &runRenderer{stdout: stdout, stderr: stderr, quiet: quiet, total: total}
	switch {
	case asJSON:
		r.json = true
	case !quiet && base.IsTerminal(stderr):
		r.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription("jobs"), progressbar.OptionShowCount(),
			progressbar.OptionSetElapsedTime(true), progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
	}
	return r
}

// jobLine is the --json form of a job event.
type jobLine struct {
	MessageType string  `json:"message_type"` // "job"
	Event       string  `json:"event"`
	Time        string  `json:"time"`
	ID          int64   `json:"id"`
	Key         string  `json:"key"`
	Command     string  `json:"command"`
	Attempt     int     `json:"attempt,omitempty"`
	State       string  `json:"state,omitempty"`
	WaitS       float64 `json:"wait_seconds,omitempty"`
	RunS        float64 `json:"run_seconds,omitempty"`
	Reason      string  `json:"reason,omitempty"`
	Error       string  `json:"error,omitempty"`
	RetryAt     string  `json:"retry_at,omitempty"`
	Message     string  `json:"message,omitempty"`
	Stdout      *string `json:"stdout,omitempty"`
	Stderr      *string `json:"stderr,omitempty"`
}

func (r *runRenderer) event(ev sched.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ends := ev.Job != nil && isEnd(ev.Type)
	if ends {
		r.ended++
	}
	if r.json {
		mt, v := toLine(ev)
		_ = base.WriteJSONLine(r.stdout, mt, v)
		return
	}
	// The command, the owner and errors come from job files, submitters
	// and the database: escaped, none can forge a line. A job's output
	// (see output) is its own and stays as it is, as GNU parallel's does.
	line := base.SafeText(r.describe(ev))
	switch {
	case line == "":
	case r.bar != nil:
		_ = r.bar.Clear()
		fmt.Fprintln(r.stderr, line)
	case !r.quiet || ev.Type != sched.EventDone:
		fmt.Fprintln(r.stderr, line)
	}
	if r.bar != nil && ends {
		_ = r.bar.Add(1)
	}
}

func isEnd(t sched.EventType) bool {
	switch t {
	case sched.EventDone, sched.EventFailed, sched.EventTimedOut, sched.EventCancelled, sched.EventSkipped:
		return true
	}
	return false
}

// describe is an event's line on stderr; done jobs get one only when there
// is no progress bar.
func (r *runRenderer) describe(ev sched.Event) string {
	if ev.Job == nil {
		return "calq: " + ev.Message + errSuffix(ev.Err)
	}
	cmd := string(ev.Job.Payload)
	switch ev.Type {
	case sched.EventDone:
		if r.bar != nil {
			return ""
		}
		return fmt.Sprintf("calq: done [%d/%d] %s (%s)", r.ended, r.total, cmd, ev.Run.Round(time.Millisecond))
	case sched.EventFailed, sched.EventTimedOut:
		return fmt.Sprintf("calq: %s [%d/%d] after %s: %s%s", strings.ReplaceAll(string(ev.Type), "_", " "),
			r.ended, r.total, base.Plural(ev.Attempt, "attempt"), cmd, errSuffix(ev.Err))
	case sched.EventRetry:
		return fmt.Sprintf("calq: retry %d/%d at %s: %s%s", ev.Attempt, ev.Job.Retries,
			ev.RetryAt.Format("15:04:05"), cmd, errSuffix(ev.Err))
	case sched.EventCancelled:
		return fmt.Sprintf("calq: cancelled: %s", cmd)
	case shell.EventRequeued:
		return fmt.Sprintf("calq: requeued (%s, attempt %d on %s): %s", ev.Reason, ev.Attempt, ev.Backend, cmd)
	case sched.EventSkipped:
		why := "ended in an earlier run"
		switch {
		case ev.Owner != "":
			why = "running in another calq, " + ev.Owner
		case ev.Message != "":
			why = ev.Message
		}
		return fmt.Sprintf("calq: skipped (%s): %s", why, cmd)
	}
	return ""
}

func errSuffix(err error) string {
	if err == nil {
		return ""
	}
	return ": " + err.Error()
}

func toLine(ev sched.Event) (messageType string, v any) {
	if ev.Job == nil {
		return "backend", map[string]string{"message_type": "backend", "event": string(ev.Type), "time": ev.Time.Format(time.RFC3339Nano),
			"backend": ev.Backend, "message": ev.Message, "error": strings.TrimPrefix(errSuffix(ev.Err), ": ")}
	}
	l := jobLine{MessageType: "job", Event: string(ev.Type), Time: ev.Time.Format(time.RFC3339Nano), ID: ev.Job.ID,
		Key: ev.Job.Key, Command: string(ev.Job.Payload), Attempt: ev.Attempt, State: string(ev.State),
		WaitS: ev.Wait.Seconds(), RunS: ev.Run.Seconds(), Reason: ev.Reason, Message: ev.Message,
		Error: strings.TrimPrefix(errSuffix(ev.Err), ": ")}
	if !ev.RetryAt.IsZero() {
		l.RetryAt = ev.RetryAt.Format(time.RFC3339Nano)
	}
	return "job", l
}

// output prints a job's output whole: into the JSON stream, or onto
// stdout and stderr.
func (r *runRenderer) output(j *sched.Job, stdout, stderr []byte) {
	if len(stdout) == 0 && len(stderr) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.json {
		so, se := string(stdout), string(stderr)
		_ = base.WriteJSONLine(r.stdout, "output", jobLine{MessageType: "output", Event: "output", Time: time.Now().Format(time.RFC3339Nano),
			ID: j.ID, Key: j.Key, Command: string(j.Payload), Attempt: j.Attempts, Stdout: &so, Stderr: &se})
		return
	}
	if r.bar != nil {
		_ = r.bar.Clear()
	}
	_, _ = r.stdout.Write(stdout)
	_, _ = r.stderr.Write(stderr)
}

// finish ends the bar and prints the summary.
func (r *runRenderer) finish(res shell.RunResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bar != nil {
		_ = r.bar.Finish()
	}
	s := res.Summary
	if r.json {
		_ = base.WriteJSONLine(r.stdout, "summary", struct {
			sched.Summary
			Batch string `json:"batch,omitempty"`
		}{s, res.Batch})
		return
	}
	line := fmt.Sprintf("calq: %s: %d done, %d failed, %d timed out", base.Plural(s.Submitted, "job"), s.Done, s.Failed, s.TimedOut)
	for _, x := range []struct {
		n    int
		what string
	}{{s.Cancelled, "cancelled"}, {s.NotRun, "not run"}, {s.Skipped, "skipped"}} {
		if x.n > 0 {
			line += fmt.Sprintf(", %d %s", x.n, x.what)
		}
	}
	if s.Retries > 0 {
		line += " (" + base.Plural(s.Retries, "retry") + ")"
	}
	fmt.Fprintln(r.stderr, line)
}
