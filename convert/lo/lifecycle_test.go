package lo

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestClose closes a pool in the middle of a conversion: the conversion
// returns "pool closed", no process of the pool is left, nor its pipe
// sockets, nor (New made it) its state directory; later conversions fail
// with ErrClosed.
func TestClose(t *testing.T) {
	sharedPool.get(t) // Require
	p, err := New(t.Context(), Options{Instances: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := p.dir
	if n := len(poolProcs(dir)); n == 0 {
		t.Fatalf("no process of the pool found under %s: the check below would prove nothing", dir)
	}
	inst := p.Instances()[0]
	errc := make(chan error, 1)
	go func() {
		errc <- inst.Convert(context.Background(), hangingDoc(), filepath.Join(t.TempDir(), "hang.pdf"), ConvertOptions{})
	}()
	waitFor(t, "the conversion", func() bool { return handing(inst) })
	var pipes []string
	for _, i := range p.Instances() {
		pipes = append(pipes, pipePath(i.l.profileURL()))
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close() = %v", err)
	}
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Errorf("Convert during Close = %v, want ErrClosed", err)
	}
	if pids := poolProcs(dir); len(pids) != 0 {
		t.Errorf("after Close, processes of the pool remain: %v", pids)
	}
	for _, pipe := range pipes {
		if _, err := os.Lstat(pipe); !os.IsNotExist(err) {
			t.Errorf("after Close, pipe %s: stat = %v, want not exist", pipe, err)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("after Close, state directory: stat = %v, want not exist", err)
	}
	err = inst.Convert(t.Context(), testdata(t, "simple.odt"), filepath.Join(t.TempDir(), "x.pdf"), ConvertOptions{})
	var ce *ConvertError
	if !errors.As(err, &ce) || ce.Reason != ReasonClosed || !errors.Is(err, ErrClosed) {
		t.Errorf("Convert after Close = %v, want a ConvertError %q wrapping ErrClosed", err, ReasonClosed)
	}
}

// TestContextEndsPool: when New's context is done, the instances die
// without waiting for Close.
func TestContextEndsPool(t *testing.T) {
	sharedPool.get(t)
	ctx, cancel := context.WithCancel(t.Context())
	dir := t.TempDir()
	p, err := New(ctx, Options{Instances: 1, StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if len(poolProcs(dir)) == 0 {
		t.Fatal("no process of the pool found")
	}
	cancel()
	waitFor(t, "the pool's processes to die", func() bool { return len(poolProcs(dir)) == 0 })
}

// TestCalqKilled re-executes the test binary as a stand-in for calq (see
// childPool), which starts a pool and a conversion that hangs, then
// SIGKILLs it: no process of its pool may survive it.
// Both routes: through the UNO helper, and through a client soffice,
// which runs without a guard of its own.
func TestCalqKilled(t *testing.T) {
	for _, route := range []string{"uno", "client"} {
		t.Run(route, func(t *testing.T) {
			if route == "client" {
				t.Setenv(childNoUNOEnv, "1")
			}
			dir, child := startChild(t)
			child.Process.Kill()
			child.Wait()
			waitFor(t, "the pool's processes to die with calq", func() bool { return len(poolProcs(dir)) == 0 })
			// Nobody was left to remove the instance's pipe sockets.
			l := layout{filepath.Join(dir, "lo-1")}
			os.Remove(pipePath(l.profileURL()))
			if pipe := l.lastUNOPipe(); pipe != "" {
				os.Remove(pipe)
			}
		})
	}
}

// TestCalqInterrupted sends SIGINT to the stand-in for calq, as Ctrl-C
// does: it stops its pool through New's context, closes it and exits 0;
// no process of its pool is left.
func TestCalqInterrupted(t *testing.T) {
	dir, child := startChild(t)
	child.Process.Signal(syscall.SIGINT)
	if err := child.Wait(); err != nil {
		t.Errorf("calq after SIGINT: %v, want exit status 0", err)
	}
	if pids := poolProcs(dir); len(pids) != 0 {
		t.Errorf("after calq exited, processes of its pool remain: %v", pids)
	}
}

// startChild starts childPool and waits until its instance converts.
func startChild(t *testing.T) (dir string, child *exec.Cmd) {
	t.Helper()
	sharedPool.get(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	child = exec.Command(self, "-test.run=^$")
	child.Env = append(os.Environ(), childEnv+"="+dir)
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill() })
	waitFor(t, "the child's pool", func() bool {
		_, err := os.Stat(filepath.Join(dir, "ready"))
		return err == nil
	})
	// The instance's guard, oosplash and soffice.bin, and the UNO helper
	// (or a client soffice without one).
	if n := len(poolProcs(dir)); n < 3 {
		t.Fatalf("%d processes of the child's pool, want at least 3 (instance and helper or client)", n)
	}
	return dir, child
}
