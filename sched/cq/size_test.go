package cq

import (
	"runtime"
	"testing"
)

// TestNewQueueSmall: a new queue costs a few KB; the bottom's slices
// grow with its events. calq serve builds an engine, with its queues,
// for every request: preallocated for a settled queue of thousands of
// events, each cost 200 KB and a fifth of a millisecond.
func TestNewQueueSmall(t *testing.T) {
	const n, most = 100, 16 << 10
	qs := make([]*Queue[int64, [40]byte], n) // the size of sched's timer events
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range qs {
		qs[i] = NewQueue[int64, [40]byte](Options{})
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > most {
		t.Errorf("got %d bytes allocated per new queue, want at most %d", per, most)
	}
	// They still work.
	q := qs[0]
	for i := range 1000 {
		q.Push(int64(1000-i), [40]byte{byte(i)})
	}
	for i := range 1000 {
		if k, _, ok := q.Pop(); !ok || k != int64(i+1) {
			t.Fatalf("pop %d: got key %d (ok %v), want %d", i, k, ok, i+1)
		}
	}
}
