package proc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// helperEnv marks a helper and holds "NAME:INODE", its name and the inode
// of the pipe on its stdin (see MaybeRunGuard); like guardEnv it is the
// re-exec protocol, not configuration.
const helperEnv = "CALQ_PROC_HELPER"

// HelperMain is a helper's body: it serves calq on in and out, the pipes
// from and to calq, and returns the helper's exit status.
type HelperMain func(in io.Reader, out io.Writer) int

var (
	helpersMu sync.Mutex
	helpers   = map[string]HelperMain{}
)

// RegisterHelper makes name a helper of this program: StartHelper(name)
// runs calq's executable again, and MaybeRunGuard, in that process, runs
// main and exits with its status. A package registers its helpers in an
// init function, so that they are known by the time main (or a test
// binary's TestMain) calls MaybeRunGuard. It panics when name is taken.
func RegisterHelper(name string, main HelperMain) {
	helpersMu.Lock()
	defer helpersMu.Unlock()
	if _, ok := helpers[name]; ok || main == nil {
		panic("proc: helper " + name + " registered twice, or with no body")
	}
	helpers[name] = main
}

func helper(name string) HelperMain {
	helpersMu.Lock()
	defer helpersMu.Unlock()
	return helpers[name]
}

// A Helper is calq's own executable run again as a registered helper,
// serving requests on its stdin and answering on its stdout.
//
// It runs in a process group of its own (a ^C on calq's terminal is for
// calq, which decides what becomes of the helper's work). It dies with
// calq: calq's death closes its stdin, and on Linux it also gets a
// parent-death signal; a HelperMain need not watch for either.
type Helper struct {
	In  io.WriteCloser // the helper's stdin
	Out io.ReadCloser  // its stdout
	Pid int

	cmd  *exec.Cmd
	done chan struct{} // closed once the helper has exited and is reaped
	err  error         // Wait's
}

// ErrNoHelpers is StartHelper's error where helpers cannot run: on other
// systems than Linux, and in a program that did not call MaybeRunGuard.
var ErrNoHelpers = errors.New("proc: helpers cannot run here")

// StartHelper starts helper name. Its stderr goes to stderr (nil:
// discarded). Kill ends it; so does closing In, when its body returns at
// the end of its input.
func StartHelper(name string, stderr io.Writer) (*Helper, error) {
	if helper(name) == nil {
		return nil, fmt.Errorf("proc: no helper %q registered", name)
	}
	if !helpersRun() {
		return nil, ErrNoHelpers
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("proc: start helper %s: %w", name, err)
	}
	defer inR.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		inW.Close()
		return nil, fmt.Errorf("proc: start helper %s: %w", name, err)
	}
	defer outW.Close()
	cmd, err := helperCmd(name, inR)
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("proc: start helper %s: %w", name, err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, stderr
	if err := cmd.Start(); err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("proc: start helper %s: %w", name, err)
	}
	h := &Helper{In: inW, Out: outR, Pid: cmd.Process.Pid, cmd: cmd, done: make(chan struct{})}
	go func() {
		h.err = cmd.Wait()
		close(h.done)
	}()
	return h, nil
}

// Exited is closed once the helper has exited.
func (h *Helper) Exited() <-chan struct{} { return h.done }

// Kill kills the helper (its process group) with SIGKILL, closes the
// pipes and waits for it to be reaped.
func (h *Helper) Kill() {
	select {
	case <-h.done:
	default:
		syscall.Kill(-h.Pid, syscall.SIGKILL)
		<-h.done
	}
	h.In.Close()
	h.Out.Close()
}

// State is how the helper exited: nil until it has.
func (h *Helper) State() *os.ProcessState {
	select {
	case <-h.done:
		return h.cmd.ProcessState
	default:
		return nil
	}
}
