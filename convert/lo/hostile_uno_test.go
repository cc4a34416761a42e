package lo

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"calq/internal/tooltest"
)

// Issue 23, item 2: another local user must not drive calq's LibreOffice
// through its UNO pipe (or its single-instance pipe), nor make it unusable
// by creating the pipe first.

const nobodyID = 65534

// asNobody is name args run as the user nobody, which needs root. The
// caller waits for it.
func asNobody(t *testing.T, name string, args ...string) *exec.Cmd {
	t.Helper()
	if os.Getuid() != 0 {
		tooltest.Unavailable(t, "running a process as nobody needs root")
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent", "LANG=C.UTF-8"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobodyID, Gid: nobodyID}}
	return cmd
}

// exploitUNO is what the attacker ran as nobody: reach the socket
// argv[1] (UNO looks for /tmp/OSL_PIPE_<own uid>_<name>, so through a
// link of its own there), load the file argv[2] (readable by root alone)
// and export it as argv[3], as the instance's user.
const exploitUNO = `
import os, sys, uno
from com.sun.star.beans import PropertyValue
def prop(n, v):
    p = PropertyValue(); p.Name = n; p.Value = v; return p
name = "calqexploit%d" % os.getpid()
link = "/tmp/OSL_PIPE_%d_%s" % (os.getuid(), name)
os.symlink(sys.argv[1], link)
try:
    local = uno.getComponentContext()
    r = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    ctx = r.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % name)
    d = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
    doc = d.loadComponentFromURL(uno.systemPathToFileUrl(sys.argv[2]), "_blank", 0, (prop("Hidden", True),))
    doc.storeToURL(uno.systemPathToFileUrl(sys.argv[3]), (prop("FilterName", "writer_pdf_Export"),))
    doc.close(True)
    print("EXPLOITED")
finally:
    os.remove(link)
`

// connectUnix connects to the socket argv[1] and says so.
const connectUnix = `
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
print("CONNECTED")
`

// TestHostileUNOPipeOthersCannotDrive runs a pool under umask 000, as the
// attack did, and has nobody try the exploit on its UNO pipe and connect
// to its single-instance pipe: both are refused, the root-only file is
// not exported, and the pipes are srwx------.
func TestHostileUNOPipeOthersCannotDrive(t *testing.T) {
	tooltest.Require(t, "soffice")
	python := findPython()
	if python == "" {
		tooltest.Unavailable(t, "no python3")
	}
	asNobody(t, "true") // skips unless root
	dir := t.TempDir()
	os.Chmod(dir, 0o755) // nobody may reach what is below, if calq let it
	secret := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(secret, []byte("root only\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stolen := filepath.Join(dir, "stolen.pdf") // root may write there, nobody not
	old := syscall.Umask(0)
	p, err := New(context.Background(), Options{Instances: 1, StateDir: filepath.Join(dir, "state")})
	syscall.Umask(old)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	defer p.Close()
	r := currentRun(p.Instances()[0])
	if r.pipe == "" {
		tooltest.Unavailable(t, "no UNO helper (python3-uno missing)")
	}
	for _, path := range []string{unoPipePath(r.pipe), pipePath(r.marker)} {
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatalf("pipe: %v", err)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %v under umask 000, want no access for group and others", path, fi.Mode())
		}
		out, err := asNobody(t, python, "-c", connectUnix, path).CombinedOutput()
		if err == nil || strings.Contains(string(out), "CONNECTED") || !strings.Contains(string(out), "Permission denied") {
			t.Errorf("nobody connecting to %s: %v, %q; want Permission denied", path, err, out)
		}
	}
	out, err := asNobody(t, python, "-c", exploitUNO, unoPipePath(r.pipe), secret, stolen).CombinedOutput()
	if err == nil || strings.Contains(string(out), "EXPLOITED") {
		t.Errorf("exploit as nobody: %v, %q; want it refused", err, lastLines(string(out), 3))
	} else if !strings.Contains(string(out), "couldn't connect to pipe") {
		t.Errorf("exploit as nobody failed with %q, want it refused at the connection", lastLines(string(out), 3))
	}
	if _, err := os.Stat(stolen); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the exploit's output: stat = %v, want not exist", err)
	}
	// The instance still works for calq.
	good := filepath.Join(t.TempDir(), "good.pdf")
	if err := p.Instances()[0].Convert(t.Context(), testdata(t, "simple.odt"), good, ConvertOptions{}); err != nil {
		t.Fatalf("Convert after the attack: %v", err)
	}
	checkPDF(t, good, 1)
}

func currentRun(i *Instance) *run {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.run
}

// TestHostileUNOPipeNameIsRandom: the name holds 128 random bits, so no
// one can create the pipe first; it is not the profile's (it was the
// sha256 of the profile URL).
func TestHostileUNOPipeNameIsRandom(t *testing.T) {
	re := regexp.MustCompile(`^calq_[0-9a-f]{32}$`)
	seen := map[string]bool{}
	for range 100 {
		name := newPipeName()
		if !re.MatchString(name) {
			t.Fatalf("pipe name %q, want calq_ and 32 hex digits", name)
		}
		if seen[name] {
			t.Fatalf("pipe name %q twice in 100", name)
		}
		seen[name] = true
	}
}

// squat has nobody listen on path, as an attacker who knew the name would;
// it returns a function that stops the squatter and says how many
// connections it accepted.
func squat(t *testing.T, path string) (stop func() int) {
	t.Helper()
	const script = `
import os, socket, sys, threading
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o777); s.listen(128)
n = [0]
def serve():
    while True:
        c, _ = s.accept(); n[0] += 1
threading.Thread(target=serve, daemon=True).start()
print("ready", flush=True)
sys.stdin.read()
print(n[0], flush=True)
`
	cmd := asNobody(t, findPython(), "-c", script, path)
	in, _ := cmd.StdinPipe()
	outp, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		os.Remove(path)
	})
	out := bufio.NewReader(outp)
	if line, err := out.ReadString('\n'); line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("squatter: %q, %v", line, err)
	}
	return func() int {
		in.Close()
		line, _ := out.ReadString('\n')
		io.Copy(io.Discard, out)
		cmd.Wait()
		n, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil {
			t.Fatalf("squatter's count: %q", line)
		}
		return n
	}
}

