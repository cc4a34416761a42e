package webbench

import (
	"os"
	"slices"
	"syscall"
	"testing"
)

// TestProcfs: the test's own process is found in its group, with a
// positive memory, and a process that is gone has none.
func TestProcfs(t *testing.T) {
	pgid, err := syscall.Getpgid(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if pids := groupPids(pgid); !slices.Contains(pids, os.Getpid()) {
		t.Errorf("groupPids(%d) = %v, want it to hold this process, %d", pgid, pids, os.Getpid())
	}
	if got := pssKiB(os.Getpid()); got <= 0 {
		t.Errorf("pssKiB(self) = %d, want a positive size", got)
	}
	if got := pssKiB(1 << 30); got != 0 {
		t.Errorf("pssKiB of no process = %d, want 0", got)
	}
	if got := selfCPU(); got <= 0 {
		t.Errorf("selfCPU() = %v, want a positive time", got)
	}
}
