package lo

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeSoffice is a stand-in for soffice: as an instance it waits until
// the file RELEASE exists, then says it is up (the keep-alive
// document's lock file) and lives on; as a client (--convert-to) it
// writes a PDF at once, or never returns when the source says "hang"
// or "grow". On "grow" the instance becomes EATER (this test binary, see
// eatMemory), which holds 128 MiB, after writing its pid to RELEASE.eater.
const fakeSoffice = `#!/bin/sh
for a; do last=$a; case $a in --convert-to) client=1;; --outdir) next=out;; *) [ "$next" = out ] && outdir=$a; next=;; esac; done
if [ -n "$client" ]; then
	grep -q grow "$last" && { echo grow > "RELEASE.grow"; exec sleep 600; }
	grep -q hang "$last" && exec sleep 600
	base=$(basename "$last"); printf '%%PDF-1.4 fake\n' > "$outdir/${base%.*}.pdf"; exit 0
fi
env > "RELEASE.env"
while [ ! -e "RELEASE" ]; do sleep 0.05; done
[ -p "RELEASE.grow" ] || mkfifo "RELEASE.grow"
touch "$(dirname "$last")/.~lock.$(basename "$last")#"
read grow < "RELEASE.grow"
echo $$ > "RELEASE.eater"
LO_TEST_EAT_MIB=128 exec "EATER"
`

// fakePool starts a one-instance pool on fakeSoffice; release lets the
// instance start.
func fakePool(t *testing.T) (p *Pool, release string) {
	t.Helper()
	return fakePoolWith(t, Options{})
}

// fakePoolWith is fakePool with options (Soffice, Instances and StateDir
// are set here).
func fakePoolWith(t *testing.T, o Options) (p *Pool, release string) {
	t.Helper()
	dir := t.TempDir()
	prog := filepath.Join(dir, "soffice")
	release = filepath.Join(dir, "release")
	// The path is in the script: calq passes LibreOffice only the
	// variables on its allow-list.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := strings.NewReplacer("RELEASE", release, "EATER", self).Replace(fakeSoffice)
	if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	o.Soffice, o.Instances, o.StateDir = prog, 1, filepath.Join(dir, "state")
	o.noUNO = true // the fake speaks no UNO: it is the client route's test
	began := time.Now()
	p, err = New(context.Background(), o)
	if err != nil {
		// Once seen in CI under load, and not here since: say how far
		// the fake got, for the next time.
		_, envErr := os.Stat(release + ".env")
		_, fifoErr := os.Stat(release + ".grow")
		t.Fatalf("after %s: %v (the fake's environment written: %v; its fifo made: %v)",
			time.Since(began).Round(time.Millisecond), err, envErr == nil, fifoErr == nil)
	}
	t.Cleanup(func() { p.Close() })
	return p, release
}

