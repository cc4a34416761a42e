package shell

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"calq/internal/exitcode"
	"calq/internal/proc"
	"calq/sched"
)

// RunOptions configure RunCommands.
type RunOptions struct {
	Commands []string      // shell command lines, one job each
	Workers  int           // how many run at once; default 1
	Class    sched.Class   // priority class of every job
	Retries  int           // retry budget of each job
	Timeout  time.Duration // per attempt; zero means none
	At       time.Time     // start no earlier than this
	Label    string        // names the batch in the journal and in `calq history`
	Force    bool          // a new batch, even when these lines' batch is recorded, finished or not
	Shell    string        // default /bin/sh
	Env      []string      // the jobs' environment; nil: calq's own (calq's secrets are removed either way)
	Grace    time.Duration // SIGTERM to SIGKILL on timeout or stop; default 5s
	Backoff  sched.Backoff
	Clock    sched.Clock

	Journal      sched.Journal  // nil: nothing recorded, nothing resumed
	Metrics      *sched.Metrics // nil: none
	MetricsFile  string         // written every MetricsEvery (default 15s) and at the end
	MetricsEvery time.Duration
	// Warn receives what fails beside the work without failing it: the
	// last metrics write (the run keeps its exit status). Nil: dropped.
	Warn   func(error)
	Events func(sched.Event)                         // progress, as the engine reports it
	Output func(j *sched.Job, stdout, stderr []byte) // each attempt's output, whole
}

// RunResult is what became of a RunCommands batch.
type RunResult struct {
	sched.Summary
	Batch string `json:"batch,omitempty"` // the journal's batch key
}

// ReadCommands reads command lines, one per line, skipping blank lines and
// lines whose first non-blank character is '#'. A UTF-8 byte order mark
// before the first line is dropped (an editor's, not part of the first
// command). A line longer than proc.MaxShellLine, which no shell could be
// given, is an error naming its number: a *LineTooLongError.
func ReadCommands(r io.Reader) ([]string, error) {
	var cmds []string
	sc := bufio.NewScanner(r)
	// Room for the limit and a CR: a longer line stops the scan.
	sc.Buffer(make([]byte, 64<<10), proc.MaxShellLine+2)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if n == 1 {
			line = strings.TrimPrefix(line, "\uFEFF")
		}
		line = strings.TrimSpace(line)
		if len(line) > proc.MaxShellLine {
			return nil, &LineTooLongError{Line: n}
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cmds = append(cmds, line)
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, &LineTooLongError{Line: n + 1}
	} else if err != nil {
		return nil, fmt.Errorf("read commands: %w", err)
	}
	return cmds, nil
}

// LineTooLongError is a command line longer than proc.MaxShellLine bytes:
// the kernel would refuse to start the shell with it.
type LineTooLongError struct {
	Line int // 1-based; 0 for a command line given whole
}

func (e *LineTooLongError) Error() string {
	what := "the command line"
	if e.Line > 0 {
		what = "line " + strconv.Itoa(e.Line)
	}
	return fmt.Sprintf("%s: longer than %d bytes, the most a shell can be given (Linux's MAX_ARG_STRLEN, 128 KiB)", what, proc.MaxShellLine)
}

// CheckLine returns a *LineTooLongError if line is longer than a shell
// can be given.
func CheckLine(line string) error {
	if len(line) > proc.MaxShellLine {
		return &LineTooLongError{}
	}
	return nil
}

// RunCommands runs each command line as a job of kind Kind on a pool of
// Workers shell workers and waits for all of them, the way GNU parallel or
// task-spooler would. With a journal the batch is keyed by its label and
// commands, so a re-run of an unfinished batch resumes it (jobs done are
// skipped, jobs left running by a dead process run again) and an
// overlapping run of the same batch shares the work rather than repeating
// it. It returns an error wrapping ErrNoneSucceeded when every job failed
// or timed out, one wrapping exitcode.ErrPartial when some did, and one
// wrapping the context's cause when ctx ended first.
func RunCommands(ctx context.Context, o RunOptions) (RunResult, error) {
	if len(o.Commands) == 0 {
		return RunResult{}, errors.New("run: no commands")
	}
	keeper := proc.NewKeeper()
	defer keeper.Close()
	e, flush, err := newShellEngine(o, keeper)
	if err != nil {
		return RunResult{}, err
	}
	defer flush() // output no end event took along (an abandoned attempt's)
	defer e.Close()
	res := RunResult{}
	jobs, batch, err := shellJobs(ctx, o)
	if err != nil {
		return res, err
	}
	res.Batch = batch
	stopMetrics := o.Metrics.WriteEvery(o.MetricsFile, o.MetricsEvery)
	e.Start()
	err = e.Submit(ctx, jobs...)
	if err == nil {
		res.Summary, err = e.Wait(ctx)
	}
	err = errors.Join(err, e.Close())
	if merr := stopMetrics(); merr != nil && o.Warn != nil {
		o.Warn(merr) // the jobs ran: a side output does not undo that
	}
	if err != nil {
		res.Summary = e.Summary()
		return res, err
	}
	return res, outcome(res.Summary)
}

