package proc

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// keeperEnv marks a keeper and holds the inode of the pipe on its stdin
// (see isKeeper); like guardEnv it is the re-exec protocol, not
// configuration.
const keeperEnv = "CALQ_PROC_KEEPER"

// A Keeper runs many shell command lines so that none of their processes
// outlives calq, with one helper process for all of them instead of a
// guard per command: a command costs a fork and exec of the shell, not of
// calq as well.
//
// Each command runs in a process group of its own, started by calq. Before
// the shell runs the line it waits on a pipe (fd 3) until calq has told
// the keeper, calq's executable run again with its stdin on a pipe from
// calq, the group's id. When calq dies, even by SIGKILL, the keeper reads
// end of file and kills every group it was told of and not told had
// ended; a shell whose group calq had no time to report reads end of file
// on fd 3 and exits without running the line. When a command exits, calq
// kills what it left running in its group, as a guard does.
//
// The line runs as `shell -c 'read -r _calq_gate <&3 || exit 125; exec 3<&-; LINE'`
// for the shells known to take that (sh, dash, bash, ksh, zsh, ash,
// busybox); any other shell is started by /bin/sh after the wait, at the
// cost of a second exec.
//
// A Keeper is safe for concurrent use. Its helper starts with the first
// command; Close ends it.
type Keeper struct {
	once sync.Once
	err  error // from starting the keeper
	cmd  *exec.Cmd
	mu   sync.Mutex // serialises writes to w
	w    *os.File   // the keeper's stdin
}

// NewKeeper returns a Keeper whose helper starts with the first command.
func NewKeeper() *Keeper { return &Keeper{} }

// start starts the keeper process.
func (k *Keeper) start() error {
	k.once.Do(func() {
		if !guardOK.Load() {
			k.err = errNoGuard
			return
		}
		r, w, err := os.Pipe()
		if err != nil {
			k.err = fmt.Errorf("proc: start keeper: %w", err)
			return
		}
		defer r.Close()
		ino, err := pipeInode(r)
		if err != nil {
			w.Close()
			k.err = fmt.Errorf("proc: start keeper: %w", err)
			return
		}
		cmd := &exec.Cmd{Path: "/proc/self/exe", Args: []string{os.Args[0]}, Stdin: r, Stderr: os.Stderr,
			Env: append(childEnvOf(nil, ""), keeperEnv+"="+strconv.FormatUint(ino, 10)),
			// Its own group: a signal to calq's group (^C, kill -- -PGID)
			// must leave it to clean up after calq.
			SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
		if err := cmd.Start(); err != nil {
			w.Close()
			k.err = fmt.Errorf("proc: start keeper: %w", err)
			return
		}
		k.cmd, k.w = cmd, w
	})
	return k.err
}

// pipeInode returns the inode of the pipe f.
func pipeInode(f *os.File) (uint64, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return 0, err
	}
	return st.Ino, nil
}

// isKeeper says whether stdin is the pipe v names, as the keeper's is: an
// inherited variable comes without the pipe calq made for it.
func isKeeper(v string) bool {
	ino, err := strconv.ParseUint(v, 10, 64)
	var st syscall.Stat_t
	return err == nil && syscall.Fstat(0, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFIFO && st.Ino == ino
}

// tell sends the keeper one line: "+PGID" or "-PGID". Lines are shorter
// than PIPE_BUF, so each write is whole.
func (k *Keeper) tell(op byte, pgid int) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.w == nil {
		return errors.New("proc: keeper closed")
	}
	_, err := k.w.Write(strconv.AppendInt([]byte{op}, int64(pgid), 10))
	if err == nil {
		_, err = k.w.Write([]byte{'\n'})
	}
	return err
}

// Close ends the keeper and waits for it. Commands still running are
// killed by it.
func (k *Keeper) Close() error {
	k.mu.Lock()
	w := k.w
	k.w = nil
	k.mu.Unlock()
	if w == nil {
		return nil
	}
	w.Close()
	return k.cmd.Wait()
}

// gatedShells take the gate as a prefix of the line.
var gatedShells = map[string]bool{"sh": true, "dash": true, "bash": true, "ksh": true, "mksh": true,
	"zsh": true, "ash": true, "busybox": true, "posh": true, "yash": true}

// gate is the prefix that makes a shell wait for calq's word on fd 3.
const gate = "read -r _calq_gate <&3 || exit 125; exec 3<&-; "

