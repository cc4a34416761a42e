//go:build unix

package journal

import (
	"errors"
	"syscall"
)

// pidAlive reports whether a process with this pid exists on this host.
// Signal 0 checks without signalling; EPERM means it exists as another
// user's. A pid of 0 or less would address a process group: unknown,
// taken as alive, so that only its lease can free its jobs.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return true
	}
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
