//go:build unix

package journal

import (
	"errors"
	"syscall"
)

// PIDAlive reports whether a process with this pid exists on this host,
// for telling a dead owner's claims and leases from a live one's.
// Signal 0 checks without signalling; EPERM means it exists as another
// user's. A pid of 0 or less would address a process group: unknown,
// taken as alive, so that only its lease can free its jobs.
func PIDAlive(pid int) bool {
	if pid <= 0 {
		return true
	}
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
