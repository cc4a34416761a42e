package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"calq/convert"
	"calq/internal/tooltest"
)

// mountReadOnly mounts an empty read-only tmpfs at dir for the test.
// Needs root (mount); unavailable elsewhere, except in CI.
func mountReadOnly(t *testing.T, dir string) {
	t.Helper()
	must(t, os.MkdirAll(dir, 0o755))
	if o, err := exec.Command("mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
		tooltest.Unavailable(t, "cannot mount a tmpfs here (root: %v): %v: %s", os.Geteuid() == 0, err, o)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
}

// TestConvertReadOnlyOut: a read-only --out is a usage error before any
// conversion (it was 1,000 conversions, each retried, before anything
// failed); a read-only directory below it fails its files at once, each
// once: a read-only file system is no fault a retry fixes.
func TestConvertReadOnlyOut(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	must(t, os.MkdirAll(filepath.Join(in, "sub"), 0o755))
	copyData(t, "testPNG.png", filepath.Join(in, "a.png"))
	copyData(t, "testPNG.png", filepath.Join(in, "sub", "b.png"))
	copyData(t, "testPNG.png", filepath.Join(in, "sub", "c.png"))

	ro := filepath.Join(dir, "ro")
	mountReadOnly(t, ro)
	cmd := calqCmd(t, "convert", "--db", filepath.Join(dir, "j.db"), "-o", ro, in)
	stderr, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(stderr), "calq: --out "+ro+": cannot write in "+ro+": read-only file system") {
		t.Errorf("read-only --out: exit %d, %s; want 2 and the reason", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "j.db")); err == nil {
		t.Error("the journal was created: work began before the check")
	}

	out := filepath.Join(dir, "out")
	mountReadOnly(t, filepath.Join(out, "sub"))
	cmd = calqCmd(t, "convert", "--json", "--retries", "3", "--db", filepath.Join(dir, "j.db"), "-o", out, in)
	cmd.Env = append(cmd.Env, convertEnv(t.TempDir())...)
	var stdout, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &errb
	_ = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 3 {
		t.Errorf("a read-only subdirectory: exit %d, want 3 (partial)\n%s", code, errb.String())
	}
	states := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		f, ok := fileLine([]byte(line))
		if !ok {
			continue
		}
		if f.State == convert.StateRetry {
			t.Errorf("%s retried after %q", f.Input, f.Reason)
		}
		states[filepath.Base(f.Input)] = f.State
		if f.State == convert.StateFailed && (!strings.Contains(f.Reason, "read-only file system") || !f.Permanent) {
			t.Errorf("%s: failed with %q, permanent %v; want read-only file system, permanent", f.Input, f.Reason, f.Permanent)
		}
	}
	if states["a.png"] != "converted" || states["b.png"] != "failed" || states["c.png"] != "failed" {
		t.Errorf("states %v, want a converted, b and c failed\n%s", states, stdout.String())
	}
}
