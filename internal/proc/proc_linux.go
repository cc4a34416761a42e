package proc

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// executable is os.Executable; tests replace it to run without a guard.
var executable = os.Executable

// errNoGuard keeps a program that never calls MaybeRunGuard from starting
// guards: each would run that program's main again, with odd arguments.
var errNoGuard = errors.New("proc: MaybeRunGuard was not called at start-up")

// stopAsTree makes cmd run in its own process group, under a guard when it
// can, and stop as a group when its context is done.
func stopAsTree(cmd *exec.Cmd, grace time.Duration) {
	stopAsGroup(cmd, grace)
	if _, err := executable(); err != nil {
		return
	}
	guarded(cmd)
	cmd.Cancel = func() error {
		// The guard passes SIGTERM on to the group; sent to the group as
		// well, it would reach every process twice.
		err := cmd.Process.Signal(syscall.SIGTERM)
		if err == nil {
			time.AfterFunc(grace, func() { killGroup(cmd, syscall.SIGKILL) })
		}
		return err
	}
}

// stopAsGroup makes cmd run in its own process group, with SIGKILL as its
// parent-death signal, and stop as a group when its context is done.
func stopAsGroup(cmd *exec.Cmd, grace time.Duration) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cancelAsGroup(cmd, grace)
}

// cancelAsGroup makes cancelling cmd send SIGTERM to its process group,
// and SIGKILL grace later.
func cancelAsGroup(cmd *exec.Cmd, grace time.Duration) {
	cmd.Cancel = func() error {
		err := killGroup(cmd, syscall.SIGTERM)
		if err == nil {
			time.AfterFunc(grace, func() { killGroup(cmd, syscall.SIGKILL) })
		}
		return err
	}
}

// guarded turns cmd into a guard running cmd: see MaybeRunGuard for the
// protocol.
func guarded(cmd *exec.Cmd) {
	if !guardOK.Load() {
		cmd.Err = errNoGuard
		return
	}
	if filepath.IsAbs(cmd.Path) || cmd.Dir == "" {
		// A missing program fails Start, as it would without a guard,
		// rather than making the guard exit with status 127.
		if _, err := exec.LookPath(cmd.Path); err != nil {
			cmd.Err = err
			return
		}
	}
	// Named as calq, so that a program with several mains (testscript's
	// test binaries) reaches the one that calls MaybeRunGuard.
	cmd.Args = append([]string{os.Args[0], cmd.Path}, cmd.Args...)
	cmd.Env = append(cmd.Environ(), guardEnv+"="+strconv.Itoa(os.Getpid()))
	// Not os.Executable's path: that names whatever binary is there now,
	// perhaps a newer calq installed since this one started.
	cmd.Path = "/proc/self/exe"
	cmd.SysProcAttr.Pdeathsig = deathSignal
}

// killGroup sends sig to cmd's process group. The group outlives its
// leader's exit while members remain, so it is signalled even then.
func killGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	err := syscall.Kill(-cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
