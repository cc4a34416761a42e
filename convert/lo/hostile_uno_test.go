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
