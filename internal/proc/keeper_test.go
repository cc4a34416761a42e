//go:build linux

package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeKeeperCalqEnv makes the test binary a stand-in for calq that runs
// two commands through a Keeper and waits to be killed; the value is its
// directory.
const fakeKeeperCalqEnv = "PROC_TEST_FAKE_KEEPER_CALQ"

// fakeKeeperCalq runs two shells with background grandchildren, each
// writing its pids to dir/pids, and the keeper's pid.
func fakeKeeperCalq(dir string) int {
	k := NewKeeper()
	done := make(chan error, 2)
	for range 2 {
		go func() {
			done <- k.Shell(context.Background(), Options{Dir: dir}, "/bin/sh",
				"sleep 300 & echo $! >> pids; echo $$ >> pids; exec sleep 300", nil, nil)
		}()
	}
	for k.cmd == nil {
		time.Sleep(time.Millisecond)
	}
	if err := appendPid(filepath.Join(dir, "pids"), k.cmd.Process.Pid); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintln(os.Stderr, <-done)
	return 1
}

// TestKeeperCalqKilled SIGKILLs a fake calq (see TestMain) and expects
// both commands' trees, and the keeper, to die with it.
func TestKeeperCalqKilled(t *testing.T) {
	dir := t.TempDir()
	calq := startFakeCalq(t, fakeKeeperCalqEnv, dir)
	pids := waitPids(t, dir, 5) // 2 × (grandchild, shell), keeper
	calq.Process.Kill()
	calq.Wait()
	waitGone(t, pids)
}

// TestKeeperShell runs lines through the gate in each shell at hand, and
// through the /bin/sh wrapper for a shell the gate does not know.
func TestKeeperShell(t *testing.T) {
	k := NewKeeper()
	t.Cleanup(func() { k.Close() })
	other := filepath.Join(t.TempDir(), "othersh") // not in gatedShells
	if err := os.Symlink("/bin/sh", other); err != nil {
		t.Fatal(err)
	}
	shells := []string{"/bin/sh", other}
	for _, sh := range []string{"dash", "bash", "zsh", "ksh", "mksh"} {
		if p, err := exec.LookPath(sh); err == nil {
			shells = append(shells, p)
		}
	}
	tests := []struct {
		line, stdout, stderr string
		code                 int
	}{
		{"echo out; echo err >&2", "out\n", "err\n", 0},
		{"exit 3", "", "", 3},
		{`echo "$0"; echo $#`, "", "", 0}, // checked apart: $0 is the shell's
		{"test -e /proc/self/fd/3 && echo fd3 open || echo fd3 closed", "fd3 closed\n", "", 0},
		{"echo a; exec >&-; echo b >&2", "a\n", "b\n", 0},
	}
	for _, sh := range shells {
		for _, tt := range tests {
			var stdout, stderr bytes.Buffer
			err := k.Shell(t.Context(), Options{}, sh, tt.line, &stdout, &stderr)
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatalf("%s -c %q: %v", sh, tt.line, err)
			}
			if code != tt.code {
				t.Errorf("%s -c %q: status %d, want %d", sh, tt.line, code, tt.code)
			}
			if strings.Contains(tt.line, "$0") {
				if got := stdout.String(); !strings.HasSuffix(got, "\n0\n") {
					t.Errorf("%s -c %q: stdout %q, want no positional parameters", sh, tt.line, got)
				}
				continue
			}
			if stdout.String() != tt.stdout || stderr.String() != tt.stderr {
				t.Errorf("%s -c %q: stdout %q stderr %q, want %q %q", sh, tt.line,
					stdout.String(), stderr.String(), tt.stdout, tt.stderr)
			}
		}
	}
}

// TestGateClosed: a shell whose group calq could not report (calq died
// first) sees end of file on fd 3 and runs nothing.
func TestGateClosed(t *testing.T) {
	dir := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	cmd := exec.Command("/bin/sh", "-c", gate+"touch ran")
	cmd.Dir, cmd.ExtraFiles = dir, []*os.File{r}
	err = cmd.Run()
	r.Close()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 125 {
		t.Errorf("Run() = %v, want exit status 125", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("the line ran with the gate closed")
	}
}

// TestKeeperCancel cancels a command with grandchildren, one deaf to
// SIGTERM, and expects the group gone, the shell killed as asked.
func TestKeeperCancel(t *testing.T) {
	tests := []struct {
		name, script string
		pids         int
		grace        time.Duration
		want         syscall.Signal
	}{
		{"SIGTERM", "sleep 300 & echo $! >> pids; echo $$ >> pids; wait", 2, time.Minute, syscall.SIGTERM},
		{"SIGTERM ignored", "trap '' TERM; sleep 300 & echo $! >> pids; echo $$ >> pids; wait",
			2, 100 * time.Millisecond, syscall.SIGKILL},
	}
	k := NewKeeper()
	t.Cleanup(func() { k.Close() })
	for _, tt := range tests {
		dir := t.TempDir()
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- k.Shell(ctx, Options{Dir: dir, Grace: tt.grace}, "/bin/sh", tt.script, nil, nil) }()
		pids := waitPids(t, dir, tt.pids)
		cancel()
		if err := <-done; signalOf(err) != tt.want {
			t.Errorf("%s: Shell() = %v, want killed by %v", tt.name, err, tt.want)
		}
		waitGone(t, pids)
	}
}

// TestKeeperLeftovers: what a command leaves running in its group is
// killed when it exits, and does not hold its output open.
func TestKeeperLeftovers(t *testing.T) {
	k := NewKeeper()
	t.Cleanup(func() { k.Close() })
	dir := t.TempDir()
	var out bytes.Buffer
	err := k.Shell(t.Context(), Options{Dir: dir, Grace: time.Minute}, "/bin/sh",
		"sleep 300 & echo $! > pids; echo started; echo more >&2", &out, &out)
	if err != nil || out.String() != "started\nmore\n" {
		t.Fatalf("Shell() = %v, output %q; want nil, %q", err, out.String(), "started\nmore\n")
	}
	waitGone(t, waitPids(t, dir, 1))
}

// TestKeeperGone: with the keeper dead nothing could kill a command when
// calq dies, so none starts.
func TestKeeperGone(t *testing.T) {
	k := NewKeeper()
	if err := k.Shell(t.Context(), Options{}, "/bin/sh", "true", nil, nil); err != nil {
		t.Fatal(err)
	}
	k.cmd.Process.Kill()
	k.cmd.Wait()
	dir := t.TempDir()
	err := k.Shell(t.Context(), Options{Dir: dir}, "/bin/sh", "touch ran", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "keeper") {
		t.Errorf("Shell() = %v, want a keeper error", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("the line ran without a keeper")
	}
	k.Close()
}

// TestKeeperEnv: calq's secrets stay out of the commands' environment,
// and of the keeper's own, whether given or inherited.
func TestKeeperEnv(t *testing.T) {
	setSecrets(t)
	k := NewKeeper()
	t.Cleanup(func() { k.Close() })
	for _, env := range [][]string{nil, append(os.Environ(), "CALQ_USER_PASSWORD=user-secret")} {
		var out bytes.Buffer
		if err := k.Shell(t.Context(), Options{Env: env}, "/bin/sh", "env", &out, nil); err != nil {
			t.Fatal(err)
		}
		checkEnviron(t, "a keeper's command's env", strings.Split(out.String(), "\n"))
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(k.cmd.Process.Pid) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	checkEnviron(t, "the keeper's /proc/PID/environ", strings.Split(string(b), "\x00"))
}
