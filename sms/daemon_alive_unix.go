//go:build unix

package sms

import (
	"errors"
	"syscall"
)

// pidAlive reports whether a process with this pid exists on this host
// (signal 0 checks without signalling; EPERM means another user's). A pid
// of 0 or less is taken as alive, so that only its lease can end it.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return true
	}
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