// Shell runs shell -c line with opts and waits for it, as
// Command(ctx, opts, shell, "-c", line).Run() would with stdout and
// stderr, and stdin from /dev/null. Its error is the same (an
// *exec.ExitError for a non-zero status or a signal), as Outcome gives
// it: nil when the shell exited 0, also after ctx ended.
func (k *Keeper) Shell(ctx context.Context, opts Options, shell, line string, stdout, stderr io.Writer) error {
	if err := k.start(); err != nil {
		return err
	}
	argv := []string{shell, "-c", gate + line}
	if !gatedShells[filepath.Base(shell)] {
		argv = []string{"/bin/sh", "-c", gate + `exec "$0" -c "$1"`, shell, line}
	}
	cmd := newCmd(ctx, opts, argv)
	// No parent-death signal: the keeper is what kills the group when calq
	// dies, and the signal would come with the death of the thread that
	// forked, not only of calq.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	grace := cmp.Or(opts.Grace, DefaultGrace)
	cancelAsGroup(cmd, grace)
	gateR, gateW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("proc: %w", err)
	}
	defer gateW.Close()
	cmd.ExtraFiles = []*os.File{gateR}
	// Pipes of calq's own, not os/exec's: Wait then returns when the
	// shell exits, and the group is killed before the output is drained.
	outs, err := newOutputs(cmd, stdout, stderr)
	if err != nil {
		gateR.Close()
		return err
	}
	err = cmd.Start()
	gateR.Close()
	outs.closeWriters()
	if err != nil {
		outs.abandon()
		return err
	}
	pgid := cmd.Process.Pid
	if err := k.tell('+', pgid); err != nil {
		// Unreported, the group would not die with calq: it does not run.
		syscall.Kill(-pgid, syscall.SIGKILL)
		cmd.Wait()
		outs.abandon()
		return fmt.Errorf("proc: keeper: %w", err)
	}
	gateW.Write([]byte{'\n'}) // a shell already gone (a syntax error) makes this EPIPE
	gateW.Close()
	err = Outcome(cmd, cmd.Wait())
	// Background jobs it left would hold the output open, and outlive
	// calq once the keeper forgets the group.
	syscall.Kill(-pgid, syscall.SIGKILL)
	k.tell('-', pgid)
	outs.drain(grace)
	return err
}

// outputs copies a command's stdout and stderr from pipes calq made.
type outputs struct {
	writers []*os.File // the command's ends
	readers []*os.File
	done    sync.WaitGroup
}

func newOutputs(cmd *exec.Cmd, stdout, stderr io.Writer) (*outputs, error) {
	o := &outputs{}
	var err error
	if cmd.Stdout, err = o.pipe(stdout); err == nil {
		if stderr != nil && sameWriter(stdout, stderr) {
			cmd.Stderr = cmd.Stdout // one pipe, as os/exec does: one writer, one copier
		} else {
			cmd.Stderr, err = o.pipe(stderr)
		}
	}
	if err != nil {
		o.closeWriters()
		o.abandon()
		return nil, fmt.Errorf("proc: %w", err)
	}
	return o, nil
}

// sameWriter says whether a and b are the same writer; values of types
// that cannot be compared are taken as different.
func sameWriter(a, b io.Writer) (same bool) {
	defer func() { recover() }()
	return a == b
}

// pipe returns the command's end of a pipe copied to dst, or nil (so
// /dev/null) when dst is nil.
func (o *outputs) pipe(dst io.Writer) (io.Writer, error) {
	if dst == nil {
		return nil, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	o.writers, o.readers = append(o.writers, w), append(o.readers, r)
	o.done.Go(func() { io.Copy(dst, r) })
	return w, nil
}

func (o *outputs) closeWriters() {
	for _, w := range o.writers {
		w.Close()
	}
}

// drain waits for the copies to reach end of file, at most grace: a
// process that left the group (setsid) may hold a pipe open for ever.
func (o *outputs) drain(grace time.Duration) {
	done := make(chan struct{})
	go func() { o.done.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		o.abandon()
	}
}

// abandon stops the copies.
func (o *outputs) abandon() {
	for _, r := range o.readers {
		r.Close()
	}
	o.done.Wait()
}

// keep is the keeper's body: it records the groups calq reports on stdin
// and, at end of file (calq closed it, or died), kills those not reported
// ended.
func keep() int {
	// Only end of file ends it: ^C and the like are for calq and its
	// commands.
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	groups := map[int]bool{}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) < 2 {
			continue
		}
		pgid, err := strconv.Atoi(string(line[1:]))
		if err != nil || pgid <= 1 {
			continue
		}
		switch line[0] {
		case '+':
			groups[pgid] = true
		case '-':
			delete(groups, pgid)
		}
	}
	for pgid := range groups {
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
	return 0
}
