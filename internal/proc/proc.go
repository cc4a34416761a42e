// Package proc runs child commands so that none of their processes outlives
// calq.
//
// [Command] is exec.CommandContext for a whole process tree: the command
// runs in a process group of its own, cancelling the context sends SIGTERM
// to the group and, [Options.Grace] later, SIGKILL; Wait returns by then
// even when a grandchild still holds an output pipe.
//
// On Linux the tree also dies with calq, even when calq is SIGKILLed: the
// direct child is a guard, calq's own executable run again, which starts
// the command in its group and kills the group when the kernel reports
// calq's death (PR_SET_PDEATHSIG). When the command exits, the guard kills
// what it left running in the group, since nothing would stop it later.
// [MaybeRunGuard] is the guard's entry point: main, and TestMain in every
// package whose tests start commands, must call it first thing. A guard
// costs one process (a few MB) per command, and a re-execution of calq
// (about 25 ms) to start. Processes that leave the group (setsid, setpgid) escape all of this.
//
// No command, and no guard, gets calq's secrets in its environment: the
// variables [childenv.Secret] names (CALQ_OWNER_PASSWORD, ...) are dropped
// from whatever environment it is given, calq's own included, since a
// process's environment is readable in /proc/PID/environ and passed on to
// its children.
//
// For many short commands, [Keeper] runs them all with one helper process instead;
// for a child that dies with calq of its own accord, [Child] runs it
// without a guard.
//
// For work in calq's own code that must be stoppable at any instant
// (pdfcpu's calls cannot be interrupted, nor their memory bounded),
// [StartHelper] runs calq's executable again as a helper that a package
// registered with [RegisterHelper]: it serves requests on a pipe from calq
// and answers on another, dies with calq, and [Helper.Kill] ends it at
// once. MaybeRunGuard is also where a helper runs.
//
// If calq cannot find its executable, commands run without a guard, with
// SIGKILL as their parent-death signal: the direct child dies with calq,
// its own children may not. On other systems Command is
// exec.CommandContext with a WaitDelay: only the direct child is killed.
//
// Command, Child, Keeper, StartHelper, RegisterHelper and MaybeRunGuard are
// safe for concurrent use.
package proc

import (
	"cmp"
	"context"
	"errors"
	"os/exec"
	"time"

	"calq/internal/childenv"
)

// MaxShellLine is the longest command line that Keeper.Shell, or a shell
// -c run by Command, can be given: Linux takes no single argument longer
// than MAX_ARG_STRLEN (131072 bytes with its NUL), and the keeper puts a
// gate of less than 64 bytes before the line. Measured: sh -c takes an
// argument of 131071 bytes and refuses one of 131072 (E2BIG).
const MaxShellLine = 131072 - 1 - 64

// DefaultGrace is the time from SIGTERM to SIGKILL when Options.Grace is 0.
const DefaultGrace = 5 * time.Second

// Options say how to run a command.
type Options struct {
	Grace time.Duration // from SIGTERM to SIGKILL once ctx is done; 0 means DefaultGrace
	Dir   string        // working directory; empty means calq's
	Env   []string      // environment; nil means calq's; calq's secrets are dropped either way
}

// Command returns the command argv to run with opts, stopped as a whole
// when ctx is done. argv[0] is looked up in calq's PATH, as exec.Command
// does. Callers may set the returned command's Stdin, Stdout and Stderr,
// not its Path, Args, Env, SysProcAttr, Cancel, WaitDelay or ExtraFiles.
//
// Wait's error is the command's: *exec.ExitError for a non-zero status or
// a signal, even when the cancellation caused it; check ctx to tell.
func Command(ctx context.Context, opts Options, argv ...string) *exec.Cmd {
	cmd := newCmd(ctx, opts, argv)
	if cmd.Err == nil {
		stopAsTree(cmd, cmp.Or(opts.Grace, DefaultGrace))
	}
	return cmd
}

// Child is Command without a guard, for a child that ends on its own when
// calq dies, because its input ends or what it serves dies with calq
// (a helper talking to a guarded process, a short-lived client of one): it
// saves the guard's start, a re-execution of calq. The command runs in a
// process group of its own, stopped as a group when ctx is done; on Linux
// it gets SIGKILL when calq dies (its parent-death signal), its own
// children do not.
func Child(ctx context.Context, opts Options, argv ...string) *exec.Cmd {
	cmd := newCmd(ctx, opts, argv)
	if cmd.Err == nil {
		stopAsGroup(cmd, cmp.Or(opts.Grace, DefaultGrace))
	}
	return cmd
}

// Outcome is the command's own outcome from err, what Run or Wait
// returned for cmd: nil when it exited 0. os/exec reports the context's
// error when the context ended while the command ran, even when the
// command then finished its work within the grace and exited 0; that is
// no stop of the command, and a caller that recorded it as stopped would
// run finished work again.
func Outcome(cmd *exec.Cmd, err error) error {
	if err != nil && cmd.ProcessState != nil && cmd.ProcessState.Success() {
		return nil
	}
	return err
}

func newCmd(ctx context.Context, opts Options, argv []string) *exec.Cmd {
	if len(argv) == 0 {
		cmd := exec.CommandContext(ctx, "")
		cmd.Err = errors.New("proc: empty command")
		return cmd
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = opts.Dir
	cmd.Env = childEnvOf(opts.Env, opts.Dir)
	// Not shorter than the grace: when it runs out, os/exec kills the
	// direct child, and a guard killed before the group could not clean up.
	cmd.WaitDelay = cmp.Or(opts.Grace, DefaultGrace)
	return cmd
}

// childEnvOf returns env, or calq's own when env is nil, less calq's
// secrets.
func childEnvOf(env []string, dir string) []string {
	if env == nil {
		env = (&exec.Cmd{Dir: dir}).Environ() // calq's, with PWD set to dir as os/exec does
	}
	// Never nil: an empty environment must stay empty, not become calq's.
	return append([]string{}, childenv.Without(env)...)
}
