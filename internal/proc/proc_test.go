//go:build linux

package proc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// modes runs f with a guard and, as when calq cannot find its executable,
// without one.
func modes(t *testing.T, f func(t *testing.T)) {
	t.Run("guard", f)
	t.Run("direct", func(t *testing.T) {
		executable = func() (string, error) { return "", errors.New("test: no executable") }
		t.Cleanup(func() { executable = os.Executable })
		f(t)
	})
}

// TestCancel cancels commands with grandchildren, one of them deaf to
// SIGTERM, and expects all their processes gone.
func TestCancel(t *testing.T) {
	tests := []struct {
		name, script string
		pids         int
		grace        time.Duration
		want         syscall.Signal // what killed the direct child
	}{
		{"SIGTERM", "sleep 300 & echo $! >> pids; sleep 300 & echo $! >> pids; echo $$ >> pids; wait",
			3, time.Minute, syscall.SIGTERM},
		{"SIGTERM ignored", "trap '' TERM; sleep 300 & echo $! >> pids; echo $$ >> pids; wait",
			2, 100 * time.Millisecond, syscall.SIGKILL},
	}
	modes(t, func(t *testing.T) {
		for _, tt := range tests {
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(t.Context())
			cmd := Command(ctx, Options{Dir: dir, Grace: tt.grace}, "sh", "-c", tt.script)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pids := waitPids(t, dir, tt.pids)
			cancel()
			if err := cmd.Wait(); signalOf(err) != tt.want {
				t.Errorf("%s: Wait() = %v, want killed by %v", tt.name, err, tt.want)
			}
			waitGone(t, pids)
		}
	})
}

// TestCalqKilled SIGKILLs a fake calq (see TestMain) and expects the
// command's whole tree to die with it.
func TestCalqKilled(t *testing.T) {
	dir := t.TempDir()
	calq := startFakeCalq(t, fakeCalqEnv, dir)
	pids := waitPids(t, dir, 3) // grandchild, shell, guard
	calq.Process.Kill()
	calq.Wait()
	waitGone(t, pids)
}

// startFakeCalq starts the test binary as a stand-in for calq, chosen
// by env (see TestMain), working in dir.
func startFakeCalq(t *testing.T, env, dir string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	calq := exec.Command(self)
	calq.Env = append(os.Environ(), env+"="+dir)
	calq.Stderr = os.Stderr
	if err := calq.Start(); err != nil {
		t.Fatal(err)
	}
	return calq
}

func TestExitStatus(t *testing.T) {
	tests := []struct {
		name, script string
		code         int
		sig          syscall.Signal
	}{
		{"exit 0", "exit 0", 0, 0},
		{"exit 3", "exit 3", 3, 0},
		{"SIGKILL", "kill -KILL $$", -1, syscall.SIGKILL},
		{"SIGTERM", "kill -TERM $$", -1, syscall.SIGTERM},
		{"SIGSEGV", "kill -SEGV $$", -1, syscall.SIGSEGV}, // Go would dump stacks
		{"SIGUSR1", "kill -USR1 $$", -1, syscall.SIGUSR1}, // Go would drop it
	}
	modes(t, func(t *testing.T) {
		for _, tt := range tests {
			cmd := Command(t.Context(), Options{Dir: t.TempDir()}, "sh", "-c", tt.script)
			err := cmd.Run()
			if got := cmd.ProcessState.ExitCode(); got != tt.code {
				t.Errorf("%s: ExitCode() = %d, want %d (err %v)", tt.name, got, tt.code, err)
			}
			if got := signalOf(err); got != tt.sig {
				t.Errorf("%s: signal = %v, want %v", tt.name, got, tt.sig)
			}
		}
	})
}

func TestNotFound(t *testing.T) {
	modes(t, func(t *testing.T) {
		err := Command(t.Context(), Options{}, "calq-no-such-command").Run()
		if !errors.Is(err, exec.ErrNotFound) {
			t.Errorf("Run() = %v, want exec.ErrNotFound", err)
		}
	})
}

// signalOf returns the signal that killed the process Wait reported on in
// err, or 0.
func signalOf(err error) syscall.Signal {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 0
	}
	if ws := ee.Sys().(syscall.WaitStatus); ws.Signaled() {
		return ws.Signal()
	}
	return 0
}

// waitPids waits for dir/pids to hold n pids, and returns them.
func waitPids(t *testing.T, dir string, n int) []int {
	t.Helper()
	var pids []int
	poll(t, "pids written", func() bool {
		b, _ := os.ReadFile(filepath.Join(dir, "pids"))
		pids = pids[:0]
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		return len(pids) >= n
	})
	return pids
}

// waitGone waits for every process in pids to be gone.
func waitGone(t *testing.T, pids []int) {
	t.Helper()
	poll(t, "processes gone", func() bool {
		for _, pid := range pids {
			if alive(pid) {
				t.Logf("pid %d alive", pid)
				return false
			}
		}
		return true
	})
}

// alive reports whether pid runs; a zombie has ended.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, state, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(state, "Z")
}

// poll waits up to 5 s for cond, checking every 10 ms.
func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestLeftoversKilled: a background job outliving the command would hold
// the output pipe, and, once the guard is gone, outlive calq.
func TestLeftoversKilled(t *testing.T) {
	dir := t.TempDir()
	cmd := Command(t.Context(), Options{Dir: dir, Grace: 2 * time.Second}, "sh", "-c", "sleep 300 & echo $! > pids")
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("Output() = %q, %v; want nil error", out, err)
	}
	waitGone(t, waitPids(t, dir, 1))
}
