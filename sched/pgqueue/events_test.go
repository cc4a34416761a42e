package pgqueue

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"calq/sched"
)

// TestEventsAfterUnlock checks that each step that raises events under
// w.mu emits them, in order, once the lock is free: an Events callback
// may call back into the worker (Output takes w.mu) without deadlock.
func TestEventsAfterUnlock(t *testing.T) {
	newTask := func(id int64, kind string) *task {
		return &task{id: id, job: &sched.Job{Key: kind + "-job", Kind: kind, Attempts: 1}}
	}
	tests := []struct {
		name string
		do   func(w *Worker)
		want []string
	}{
		{"learn disables a kind at its fail limit", func(w *Worker) {
			t := newTask(1, "k")
			t.started, t.finished = time.Unix(0, 0), time.Unix(1, 0)
			w.learn(t, sched.StateFailed)
		}, []string{"disabled k"}},
		{"learn enables a kind on a probe's success", func(w *Worker) {
			w.outUntil["k"] = time.Now()
			t := newTask(1, "k")
			t.probe = true
			w.learn(t, sched.StateDone)
		}, []string{"enabled k"}},
		{"forget reports a lost task", func(w *Worker) {
			t := newTask(1, "k")
			w.tasks[t.id] = t
			w.forget(t, true)
		}, []string{"lost k"}},
		{"forget is silent otherwise", func(w *Worker) {
			t := newTask(1, "k")
			w.tasks[t.id] = t
			w.forget(t, false)
		}, nil},
		{"dropIf reports each lost task", func(w *Worker) {
			for _, t := range []*task{newTask(1, "a"), newTask(2, "b")} {
				w.tasks[t.id] = t
				w.ready = append(w.ready, t)
			}
			w.dropIf(false, func(int64, *task) bool { return true })
		}, []string{"lost a", "lost b"}},
		{"dropIf in an outage reports the stop", func(w *Worker) {
			t := newTask(1, "a")
			w.tasks[t.id] = t
			w.ready = append(w.ready, t)
			w.dropIf(true, func(int64, *task) bool { return true })
		}, []string{"outage a"}},
		{"startReady reports each start", func(w *Worker) {
			var jobs sync.WaitGroup
			for _, t := range []*task{newTask(1, "a"), newTask(2, "b")} {
				w.tasks[t.id] = t
				w.ready = append(w.ready, t)
			}
			w.startReady(context.Background(), &jobs)
			jobs.Wait()
		}, []string{"started a", "started b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			var w *Worker
			w = (*Queue)(nil).NewWorker(WorkerOptions{Jobs: 2, FailLimit: 1, Events: func(ev WorkerEvent) {
				if !w.mu.TryLock() {
					t.Errorf("%s event emitted while w.mu is held", ev.Type)
					return
				}
				w.mu.Unlock()
				w.Output(&sched.Job{}, nil, nil) // calls back in: takes w.mu
				got = append(got, ev.Type+" "+ev.Kind)
			}})
			noop := sched.WorkerFunc(func(context.Context, *sched.Job) error { return nil })
			w.Handle("a", noop)
			w.Handle("b", noop)
			tt.do(w)
			slices.Sort(got) // dropIf walks a map
			if !slices.Equal(got, tt.want) {
				t.Errorf("events %q, want %q", got, tt.want)
			}
			if len(w.outbox) != 0 {
				t.Errorf("%d events left in the outbox", len(w.outbox))
			}
		})
	}
}