// TestTimeoutLeavesOutStartUp: with Timeout 2 s, a document that
// converts at once must not time out because its instance took longer
// than that to start again (after a crash, or 200 conversions).
func TestTimeoutLeavesOutStartUp(t *testing.T) {
	p, release := fakePool(t)
	inst := p.Instances()[0]
	in := filepath.Join(t.TempDir(), "doc.odt")
	if err := os.WriteFile(in, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The instance dies; the next conversion must start it again, and
	// that start waits until the test releases it, well after 2 s.
	os.Remove(release)
	inst.mu.Lock()
	r := inst.run
	inst.mu.Unlock()
	inst.stop(r)
	const timeout = 2 * time.Second
	time.AfterFunc(2*timeout, func() { os.WriteFile(release, nil, 0o600) })
	out := filepath.Join(t.TempDir(), "doc.pdf")
	if err := inst.Convert(context.Background(), in, out, ConvertOptions{Timeout: timeout}); err != nil {
		t.Fatalf("Convert after a slow start: %v; want the start-up left out of the timeout", err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("no PDF: %v", err)
	}
	// A conversion that never ends does time out, as a timeout.
	hang := filepath.Join(t.TempDir(), "hang.odt")
	os.WriteFile(hang, []byte("hang"), 0o600)
	err := inst.Convert(context.Background(), hang, filepath.Join(t.TempDir(), "hang.pdf"), ConvertOptions{Timeout: 500 * time.Millisecond})
	var ce *ConvertError
	if !errors.As(err, &ce) || ce.Reason != ReasonTimeout || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a hanging conversion: %v; want a ConvertError with reason %s wrapping DeadlineExceeded", err, ReasonTimeout)
	}
}

// TestRemoveDebris: a SIGKILLed pool's directory (profiles, documents)
// and its instances' sockets (single-instance and UNO pipes) go; a live
// pool's stay, and so does a socket of another user at a dead pool's path.
func TestRemoveDebris(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dead := filepath.Join(tmp, "calq-lo-"+strconv.Itoa(deadPID(t))+"-x1")
	slot := filepath.Join(dead, "lo-1")
	if err := os.MkdirAll(filepath.Join(slot, "work"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(slot, "work", "in.docx"), []byte("a copy of a document"), 0o600)
	pipe := pipePath(layout{slot}.profileURL())
	makeSocket(t, pipe)
	uno := newPipeName()
	os.WriteFile(layout{slot}.pipeName(), []byte(uno), 0o600)
	makeSocket(t, unoPipePath(uno))
	live := filepath.Join(tmp, "calq-lo-"+strconv.Itoa(os.Getpid())+"-x2")
	if err := os.MkdirAll(filepath.Join(live, "lo-1"), 0o700); err != nil {
		t.Fatal(err)
	}
	livePipe := pipePath(layout{filepath.Join(live, "lo-1")}.profileURL())
	makeSocket(t, livePipe)
	kept := []string{live, livePipe}
	if os.Getuid() == 0 {
		// Another user's socket at a dead slot's UNO pipe path.
		dead3 := filepath.Join(tmp, "calq-lo-"+strconv.Itoa(deadPID(t))+"-x3", "lo-1")
		os.MkdirAll(dead3, 0o700)
		foreign := newPipeName()
		os.WriteFile(layout{dead3}.pipeName(), []byte(foreign), 0o600)
		makeSocket(t, unoPipePath(foreign))
		os.Lchown(unoPipePath(foreign), nobodyID, nobodyID)
		kept = append(kept, unoPipePath(foreign))
	}
	removed, err := RemoveDebris()
	if err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{dead, pipe, unoPipePath(uno)} {
		if _, err := os.Lstat(gone); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there after RemoveDebris (removed %q)", gone, removed)
		}
	}
	for _, kept := range kept {
		if _, err := os.Lstat(kept); err != nil {
			t.Errorf("a live pool's %s was removed: %v", kept, err)
		}
	}
}

// makeSocket leaves a unix socket at path, as a killed instance does; the
// test removes it at the end.
func makeSocket(t *testing.T, path string) {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	t.Cleanup(func() { os.Remove(path) })
}

// deadPID is the PID of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	if err != nil {
		t.Fatal(err)
	}
	p.Wait()
	return p.Pid
}

// TestInstanceEnvHasNoSecrets: LibreOffice gets no password of calq's in
// its environment (readable in /proc/PID/environ), only the allow-list.
func TestInstanceEnvHasNoSecrets(t *testing.T) {
	t.Setenv("CALQ_OWNER_PASSWORD", "owner-secret")
	t.Setenv("CALQ_USER_PASSWORD", "user-secret")
	t.Setenv("UNRELATED_TOKEN", "not for LibreOffice")
	p, release := fakePool(t)
	var env []byte
	deadline := time.Now().Add(time.Minute)
	for {
		b, err := os.ReadFile(release + ".env")
		if err == nil && strings.Contains(string(b), "PATH=") {
			env = b
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the fake instance did not write its environment")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, bad := range []string{"owner-secret", "user-secret", "UNRELATED_TOKEN"} {
		if strings.Contains(string(env), bad) {
			t.Errorf("the instance's environment holds %s:\n%s", bad, env)
		}
	}
	if !strings.Contains(string(env), "HOME=") {
		t.Errorf("the instance has no HOME:\n%s", env)
	}
	// As the kernel shows it to the user's other processes: the guard
	// and the instance.
	inst := p.Instances()[0]
	inst.mu.Lock()
	pgid := inst.run.pgid
	inst.mu.Unlock()
	pids := groupPids(pgid)
	if len(pids) < 2 {
		t.Fatalf("the instance's group holds %v, want the guard and the instance", pids)
	}
	for _, pid := range pids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"owner-secret", "user-secret", "UNRELATED_TOKEN"} {
			if strings.Contains(string(b), bad) {
				t.Errorf("/proc/%d/environ holds %s", pid, bad)
			}
		}
	}
}

// TestStartTimeoutSaysWhatSofficePrinted: a soffice that never comes up
// fails its start with what it printed, the only clue to why, and as a
// deadline.
func TestStartTimeoutSaysWhatSofficePrinted(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "soffice")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\necho 'waiting for the dbus socket'\nexec sleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := New(context.Background(), Options{Soffice: prog, Instances: 1, StateDir: filepath.Join(dir, "state"),
		StartTimeout: 5 * time.Second, noUNO: true})
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "waiting for the dbus socket") {
		t.Fatalf("New with a soffice that never comes up: %v; want a deadline naming what it printed", err)
	}
}
