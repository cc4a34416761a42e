//go:build !linux

package proc

import (
	"os/exec"
	"time"
)

// MaybeRunGuard does nothing: guards exist on Linux only.
func MaybeRunGuard() {}

// stopAsTree leaves cmd as exec.CommandContext makes it: cancelling kills
// the direct child only.
func stopAsTree(cmd *exec.Cmd, grace time.Duration) {}

// stopAsGroup leaves cmd as exec.CommandContext makes it.
func stopAsGroup(cmd *exec.Cmd, grace time.Duration) {}
