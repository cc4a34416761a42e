package procfs

import (
	"calq/internal/tooltest"
	"os"
	"slices"
	"syscall"
	"testing"
)

// TestSelf reads this test's own process: its group holds it, its
// memory is positive, and a process that does not exist has neither.
func TestSelf(t *testing.T) {
	pgid, err := syscall.Getpgid(0)
	if err != nil {
		tooltest.Unavailable(t, "no process group: %v", err)
	}
	if pids := GroupPids(pgid); !slices.Contains(pids, os.Getpid()) {
		t.Errorf("GroupPids(%d) = %v, want it to hold this process, %d", pgid, pids, os.Getpid())
	}
	if got := Pss(os.Getpid()); got <= 0 {
		t.Errorf("Pss(self) = %d, want a positive size", got)
	}
	if got := Pss(1 << 30); got != 0 {
		t.Errorf("Pss of no process = %d, want 0", got)
	}
	if got := StatFields(1 << 30); got != nil {
		t.Errorf("StatFields of no process = %v, want nil", got)
	}
	if f := StatFields(os.Getpid()); len(f) < 3 || f[0] != "R" && f[0] != "S" {
		t.Errorf("StatFields(self) = %v, want a running or sleeping state first", f)
	}
}
