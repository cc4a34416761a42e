package shell

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"calq/internal/bytestr"
	"calq/internal/proc"
	"calq/sched"
	"calq/sched/pgqueue"
)

// Kind is the job kind of shell command lines, in the journal and in the
// shared queue.
const Kind = "shell"

// sharedPayload is a shell job's payload in the shared queue: the line
// and the shell that runs it. The worker's own environment applies. Both
// are bytes, not text: a line that is not UTF-8 runs as it was written.
type sharedPayload struct {
	Command bytestr.String `json:"command"`
	Shell   bytestr.String `json:"shell,omitempty"`
}

// SharedWorker runs shell jobs from the shared queue (see pgqueue): it
// reads the payload that SubmitShared wrote and runs it as Worker does.
type SharedWorker struct{ Worker }

// Run runs j's command line with the shell it names.
func (w *SharedWorker) Run(ctx context.Context, j *sched.Job) error {
	var p sharedPayload
	if err := json.Unmarshal(j.Payload, &p); err != nil || p.Command == "" {
		return sched.Permanent(fmt.Errorf("shell job %s: payload is not a shell job", j.Key))
	}
	w2 := w.Worker
	if p.Shell != "" {
		w2.Shell = string(p.Shell)
	}
	cmd := *j
	cmd.Payload = []byte(p.Command)
	out := w.Output
	w2.Output = func(_ *sched.Job, stdout, stderr []byte) {
		if out != nil {
			out(j, stdout, stderr)
		}
	}
	return w2.Run(ctx, &cmd)
}

// EventRequeued is the event of an attempt that ended without a result
// of its own: its worker died, was cut off or stopped, and the job went
// back to the queue (Event.Reason says why).
const EventRequeued sched.EventType = "requeued"

// SharedCommand returns the command line of a shared shell job's payload.
func SharedCommand(payload []byte) string {
	var p sharedPayload
	if json.Unmarshal(payload, &p) != nil {
		return string(payload)
	}
	return string(p.Command)
}

// RunShared submits the command lines of o to the shared queue q as one
// batch and waits while workers run them, reporting each attempt and its
// output through o.Events and o.Output as they are recorded. With
// o.Workers > 0 it runs that many of the batch's jobs at once itself, as a
// worker limited to this batch; with none, it first makes sure a live
// worker runs shell jobs, unless the batch has ended (pgqueue.ErrNoWorker). The same lines and label
// again resume the batch, or, once it has ended, print what it recorded
// (a submitter stopped before the end); o.Force starts a new generation.
// Stopping (ctx) leaves the jobs queued for workers.
func RunShared(ctx context.Context, q *pgqueue.Queue, o RunOptions) (RunResult, error) {
	if len(o.Commands) == 0 {
		return RunResult{}, errors.New("run: no commands")
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", o.Label, o.Shell)
	for _, c := range o.Commands {
		fmt.Fprintf(h, "%s\x00", c)
	}
	batch, err := q.Batch(ctx, fmt.Sprintf("run:%s:%s", o.Label, hex.EncodeToString(h.Sum(nil))[:12]), o.Force)
	if err != nil {
		return RunResult{}, fmt.Errorf("run: %w", err)
	}
	jobs := make([]*sched.Job, len(o.Commands))
	for i, c := range o.Commands {
		p, _ := json.Marshal(sharedPayload{Command: bytestr.String(c), Shell: bytestr.String(o.Shell)})
		jobs[i] = &sched.Job{Key: fmt.Sprintf("%s/%d", batch, i+1), Kind: Kind, Payload: p, Label: o.Label,
			Class: o.Class, NotBefore: o.At, Timeout: o.Timeout, Retries: o.Retries}
	}
	if o.Workers == 0 {
		if err := checkWorkers(ctx, q, jobs); err != nil {
			return RunResult{}, fmt.Errorf("run: %w", err)
		}
	}
	res := RunResult{Batch: batch}
	res.Submitted = len(jobs)
	if _, err := q.Submit(ctx, batch, jobs); err != nil {
		return res, fmt.Errorf("run: %w", err)
	}
	stopLocal := func() error { return nil }
	if o.Workers > 0 {
		w := q.NewWorker(pgqueue.WorkerOptions{Jobs: o.Workers, Batch: batch, Backoff: o.Backoff})
		keeper := proc.NewKeeper()
		defer keeper.Close()
		w.Handle(Kind, &SharedWorker{Worker{Grace: o.Grace, Env: o.Env, Output: w.Output, Keeper: keeper}})
		stopLocal = w.Start(ctx)
	}
	err = q.Follow(ctx, batch, func(u pgqueue.Update) {
		j := &sched.Job{Key: u.Key, Label: u.Label, Kind: u.Kind, Payload: []byte(SharedCommand(u.Payload)),
			Attempts: u.Attempt, Retries: u.Retries}
		if o.Output != nil && u.State != sched.StateCancelled {
			o.Output(j, u.Stdout, u.Stderr)
		}
		ev := sched.Event{Type: sched.EventType(u.State), Time: u.Finished, Job: j, Backend: u.Worker,
			Attempt: u.Attempt, Reason: u.Reason, State: u.State, RetryAt: u.RetryAt}
		if !u.Started.IsZero() {
			ev.Run = u.Finished.Sub(u.Started)
		}
		if u.Err != "" {
			ev.Err = errors.New(u.Err)
		}
		switch {
		case u.State == sched.StateCancelled:
			ev.Type = EventRequeued
		case !u.Final:
			ev.Type = sched.EventRetry
		}
		if u.Final {
			switch u.State {
			case sched.StateDone:
				res.Done++
			case sched.StateFailed:
				res.Failed++
			case sched.StateTimedOut:
				res.TimedOut++
			}
		} else if u.State != sched.StateCancelled {
			res.Retries++
		}
		if o.Events != nil {
			o.Events(ev)
		}
	})
	err = errors.Join(err, stopLocal())
	if err != nil {
		res.NotRun = res.Submitted - res.Done - res.Failed - res.TimedOut
		return res, fmt.Errorf("run: batch %s: %w", batch, err)
	}
	return res, outcome(res.Summary)
}

// checkWorkers fails when no live worker runs shell jobs and some of jobs
// have not ended: a re-run that only prints what was recorded needs none.
func checkWorkers(ctx context.Context, q *pgqueue.Queue, jobs []*sched.Job) error {
	keys := make([]string, len(jobs))
	for i, j := range jobs {
		keys[i] = j.Key
	}
	states, err := q.States(ctx, keys)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if !states[k].Terminal() {
			return q.Unserved(ctx, []string{Kind}, "")
		}
	}
	return nil
}
