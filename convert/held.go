package convert

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"calq/sched"
)

// submit runs the jobs and waits for them. A job another calq holds
// (an overlapping run) is waited for: when that run finishes it, the
// file is done; when it dies, its job goes back to the queue and this
// run takes it over. Nothing is reported done that is not.
func (r *runner) submit(ctx context.Context, e *sched.Engine, jobs []*sched.Job) error {
	byIndex := map[int]*sched.Job{}
	for _, j := range jobs {
		byIndex[jobIndexOf(j)] = j
	}
	r.heldBy = map[int]string{}
	if err := e.Submit(ctx, jobs...); err != nil {
		return fmt.Errorf("submit: %w", err)
	}
	said := false
	for {
		if _, err := e.Wait(ctx); err != nil {
			return err
		}
		held := r.takeHeld()
		if len(held) == 0 {
			return nil
		}
		if !said && r.o.Status != nil {
			r.o.Status(fmt.Sprintf("waiting for another calq converting %d of these files", len(held)))
			said = true
		}
		if err := sleepCtx(ctx, time.Second); err != nil {
			return err
		}
		if rec, ok := r.o.Journal.(Recoverer); ok {
			if _, err := rec.Recover(ctx); err != nil {
				return err
			}
		}
		again := make([]*sched.Job, 0, len(held))
		for _, i := range held {
			old := byIndex[i]
			again = append(again, &sched.Job{Key: old.Key, Kind: old.Kind, Payload: old.Payload,
				Label: old.Label, Class: old.Class, Retries: old.Retries})
		}
		if err := e.Submit(ctx, again...); err != nil {
			return fmt.Errorf("submit: %w", err)
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// takeHeld returns the items another calq held at their last try, and
// forgets them.
func (r *runner) takeHeld() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []int
	for i := range r.heldBy {
		out = append(out, i)
	}
	clear(r.heldBy)
	return out
}

// cancelRest reports every item without an outcome as cancelled.
func (r *runner) cancelRest() {
	r.mu.Lock()
	var rest []int
	for i, res := range r.results {
		if res.State == "" || res.State == StateRetry {
			rest = append(rest, i)
		}
	}
	r.mu.Unlock()
	for _, i := range rest {
		it := r.items[i]
		r.report(i, FileResult{Input: it.Input, Output: it.Output, State: StateCancelled, Reason: "interrupted"})
	}
}

func jobIndexOf(j *sched.Job) int {
	var p payload
	if json.Unmarshal(j.Payload, &p) != nil {
		return -1
	}
	return p.Index
}

// event turns the engine's job events into file results.
func (r *runner) event(ev sched.Event) {
	if ev.Job == nil {
		return
	}
	i := jobIndexOf(ev.Job)
	if i < 0 || i >= len(r.items) {
		return
	}
	state := map[sched.EventType]string{
		sched.EventDone: StateConverted, sched.EventSkipped: StateSkipped, sched.EventFailed: StateFailed,
		sched.EventTimedOut: StateTimedOut, sched.EventCancelled: StateCancelled, sched.EventRetry: StateRetry,
	}[ev.Type]
	if state == "" {
		return
	}
	it := r.items[i]
	res := FileResult{Input: it.Input, Output: it.Output, State: state, Backend: ev.Backend, Seconds: ev.Run.Seconds()}
	switch {
	case state == StateSkipped && !ev.State.Terminal():
		// Another calq holds it: wait for it (see submit).
		r.mu.Lock()
		r.heldBy[i] = ev.Owner
		r.mu.Unlock()
		return
	case state == StateSkipped && ev.State == sched.StateDone:
		res.Reason = "converted by another calq"
	case state == StateSkipped:
		res.State, res.Reason = StateFailed, "another calq failed to convert it; run again to retry"
	case state == StateConverted:
	case ev.Err != nil:
		res.Reason, res.Detail = explain(ev.Err)
		res.Err = ev.Err
		res.Permanent = (state == StateFailed || state == StateTimedOut) && sched.IsPermanent(ev.Err)
	case ev.Reason != "":
		res.Reason = ev.Reason
	}
	r.mu.Lock()
	res.Note = r.results[i].Note
	r.mu.Unlock()
	r.report(i, res)
}
