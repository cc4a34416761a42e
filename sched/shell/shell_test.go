//go:build linux

package shell

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"calq/sched"
)

func TestShellWorker(t *testing.T) {
	dir := t.TempDir()
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(dir, "pid")
	big := strings.Repeat("x", outputCap)
	tests := []struct {
		name      string
		w         Worker
		payload   string
		timeout   time.Duration
		wantIs    error  // errors.Is(err, wantIs); nil: err must be nil
		reason    string // the error's Reason
		permanent bool
		stdout    string
		stderr    string // how stderr ends: shells word errors differently
	}{
		{name: "exit 0", payload: "echo out; echo err >&2", stdout: "out\n", stderr: "err\n"},
		{name: "exit 1", payload: "echo oops >&2; exit 1", wantIs: &StatusError{}, reason: "exit status 1", stderr: "oops\n"},
		{name: "exit 127", payload: "calq-no-such-command", wantIs: &StatusError{}, reason: "exit status 127", permanent: true,
			stderr: "calq-no-such-command: not found\n"},
		{name: "signal", payload: "kill -KILL $$", wantIs: &StatusError{}, reason: "killed by SIGKILL"},
		{name: "no shell", w: Worker{Shell: "/calq/no/sh"}, payload: "true", wantIs: fs.ErrNotExist, permanent: true},
		{name: "timeout", payload: "sleep 300 & echo $! > " + pidFile + "; wait", timeout: time.Second, wantIs: sched.ErrTimeout},
		// GORACE spares the guard the race detector's exit delay.
		{name: "env and dir", w: Worker{Env: []string{"FOO=bar", "GORACE=" + os.Getenv("GORACE")}, Dir: dir},
			payload: `printf '%s %s' "$FOO" "$(pwd -P)"`, stdout: "bar " + realDir},
		{name: "output cut", payload: fmt.Sprintf("head -c %d /dev/zero | tr '\\0' x", outputCap+2),
			stdout: big + "\n[calq: output truncated: 2 more bytes dropped]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeoutCause(ctx, tt.timeout, sched.ErrTimeout)
				defer cancel()
			}
			var calls int
			var stdout, stderr string
			w := tt.w
			w.Output = func(_ *sched.Job, o, e []byte) { calls, stdout, stderr = calls+1, string(o), string(e) }
			err := w.Run(ctx, &sched.Job{Payload: []byte(tt.payload)})
			checkShellErr(t, err, tt.wantIs, tt.reason, tt.permanent)
			if calls != 1 || stdout != tt.stdout || !strings.HasSuffix(stderr, tt.stderr) {
				t.Errorf("Output called %d times, last with %.80q, %.80q; want once, with %.80q, ...%.80q",
					calls, stdout, stderr, tt.stdout, tt.stderr)
			}
		})
	}
	// The timeout case's background job died with its shell.
	pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, pidFile)))
	if err != nil {
		t.Fatal(err)
	}
	waitExited(t, pid)
}

func checkShellErr(t *testing.T, err, wantIs error, reason string, permanent bool) {
	t.Helper()
	var xe *StatusError
	switch {
	case wantIs == nil && err != nil:
		t.Fatalf("Run() = %v, want nil", err)
	case wantIs == nil:
	case errors.As(wantIs, &xe) && !errors.As(err, &xe):
		t.Fatalf("Run() = %v (%T), want an *StatusError", err, err)
	case xe == nil && !errors.Is(err, wantIs):
		t.Fatalf("Run() = %v, want an error wrapping %v", err, wantIs)
	}
	if got := sched.IsPermanent(err); got != permanent {
		t.Errorf("IsPermanent(%v) = %v, want %v", err, got, permanent)
	}
	if reason != "" && sched.ReasonOf(err) != reason {
		t.Errorf("reason of %v = %q, want %q", err, sched.ReasonOf(err), reason)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// waitExited waits up to 5 s for pid to exit; a zombie has.
func waitExited(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if _, state, _ := strings.Cut(string(b), ") "); err != nil || state[0] == 'Z' {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d still runs", pid)
		}
	}
}
