package lo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"calq/internal/proc"
)

// Instance is one warm LibreOffice. It converts one document at a time;
// other callers of Convert wait their turn.
type Instance struct {
	p    *Pool
	name string
	l    layout
	lock *os.File      // flock on the slot, held while the pool lives
	sem  chan struct{} // held by whoever starts, uses or stops the instance

	mu     sync.Mutex
	run    *run      // the running soffice; nil when stopped
	client *exec.Cmd // the client of the conversion in progress
	convs  int       // conversions since the last start
	starts int       // starts so far (Starts)

	// For Stats.
	busy     bool // a conversion holds the instance
	starting bool // ensure is starting soffice
	done     int  // conversions that succeeded
	failed   int  // conversions that failed once staged

	handing atomic.Bool // a request is with the UNO helper
}

// run is one life of an instance's soffice.
type run struct {
	cmd    *exec.Cmd
	pgid   int
	watch  *groupWatch   // samples the group's memory
	done   chan struct{} // closed once the process has been waited for
	log    *tailLog      // what soffice printed
	marker string        // in the command line of every process of the instance
	pipe   string        // the UNO pipe's name; "" without a helper
	uno    *helper       // the UNO helper; nil: documents go through a client soffice
}

func newInstance(p *Pool, name, dir string, lock *os.File) *Instance {
	return &Instance{p: p, name: name, l: layout{dir}, lock: lock, sem: make(chan struct{}, 1)}
}

// Name returns the instance's name: "lo-1", "lo-2", ...
func (i *Instance) Name() string { return i.name }

// Starts returns how many times the instance's soffice has started: 1
// for an instance that stayed warm since its start.
func (i *Instance) Starts() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.starts
}

// acquire takes the instance for its caller, unless ctx is done or the
// pool closed first.
func (i *Instance) acquire(ctx context.Context) error {
	select {
	case i.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-i.p.closing:
		return ErrClosed
	}
	if i.p.closed() {
		i.release()
		return ErrClosed
	}
	return nil
}

func (i *Instance) release() { <-i.sem }

// warmUp starts the instance for New.
func (i *Instance) warmUp(ctx context.Context) error {
	if err := i.acquire(ctx); err != nil {
		return fmt.Errorf("start LibreOffice %s: %w", i.name, err)
	}
	defer i.release()
	_, err := i.ensure(ctx)
	return err
}

// ensure returns the running soffice, starting it if it is not running.
// The caller holds the instance.
func (i *Instance) ensure(ctx context.Context) (*run, error) {
	i.mu.Lock()
	r := i.run
	var h *helper
	if r != nil {
		h = r.uno
	}
	i.mu.Unlock()
	if r != nil {
		select {
		case <-r.done: // died while idle
			i.stop(r)
		default:
			if h == nil || !h.exited() {
				return r, nil
			}
			i.stop(r) // its helper died while idle: start both again
		}
	}
	ctx, cancel := context.WithTimeout(ctx, i.p.opts.StartTimeout)
	defer cancel()
	i.setFlag(&i.starting, true)
	defer i.setFlag(&i.starting, false)
	var err error
	// A fresh profile may make the first start exit (status 81 asks for
	// a restart, which oosplash normally does itself): try again.
	// A profile kept between runs (Options.StateDir) may have been left
	// broken by a crash: the last attempt starts from a new one.
	for attempt := 0; attempt < 3; attempt++ {
		if attempt == 2 {
			os.RemoveAll(i.l.profile())
		}
		// A foreign pipe is an attack, not bad luck: say so at once.
		if r, err = i.startOnce(ctx); err == nil || ctx.Err() != nil || errors.Is(err, ErrClosed) || errors.Is(err, ErrPipeForeign) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("start LibreOffice %s: %w", i.name, err)
	}
	return r, nil
}

// startOnce starts soffice and waits until it is up. With a UNO helper
// soffice listens on a UNO pipe and the helper, started at the same time,
// retries until it connects: the instance is up then. Without one soffice
// holds the keep-alive document open (without a document it would exit
// after the first conversion handed to it), and is up once the document's
// lock file appears.
func (i *Instance) startOnce(ctx context.Context) (*run, error) {
	if err := i.l.prepare(i.p.settings); err != nil {
		return nil, err
	}
	r := &run{done: make(chan struct{}), log: newTailLog(16 << 10), marker: i.l.profileURL()}
	// A killed run's socket: this slot is ours (locked) now. Another
	// user's socket there would take the documents handed over: refuse.
	removeSocket(pipePath(r.marker))
	if err := pipeFree(pipePath(r.marker)); err != nil {
		return nil, err
	}
	argv := []string{i.l.keep()}
	if i.p.python != "" && !i.p.unoFailed.Load() {
		r.pipe = newPipeName()
		if err := pipeFree(unoPipePath(r.pipe)); err != nil {
			return nil, err
		}
		// For RemoveDebris, should calq die with the instance.
		if err := os.WriteFile(i.l.pipeName(), []byte(r.pipe), 0o600); err != nil {
			return nil, err
		}
		argv = []string{acceptArg(r.pipe)}
	}
	r.cmd = i.command(proc.Command, i.l.dir, argv...)
	r.cmd.Stdout, r.cmd.Stderr = r.log, r.log
	if err := r.cmd.Start(); err != nil {
		return nil, err
	}
	r.pgid = r.cmd.Process.Pid
	r.watch = &groupWatch{pgid: r.pgid}
	go func() {
		r.cmd.Wait()
		r.watch.close()
		close(r.done)
	}()
	i.mu.Lock()
	i.run, i.convs = r, 0
	i.starts++
	i.mu.Unlock()
	if r.pipe != "" {
		if err := awaitPipe(ctx, unoPipePath(r.pipe), r, i.p.closing); err != nil {
			i.stop(r)
			if errors.Is(err, errSofficeExited) {
				err = exitedWhileStarting(r)
			} else if ctx.Err() != nil {
				err = notUpInTime(r, err)
			}
			return nil, err
		}
		h, err := startHelper(ctx, i.p.python, i.l, r.pipe, r, i.p.closing)
		if err != nil {
			i.stop(r)
			if errors.Is(err, errNoUNO) {
				i.p.unoFailed.Store(true) // the next attempt goes without
			}
			if errors.Is(err, errSofficeExited) {
				err = exitedWhileStarting(r)
			}
			return nil, err
		}
		i.mu.Lock()
		r.uno = h
		i.mu.Unlock()
		return r, nil
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(i.l.keepLock()); err == nil {
			return r, nil
		}
		select {
		case <-r.done:
			i.stop(r)
			return nil, exitedWhileStarting(r)
		case <-ctx.Done():
			i.stop(r)
			return nil, notUpInTime(r, ctx.Err())
		case <-i.p.closing:
			i.stop(r)
			return nil, ErrClosed
		case <-tick.C:
		}
	}
}

