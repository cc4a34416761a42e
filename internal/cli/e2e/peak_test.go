package e2e

import (
	"os/exec"
	"time"
)

// peakWatch reads the peak resident memory (VmHWM) of cmd's process, once
// started, every 10 ms until stop, which returns the highest seen, in
// bytes. Not the rusage of Wait: a child started by Go begins life in
// the parent's address space (clone with CLONE_VM), and Linux keeps that
// address space's high-water mark as the child's ru_maxrss at exec, so
// every child of a test process that once held 600 MiB reports at least
// 600 MiB. VmHWM is the child's own address space's. What the process
// adds in its last 10 ms is not seen.
func peakWatch(cmd *exec.Cmd) (stop func() int64) {
	pid := cmd.Process.Pid
	done, peak := make(chan struct{}), make(chan int64)
	go func() {
		var p int64
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			p = max(p, procStatus(pid, "VmHWM"))
			select {
			case <-done:
				peak <- p
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 { close(done); return <-peak }
}
