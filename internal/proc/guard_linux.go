package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// guardEnv marks a guard and holds calq's pid. It is the re-exec protocol,
// not configuration, so reading it here keeps to the rule that packages
// leave the environment to main.
const guardEnv = "CALQ_PROC_GUARD"

// deathSignal is the guard's parent-death signal. Nobody else sends it, so
// the guard tells calq's death from a request to stop.
const deathSignal = syscall.SIGUSR2

// guardOK says MaybeRunGuard has run in this program, so that a guard (the
// same program) will run it too.
var guardOK atomic.Bool

// MaybeRunGuard returns at once unless this process is a guard started by
// Command, a keeper or a helper (StartHelper); then it runs as that and
// exits.
//
// A guard is started as os.Args = {calq's os.Args[0], path, argv...} with
// CALQ_PROC_GUARD set to calq's pid, as the leader of a new process group,
// with SIGUSR2 as its parent-death signal. It runs path with argv in that
// group, with the environment less CALQ_PROC_GUARD; passes SIGTERM, SIGINT
// and SIGHUP on to the group; kills the group when calq dies; and exits as
// the command did, by the same signal if it was killed.
//
// A variable alone does not make a guard or a keeper: one inherited from
// the environment (a job that runs calq, a user who set it) would turn
// every command into a silent no-op. A guard must also have SIGUSR2 as its
// parent-death signal, and a keeper must have on stdin the very pipe its
// variable names; neither survives a fork, so only calq's own start
// provides them. A process with a variable but not the rest runs as calq,
// with the variable removed so that its children do not see it either.
func MaybeRunGuard() {
	maybeRunHelper()
	if v, ok := os.LookupEnv(keeperEnv); ok && isKeeper(v) {
		os.Exit(keep())
	}
	v, ok := os.LookupEnv(guardEnv)
	parent, err := strconv.Atoi(v)
	switch {
	case !ok || !isGuard():
		os.Unsetenv(guardEnv)
		os.Unsetenv(keeperEnv)
		os.Unsetenv(helperEnv)
		guardOK.Store(true)
		return
	case err != nil || len(os.Args) < 3:
		fmt.Fprintf(os.Stderr, "calq: proc guard: bad invocation %q\n", os.Args)
		os.Exit(127)
	}
	os.Exit(guard(parent, os.Args[1], os.Args[2:]))
}

// isGuard says whether this process was started by guarded: the
// parent-death signal is reset by fork, so nothing inherits it.
func isGuard() bool {
	var sig int32
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_GET_PDEATHSIG, uintptr(unsafe.Pointer(&sig)), 0)
	return errno == 0 && syscall.Signal(sig) == deathSignal
}

// guard runs the command and returns its exit status.
func guard(parent int, path string, argv []string) int {
	// Signals calq inherited as ignored (nohup) stay so for the command,
	// as they would without a guard.
	relayed := slices.DeleteFunc([]os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP}, signal.Ignored)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, append(relayed, deathSignal)...)
	// Go's runtime drops deathSignal until Notify: calq may be gone.
	if os.Getppid() != parent {
		return 1
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Env: environWithout(guardEnv),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "calq: %v\n", err)
		return startStatus(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	for {
		select {
		case s := <-sigs:
			relay(s.(syscall.Signal), parent)
		case <-done:
			killLeftovers(parent)
			return exitLike(cmd.ProcessState)
		}
	}
}

// relay passes a stop request on to the group, or kills the group, the
// guard with it, when calq has died.
func relay(sig syscall.Signal, parent int) {
	switch {
	case os.Getppid() != parent:
		syscall.Kill(0, syscall.SIGKILL)
	case sig == deathSignal:
		// A thread of calq ended, not calq: the kernel ties the
		// parent-death signal to the thread that forked.
	default:
		// Ignoring sig first keeps the guard from receiving its own
		// forward, and the group from getting it twice.
		signal.Ignore(sig)
		syscall.Kill(0, sig)
	}
}

// killLeftovers kills what the command left running in the group, such as
// background jobs: once the guard exits, nothing would stop them when calq
// dies. The guard first moves to calq's group, so as not to kill itself.
func killLeftovers(parent int) {
	pgid, err := syscall.Getpgid(parent)
	if err == nil {
		err = syscall.Setpgid(0, pgid)
	}
	if err != nil { // calq is gone: the exit status does not matter
		syscall.Kill(0, syscall.SIGKILL)
		return
	}
	syscall.Kill(-os.Getpid(), syscall.SIGKILL)
}

// exitLike returns st's exit status, or kills the guard with st's signal.
func exitLike(st *os.ProcessState) int {
	ws := st.Sys().(syscall.WaitStatus)
	if !ws.Signaled() {
		return ws.ExitStatus()
	}
	dieBy(ws.Signal())
	// sig's default action does not end a process: say it as shells do.
	return 128 + int(ws.Signal())
}

// dieBy kills the guard with sig. Go's handlers would turn most signals
// into a stack dump, or drop them, so sig's action is reset to the
// default by hand; the guard makes no core file either.
func dieBy(sig syscall.Signal) {
	const sigsetSize = 8 // _NSIG/8; 16 on mips, where the reset fails and so does dieBy
	var dfl [4]uint64    // struct sigaction{SIG_DFL, no flags, empty mask} on every arch
	runtime.LockOSThread()
	syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&dfl)), 0, sigsetSize, 0, 0)
	syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0)
	// Sent to this thread, the signal acts before tgkill returns.
	syscall.Tgkill(os.Getpid(), syscall.Gettid(), sig)
}

// startStatus is the status sh gives a command it cannot start.
func startStatus(err error) int {
	if errors.Is(err, fs.ErrNotExist) {
		return 127
	}
	return 126
}

func environWithout(key string) []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, key+"=") })
}
