package proc

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

// helpersRun says whether this program can start helpers: a helper is the
// same program, which must reach MaybeRunGuard to become one.
func helpersRun() bool { return guardOK.Load() }

// helperCmd is the command that runs helper name with stdin on the pipe
// in, whose inode it names: see maybeRunHelper.
func helperCmd(name string, in *os.File) (*exec.Cmd, error) {
	ino, err := pipeInode(in)
	if err != nil {
		return nil, err
	}
	v := name + ":" + strconv.FormatUint(ino, 10) + ":" + strconv.Itoa(os.Getpid())
	return &exec.Cmd{
		// Not os.Executable's path: that names whatever binary is there
		// now, perhaps a newer calq installed since this one started.
		// Named as calq, so that a program with several mains
		// (testscript's test binaries) reaches the one that calls
		// MaybeRunGuard; the second argument is for ps.
		Path: "/proc/self/exe", Args: []string{os.Args[0], "(" + name + " helper)"},
		Env:         append(childEnvOf(nil, ""), helperEnv+"="+v),
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: deathSignal},
	}, nil
}

// maybeRunHelper runs the helper this process was started as, and exits;
// it returns when the process is no helper. As for a keeper, the variable
// alone does not make one: stdin must also be the pipe it names, which
// only calq's start provides.
func maybeRunHelper() {
	v, ok := os.LookupEnv(helperEnv)
	if !ok {
		return
	}
	os.Unsetenv(helperEnv)
	f := strings.Split(v, ":")
	if len(f) != 3 || !isKeeper(f[1]) {
		return
	}
	main := helper(f[0])
	parent, err := strconv.Atoi(f[2])
	if main == nil || err != nil {
		fmt.Fprintf(os.Stderr, "calq: proc: no helper %q in this program\n", f[0])
		os.Exit(127)
	}
	watchParent(parent)
	os.Exit(main(os.Stdin, protocolOut()))
}

// watchParent makes the helper exit when calq dies: the parent-death
// signal comes with the death of calq's thread that started it too, so
// the parent is checked.
func watchParent(parent int) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, deathSignal)
	// Go's runtime drops deathSignal until Notify: calq may be gone.
	if os.Getppid() != parent {
		os.Exit(1)
	}
	go func() {
		for range sigs {
			if os.Getppid() != parent {
				os.Exit(1)
			}
		}
	}()
}

// protocolOut returns the helper's stdout for its replies alone: file
// descriptor 1 then points at stderr, so that whatever a library prints
// goes there instead of into the protocol.
func protocolOut() *os.File {
	fd, err := syscall.Dup(1)
	if err != nil {
		return os.Stdout
	}
	syscall.CloseOnExec(fd)
	if err := syscall.Dup3(2, 1, 0); err != nil {
		syscall.Close(fd)
		return os.Stdout
	}
	return os.NewFile(uintptr(fd), "helper-out")
}
