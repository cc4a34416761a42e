package shell

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"calq/internal/proc"
	"calq/sched"
)

// Worker runs a job's Payload as a shell command line (sh -c) through
// Keeper, or under proc's guard when Keeper is nil: a cancelled or
// timed-out job stops with its whole process tree, and no process of it
// outlives calq. It holds no state between
// jobs, so one Worker may run many jobs at once.
type Worker struct {
	Shell string        // default "/bin/sh"
	Dir   string        // working directory; empty means calq's
	Env   []string      // nil: calq's; either way without calq's secrets (internal/proc drops them)
	Grace time.Duration // SIGTERM→SIGKILL on cancel/timeout, default 5s
	// Output is called once per attempt with its output, each stream
	// captured apart and cut at 1 MiB (like GNU parallel --group); nil
	// discards it.
	Output func(j *sched.Job, stdout, stderr []byte)
	// Keeper, when set, runs the commands: one helper process for all of
	// them rather than a guard per command (see proc.Keeper).
	Keeper *proc.Keeper
}

// outputCap bounds the output kept of each stream of an attempt.
const outputCap = 1 << 20

// Run runs j's command line and waits for it. It returns nil when the
// command exits 0, also when it does so within the grace after ctx ended
// (its real outcome: done); an error wrapping context.Cause(ctx) when ctx
// ended the run; an *StatusError for another status, marked Permanent for 126 and 127
// (cannot execute, not found), which retrying cannot fix.
func (w *Worker) Run(ctx context.Context, j *sched.Job) error {
	opts := proc.Options{Grace: w.Grace, Dir: w.Dir, Env: w.Env}
	var stdout, stderr cappedBuffer
	var err error
	if w.Keeper != nil {
		err = w.Keeper.Shell(ctx, opts, cmp.Or(w.Shell, "/bin/sh"), string(j.Payload), &stdout, &stderr)
	} else {
		cmd := proc.Command(ctx, opts, cmp.Or(w.Shell, "/bin/sh"), "-c", string(j.Payload))
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err = proc.Outcome(cmd, cmd.Run())
	}
	if w.Output != nil {
		w.Output(j, stdout.Bytes(), stderr.Bytes())
	}
	return shellError(ctx, err, stderr.data)
}

// shellError turns Wait's error into Run's.
func shellError(ctx context.Context, err error, stderr []byte) error {
	var ee *exec.ExitError
	switch {
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
		// ErrWaitDelay: it exited 0, but a process it detached (setsid)
		// held its output open; that is no failure of the command.
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("shell command stopped: %w", context.Cause(ctx))
	case !errors.As(err, &ee):
		return startError(err)
	}
	xe := newStatusError(ee, stderr)
	if xe.Code == 126 || xe.Code == 127 {
		return sched.Permanent(xe)
	}
	return xe
}

// startError classes a failure to start the shell: transient when the
// system is short of processes or memory, else permanent (no shell, not
// executable, calq built without proc's guard).
func startError(err error) error {
	err = fmt.Errorf("start shell: %w", err)
	if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.ENOMEM) {
		return err
	}
	return sched.Permanent(err)
}

// StatusError is a shell command's failure: a non-zero exit status, or death
// by a signal.
type StatusError struct {
	Code   int    // exit status; -1 when killed by a signal
	Signal string // the signal that killed it ("SIGKILL"), else empty
	Stderr string // the last line of its stderr, for messages
}

func newStatusError(ee *exec.ExitError, stderr []byte) *StatusError {
	xe := &StatusError{Code: ee.ExitCode(), Stderr: lastLine(stderr)}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		xe.Signal = signalName(ws.Signal())
	}
	return xe
}

// Reason names the failure for metrics and history: "exit status 2",
// "killed by SIGKILL".
func (e *StatusError) Reason() string {
	if e.Signal != "" {
		return "killed by " + e.Signal
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

func (e *StatusError) Error() string {
	if e.Stderr == "" {
		return "shell command: " + e.Reason()
	}
	return fmt.Sprintf("shell command: %s: %s", e.Reason(), e.Stderr)
}

// lastLine returns b's last non-blank line, at most 200 bytes of it.
func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	s = s[strings.LastIndexByte(s, '\n')+1:]
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}

var signalNames = map[syscall.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
	syscall.SIGILL: "SIGILL", syscall.SIGTRAP: "SIGTRAP", syscall.SIGABRT: "SIGABRT",
	syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE", syscall.SIGKILL: "SIGKILL",
	syscall.SIGSEGV: "SIGSEGV", syscall.SIGPIPE: "SIGPIPE", syscall.SIGALRM: "SIGALRM",
	syscall.SIGTERM: "SIGTERM",
}

// signalName returns "SIGKILL" for SIGKILL, "signal 10" for signals less
// common (and named differently across systems).
func signalName(sig syscall.Signal) string {
	if name, ok := signalNames[sig]; ok {
		return name
	}
	return fmt.Sprintf("signal %d", int(sig))
}

// cappedBuffer keeps the first outputCap bytes written to it and counts
// the rest. It never fails a write: a failed write would stop os/exec's
// copying and leave the command blocked on a full pipe.
type cappedBuffer struct {
	data    []byte
	dropped int64
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	n := min(len(p), outputCap-len(b.data))
	b.data = append(b.data, p[:n]...)
	b.dropped += int64(len(p) - n)
	return len(p), nil
}

// Bytes returns what was kept, with a last line saying what was dropped.
func (b *cappedBuffer) Bytes() []byte {
	if b.dropped == 0 {
		return b.data
	}
	return fmt.Appendf(b.data, "\n[calq: output truncated: %d more bytes dropped]\n", b.dropped)
}