// TestHostileUNOPipeSquatted: a socket another user made at the path an
// instance's pipe will have (the UNO pipe, with its name forced here, or
// the single-instance pipe, whose name follows from the profile) makes
// New fail at once with ErrPipeForeign naming the path and the owner;
// nothing of calq's connected to it.
func TestHostileUNOPipeSquatted(t *testing.T) {
	tooltest.Require(t, "soffice")
	asNobody(t, "true")
	name := "calq_" + strings.Repeat("5a", 16)
	restore := newPipeName
	newPipeName = func() string { return name }
	defer func() { newPipeName = restore }()
	for _, tc := range []struct {
		pipe string
		path func(state string) string
	}{
		{"uno", func(string) string { return unoPipePath(name) }},
		{"single-instance", func(state string) string { return pipePath(layout{filepath.Join(state, "lo-1")}.profileURL()) }},
	} {
		t.Run(tc.pipe, func(t *testing.T) {
			state := t.TempDir()
			path := tc.path(state)
			stop := squat(t, path)
			p, err := New(t.Context(), Options{Instances: 1, StateDir: state})
			if err == nil {
				p.Close()
			}
			if !errors.Is(err, ErrPipeForeign) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "uid 65534") {
				t.Errorf("New with %s squatted = %v, want ErrPipeForeign naming it and uid 65534", path, err)
			}
			if n := stop(); n != 0 {
				t.Errorf("the squatter accepted %d connections, want 0", n)
			}
			if pids := poolProcs(state); len(pids) != 0 {
				t.Errorf("processes of the refused pool remain: %v", pids)
			}
		})
	}
}

// TestCheckPipe covers what checkPipe refuses once a socket shows up at
// the pipe's path, each with a reason.
func TestCheckPipe(t *testing.T) {
	asNobody(t, "true")
	dir := t.TempDir()
	listen := func(t *testing.T, path string, mode os.FileMode) {
		l, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		os.Chmod(path, mode)
	}
	openDir := filepath.Join(dir, "open")
	os.Mkdir(openDir, 0o777)
	os.Chmod(openDir, 0o777)
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T) string
		pgid  int
		want  string // in the error; "" for none
	}{
		{"ours", func(t *testing.T) string {
			p := filepath.Join(dir, "ours")
			listen(t, p, 0o700)
			return p
		}, syscall.Getpgrp(), ""},
		{"another user's", func(t *testing.T) string {
			p := filepath.Join("/tmp", "calq-test-nobody-"+strconv.Itoa(os.Getpid()))
			squat(t, p)
			return p
		}, syscall.Getpgrp(), "owned by uid 65534"},
		{"open to all", func(t *testing.T) string {
			p := filepath.Join(dir, "open-socket")
			listen(t, p, 0o777)
			return p
		}, syscall.Getpgrp(), "that only it may open"},
		{"in a directory others may write", func(t *testing.T) string {
			p := filepath.Join(openDir, "s")
			listen(t, p, 0o700)
			return p
		}, syscall.Getpgrp(), "writable by other users"},
		{"answered by another process", func(t *testing.T) string {
			p := filepath.Join(dir, "other")
			listen(t, p, 0o700)
			return p
		}, 1, "not by the instance"},
		{"not a socket", func(t *testing.T) string {
			p := filepath.Join(dir, "file")
			os.WriteFile(p, nil, 0o600)
			return p
		}, syscall.Getpgrp(), "want a socket"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkPipe(tc.setup(t), tc.pgid)
			if tc.want == "" {
				if err != nil {
					t.Errorf("checkPipe = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, ErrPipeForeign) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("checkPipe = %v, want ErrPipeForeign saying %q", err, tc.want)
			}
		})
	}
}