// ErrNoneSucceeded is returned by RunCommands when every job failed or
// timed out (exit status 1; some of them only is a partial failure, 3).
var ErrNoneSucceeded = errors.New("no job succeeded")

func outcome(s sched.Summary) error {
	bad := s.Failed + s.TimedOut
	noun := "jobs"
	if s.Submitted == 1 {
		noun = "job"
	}
	switch {
	case bad == 0:
		return nil
	case s.Done+s.Skipped == 0:
		return fmt.Errorf("%w: %d of %d %s failed", ErrNoneSucceeded, bad, s.Submitted, noun)
	}
	return fmt.Errorf("%w: %d of %d %s failed", exitcode.ErrPartial, bad, s.Submitted, noun)
}

func newShellEngine(o RunOptions, keeper *proc.Keeper) (*sched.Engine, func(), error) {
	n := max(o.Workers, 1)
	ws := make([]sched.Worker, n)
	events, output, flush := o.Events, o.Output, func() {}
	if output != nil {
		d := &outputAfterRecord{out: output, pending: map[*sched.Job]attemptOutput{}}
		events, output, flush = d.events(o.Events), d.store, d.flush
	}
	for i := range ws {
		ws[i] = &Worker{Shell: o.Shell, Grace: o.Grace, Output: output, Env: o.Env, Keeper: keeper}
	}
	grace := o.Grace
	if grace <= 0 {
		grace = 5 * time.Second
	}
	e, err := sched.NewEngine(sched.EngineOptions{
		Backends: []sched.Backend{{Name: "shell", Workers: ws}},
		Clock:    o.Clock, Journal: o.Journal, Metrics: o.Metrics, Events: events,
		Backoff: o.Backoff, Grace: grace + time.Second,
	})
	return e, flush, err
}

// shellJobs makes the batch's jobs, keyed in the journal by batch and line.
func shellJobs(ctx context.Context, o RunOptions) ([]*sched.Job, string, error) {
	prefix := ""
	if o.Journal != nil {
		h := sha256.New()
		fmt.Fprintf(h, "%s\x00", o.Label)
		for _, c := range o.Commands {
			fmt.Fprintf(h, "%s\x00", c)
		}
		name := fmt.Sprintf("run:%s:%s", o.Label, hex.EncodeToString(h.Sum(nil))[:12])
		if o.Force {
			name += ":" + strconv.FormatInt(time.Now().UnixNano(), 36)
		}
		var err error
		if prefix, err = o.Journal.Batch(ctx, name); err != nil {
			return nil, "", fmt.Errorf("run: open batch in journal: %w", err)
		}
	}
	jobs := make([]*sched.Job, len(o.Commands))
	for i, c := range o.Commands {
		jobs[i] = &sched.Job{Kind: Kind, Payload: []byte(c), Label: o.Label, Class: o.Class,
			NotBefore: o.At, Timeout: o.Timeout, Retries: o.Retries}
		if prefix != "" {
			jobs[i].Key = fmt.Sprintf("%s/%d", prefix, i+1)
		}
	}
	return jobs, prefix, nil
}

// outputAfterRecord holds each attempt's output until the engine has
// recorded the attempt's end in the journal: the engine emits the
// attempt's end event after that record, and the output is handed on just
// before the event. Printing output (to a slow pipe or terminal) so never
// widens the window between a job's exit and its record, in which calq's
// death would make the finished job run again.
type outputAfterRecord struct {
	mu      sync.Mutex
	pending map[*sched.Job]attemptOutput
	out     func(j *sched.Job, stdout, stderr []byte)
}

type attemptOutput struct{ stdout, stderr []byte }

// store keeps an attempt's output: it is Worker's Output.
func (d *outputAfterRecord) store(j *sched.Job, stdout, stderr []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pending[j] = attemptOutput{stdout, stderr}
}

// flush hands on what no event took along.
func (d *outputAfterRecord) flush() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for j, o := range d.pending {
		d.out(j, o.stdout, o.stderr)
		delete(d.pending, j)
	}
}

// events wraps next: the first event of a job after its attempt ended (its
// end event, emitted once the end is recorded) hands on its output first.
func (d *outputAfterRecord) events(next func(sched.Event)) func(sched.Event) {
	return func(ev sched.Event) {
		if ev.Job != nil {
			d.mu.Lock()
			o, ok := d.pending[ev.Job]
			delete(d.pending, ev.Job)
			d.mu.Unlock()
			if ok {
				d.out(ev.Job, o.stdout, o.stderr)
			}
		}
		if next != nil {
			next(ev)
		}
	}
}
