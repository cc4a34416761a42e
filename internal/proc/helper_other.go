//go:build !linux

package proc

import (
	"os"
	"os/exec"
)

// helpersRun is false: MaybeRunGuard, which would run them, does nothing
// on this system.
func helpersRun() bool { return false }

func helperCmd(name string, in *os.File) (*exec.Cmd, error) { return nil, ErrNoHelpers }