// TestClaimFallback (issue 23, item 14): a state directory calq cannot use
// costs the kept profiles, not the conversions: a slot whose lock path is
// a directory is skipped for the next one, and a state directory that
// cannot be made, or whose slots all fail, gives way to a temporary one,
// with the reason in Fallback.
func TestClaimFallback(t *testing.T) {
	for _, tc := range []struct {
		name     string
		setup    func(t *testing.T, state string)
		wantSlot string // the first instance's slot, under state ("" for a temporary directory)
	}{
		{"usable", func(*testing.T, string) {}, "lo-1"},
		{"lock path is a directory", func(t *testing.T, state string) {
			os.MkdirAll(filepath.Join(state, "lo-1.lock"), 0o700)
		}, "lo-2"},
		{"every lock path is a directory", func(t *testing.T, state string) {
			for k := 1; k <= maxSlotFailures; k++ {
				os.MkdirAll(filepath.Join(state, "lo-"+strconv.Itoa(k)+".lock"), 0o700)
			}
		}, ""},
		{"slot is a file", func(t *testing.T, state string) {
			os.MkdirAll(state, 0o700)
			os.WriteFile(filepath.Join(state, "lo-1"), nil, 0o600)
		}, "lo-2"},
		{"state directory is a file", func(t *testing.T, state string) {
			os.WriteFile(state, nil, 0o600)
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "state")
			tc.setup(t, state)
			p := &Pool{opts: Options{Instances: 1, StateDir: state}, closing: make(chan struct{})}
			if err := p.claim(); err != nil {
				t.Fatalf("claim = %v, want a slot somewhere", err)
			}
			defer p.Close()
			got := p.insts[0].l.dir
			if tc.wantSlot != "" {
				if want := filepath.Join(state, tc.wantSlot); got != want || p.Fallback() != nil {
					t.Errorf("slot %s, fallback %v; want %s, nil", got, p.Fallback(), want)
				}
				return
			}
			if strings.HasPrefix(got, state) || p.scratch == "" || !strings.HasPrefix(got, p.scratch) {
				t.Errorf("slot %s, want one in a temporary directory", got)
			}
			if err := p.Fallback(); err == nil || !strings.Contains(err.Error(), state) {
				t.Errorf("Fallback = %v, want the reason naming %s", err, state)
			}
			scratch := p.scratch
			p.Close()
			if _, err := os.Stat(scratch); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("temporary directory after Close: %v, want removed", err)
			}
		})
	}
}

// TestHostileStoppedInstance (issue 23, item 14): an instance frozen by
// SIGSTOP fails the innocent document with ReasonStopped, not a timeout
// (which calq convert takes as the document's fault, for good); the
// instance is killed, and the next conversion of the same document, on a
// new instance, succeeds.
func TestHostileStoppedInstance(t *testing.T) {
	p := sharedPool.get(t)
	inst := p.Instances()[0]
	r, err := inst.ensureFor(t)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(-r.pgid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-r.pgid, syscall.SIGCONT)
	out := filepath.Join(t.TempDir(), "simple.pdf")
	err = inst.Convert(t.Context(), testdata(t, "simple.odt"), out, ConvertOptions{Timeout: 2 * time.Second})
	var ce *ConvertError
	if !errors.As(err, &ce) || ce.Reason != ReasonStopped || !errors.Is(err, ErrInstanceStopped) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Convert on a stopped instance = %v, want ReasonStopped wrapping ErrInstanceStopped, not DeadlineExceeded", err)
	}
	if err := inst.Convert(t.Context(), testdata(t, "simple.odt"), out, ConvertOptions{}); err != nil {
		t.Fatalf("Convert again = %v", err)
	}
	checkPDF(t, out, 1)
}

// ensureFor returns the instance's running soffice, started if need be.
func (i *Instance) ensureFor(t *testing.T) (*run, error) {
	if err := i.acquire(t.Context()); err != nil {
		return nil, err
	}
	defer i.release()
	return i.ensure(t.Context())
}
