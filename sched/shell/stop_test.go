//go:build linux

package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"calq/internal/proc"
	"calq/sched"
)

// TestWorkerStopOutcome: a command that a stop reaches (SIGTERM, then
// SIGKILL after the grace) has its real outcome: one that ignores the
// SIGTERM and exits 0 within the grace is done (nil), not stopped, so a
// re-run does not run it again; one that dies of it, or exits non-zero,
// is stopped. The same through a Keeper.
func TestWorkerStopOutcome(t *testing.T) {
	tests := []struct {
		name    string
		payload string // $1: a file written once the command runs
		stopped bool
	}{
		{"finishes within the grace", "trap '' TERM; echo > \"$1\"; sleep 0.2; exit 0", false},
		{"killed by SIGTERM", "echo > \"$1\"; sleep 30", true},
		{"exits non-zero after SIGTERM", "trap 'exit 3' TERM; echo > \"$1\"; sleep 30 & wait", true},
	}
	for _, keeper := range []bool{false, true} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s keeper=%v", tt.name, keeper), func(t *testing.T) {
				up := filepath.Join(t.TempDir(), "up")
				w := &Worker{Grace: 10 * time.Second}
				if keeper {
					k := proc.NewKeeper()
					defer k.Close()
					w.Keeper = k
				}
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				j := &sched.Job{Payload: []byte(`set -- "` + up + `"; ` + tt.payload)}
				done := make(chan error, 1)
				go func() { done <- w.Run(ctx, j) }()
				waitFile(t, up, done)
				cancel(sched.ErrStopped)
				err := <-done
				if got := errors.Is(err, sched.ErrStopped); got != tt.stopped || !tt.stopped && err != nil {
					t.Errorf("keeper %v: Run: %v, want stopped %v", keeper, err, tt.stopped)
				}
			})
		}
	}
}

// waitFile waits until path exists: the command under test is another
// process, whose only sign of running is the file. A Run that ends
// before is a failure.
func waitFile(t *testing.T, path string, done <-chan error) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case err := <-done:
			t.Fatalf("Run ended before the command was up: %v", err)
		case <-tick.C:
		}
	}
}