// command is soffice with the instance's profile and environment, under
// umask 077 (see pipe.go: its sockets and files are for calq's user
// alone; calq gives the PDFs it places the user's mode); argv
// follows the common options. start is proc.Command for the instance,
// which lives until stop kills its group and which the guard kills if
// calq dies; proc.Child for a client, which hands its document over and
// exits, and dies with its instance.
func (i *Instance) command(start func(context.Context, proc.Options, ...string) *exec.Cmd, dir string, argv ...string) *exec.Cmd {
	args := append([]string{"/bin/sh", "-c", `umask 077 && exec "$0" "$@"`, i.p.soffice, profileArg(i.l.profileURL()),
		"--headless", "--invisible", "--nocrashreport", "--nodefault", "--nologo", "--norestore"}, argv...)
	env := instanceEnv(os.Environ(), i.l.home(), i.l.tmp())
	return start(context.Background(), proc.Options{Dir: dir, Env: env, Grace: time.Second}, args...)
}

// kill SIGKILLs the run's process group, unless it has been waited for.
func (r *run) kill() {
	select {
	case <-r.done:
	default:
		killGroup(r.pgid)
	}
}

// stop kills r and cleans up after it: stragglers outside the group (none
// expected), the pipe socket a killed instance leaves in /tmp.
func (i *Instance) stop(r *run) {
	r.kill()
	<-r.done
	i.mu.Lock()
	h := r.uno
	r.uno = nil
	i.mu.Unlock()
	if h != nil {
		h.stop()
	}
	killMarked(r.marker)
	removeSocket(pipePath(r.marker))
	if r.pipe != "" {
		removeSocket(unoPipePath(r.pipe))
	}
	i.mu.Lock()
	if i.run == r {
		i.run = nil
	}
	i.mu.Unlock()
}

// killAll kills the running soffice and the client in progress without
// waiting: the holder of the instance, or close, cleans up.
func (i *Instance) killAll() {
	i.mu.Lock()
	r, c := i.run, i.client
	i.mu.Unlock()
	if r != nil {
		r.kill()
		i.mu.Lock()
		if r.uno != nil {
			r.uno.cancel() // kills its group; stop waits for it
		}
		i.mu.Unlock()
	}
	if c != nil && c.Process != nil {
		killGroup(c.Process.Pid)
	}
}

// close stops the instance for Pool.Close, once any conversion in
// progress has returned.
func (i *Instance) close() error {
	i.sem <- struct{}{}
	defer i.release()
	i.mu.Lock()
	r := i.run
	i.mu.Unlock()
	if r != nil {
		i.stop(r)
	}
	return i.lock.Close()
}

// said returns the error lines LibreOffice printed, for a ConvertError's
// Detail ("Error: source file could not be loaded").
func said(log string) string {
	var lines []string
	for _, l := range strings.Split(log, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "Error") || strings.Contains(l, "error") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}

// exitedWhileStarting is the error of an instance that exited before it
// was up, with what soffice said last before any stack trace: a crash
// (LibreOffice 7.4 aborts when fontconfig finds no font) prints its
// reason, then "Fatal exception: Signal 6" and a backtrace whose last
// lines say nothing to a reader.
func exitedWhileStarting(r *run) error {
	return fmt.Errorf("soffice exited while starting (%v): %q", r.cmd.ProcessState, beforeStack(r.log.String(), 5))
}

// notUpInTime is the error of a start that ran out of time (err, the
// context's), with what soffice printed meanwhile: the only clue to why.
func notUpInTime(r *run, err error) error {
	out := lastLines(r.log.String(), 5)
	if out == "" {
		return fmt.Errorf("soffice not up in time, having printed nothing: %w", err)
	}
	return fmt.Errorf("soffice not up in time, having printed %q: %w", out, err)
}

// beforeStack returns the last n non-blank lines of log before a line
// "Stack:".
func beforeStack(log string, n int) string {
	var lines []string
	for _, l := range strings.Split(log, "\n") {
		l = strings.TrimSpace(l)
		if l == "Stack:" {
			break
		}
		if l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// lastLines returns the last n lines of log, for an error message.
func lastLines(log string, n int) string {
	lines := strings.Split(strings.TrimSpace(log), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// removeSocket removes the socket at path, if there is one of calq's
// user: another user's is evidence, left for pipeFree to report.
func removeSocket(path string) {
	if ownSocket(path) {
		os.Remove(path)
	}
}

// ownSocket says whether path is a socket of calq's user.
func ownSocket(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSocket == 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
