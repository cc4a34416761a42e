package sched

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
)

// TestKeptEachStreak: a backend that no other can stand in for says it
// keeps a kind after each streak of failures, not only the first: a
// success in between ends the streak, as it does the breaker's count.
func TestKeptEachStreak(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := WorkerFunc(func(_ context.Context, j *Job) error {
			if string(j.Payload) == "fail" {
				return errors.New("no network")
			}
			return nil
		})
		var mu sync.Mutex
		var got []EventType
		e := newTestEngine(t, EngineOptions{FailLimit: 2, Backoff: Backoff{Base: 1},
			Events: func(ev Event) {
				switch ev.Type {
				case EventKindKept, EventDone:
					mu.Lock()
					got = append(got, ev.Type)
					mu.Unlock()
				}
			},
			Backends: []Backend{{Name: "only", Workers: []Worker{w}}}})
		e.Start()
		for _, p := range []string{"fail", "fail", "fail", "ok", "fail", "fail"} {
			if err := e.Submit(context.Background(), &Job{Kind: "k", Payload: []byte(p)}); err != nil {
				t.Fatal(err)
			}
			wait(t, e)
		}
		mu.Lock()
		defer mu.Unlock()
		want := []EventType{EventKindKept, EventDone, EventKindKept}
		if !slices.Equal(got, want) {
			t.Errorf("got events %v, want %v", got, want)
		}
	})
}
