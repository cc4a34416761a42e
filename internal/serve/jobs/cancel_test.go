package jobs

import (
	"context"
	"errors"
	"testing"
)

// TestCancelledWrites: a caller whose ctx ends while its write waits for
// the journal's writer gets ctx's error, and the writer, which still runs
// the write, shares no memory with it. The race detector sees the race
// this guards against in about half the runs of 1000 writes.
func TestCancelledWrites(t *testing.T) {
	s, _ := openStore(t)
	if err := s.Add(context.Background(), &Job{ID: "j1", Owner: "ann"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 1000 {
		if _, err := s.Start(ctx, "j1"); err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("Start with its ctx cancelled: %v, want nil or context.Canceled", err)
		}
	}
}
