package users

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"calq/internal/testclock"
)

// TestCancelledWrites: a change whose ctx ends while it waits for the
// journal's writer gets ctx's error, and the writer, which still makes
// the change, shares no memory with the caller. The race detector sees
// the race this guards against in about half the runs of 1000 writes.
func TestCancelledWrites(t *testing.T) {
	s := openStore(t, openJournal(t, filepath.Join(t.TempDir(), "calq.db"), testclock.New(t0)))
	if _, err := s.Add(context.Background(), User{Name: "ann"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ops := []struct {
		name string
		do   func() error
	}{
		{"SetAdmin", func() error { return s.SetAdmin(ctx, "ann", true) }},
		{"RevokeKeys", func() error { _, err := s.RevokeKeys(ctx, "ann"); return err }},
	}
	for _, op := range ops {
		for range 500 {
			if err := op.do(); err != nil && !errors.Is(err, context.Canceled) {
				t.Fatalf("%s with its ctx cancelled: %v, want nil or context.Canceled", op.name, err)
			}
		}
	}
}
