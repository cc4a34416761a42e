package debris

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// deadPID starts and waits for a short process: its PID is gone after.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestOwner(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind string
		pid  int
		ok   bool
	}{
		{"calq-lo-42-abc", "lo", 42, true},
		{".calq-pdf-7-x", "pdf", 7, true},
		{".calq-part-0-x", "", 0, false},
		{"calq-lo-abc", "", 0, false},
		{"report.pdf", "", 0, false},
	} {
		kind, pid, ok := Owner(tc.name)
		if kind != tc.kind || pid != tc.pid || ok != tc.ok {
			t.Errorf("Owner(%q) = %q, %d, %v; want %q, %d, %v", tc.name, kind, pid, ok, tc.kind, tc.pid, tc.ok)
		}
	}
}

func TestSweep(t *testing.T) {
	dir := t.TempDir()
	dead := strconv.Itoa(deadPID(t))
	live, err := os.MkdirTemp(dir, Pattern("pdf", true))
	if err != nil {
		t.Fatal(err)
	}
	mine := filepath.Base(live)
	for _, n := range []string{".calq-pdf-" + dead + "-1", "calq-lo-" + dead + "-2", ".calq-part-" + dead + "-3", "keep.pdf"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := Sweep(dir, "pdf", "lo")
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 2 {
		t.Errorf("removed %q, want the dead pdf and lo entries", removed)
	}
	left, _ := os.ReadDir(dir)
	var names []string
	for _, e := range left {
		names = append(names, e.Name())
	}
	got := strings.Join(names, " ")
	for _, want := range []string{mine, ".calq-part-" + dead + "-3", "keep.pdf"} {
		if !strings.Contains(got, want) {
			t.Errorf("left %q, want %q kept", got, want)
		}
	}
}

// TestSweepLocked: a MkdirLocked directory is kept while its lock is
// held, even though its PID is alive either way, and removed once the
// lock is free (its process died and the PID went to another); entries
// of another user are never removed, dead or not.
func TestSweepLocked(t *testing.T) {
	parent := t.TempDir()
	live, release, err := MkdirLocked(parent, "worker")
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(live); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("MkdirLocked made %s with %v (%v), want mode 0700", live, fi.Mode(), err)
	}
	// A dead worker whose PID is ours now: a lock file nobody holds.
	reused := filepath.Join(parent, "calq-worker-"+strconv.Itoa(os.Getpid())+"-reused")
	must(t, os.Mkdir(reused, 0o700))
	must(t, os.WriteFile(filepath.Join(reused, lockName), nil, 0o600))
	must(t, os.WriteFile(filepath.Join(reused, "in.docx"), []byte("copy of an input"), 0o600))
	// Being made by a live process: no lock file yet.
	making := filepath.Join(parent, "calq-worker-"+strconv.Itoa(os.Getpid())+"-making")
	must(t, os.Mkdir(making, 0o700))
	others := ""
	if os.Geteuid() == 0 {
		others = filepath.Join(parent, "calq-worker-"+strconv.Itoa(deadPID(t))+"-nobody")
		must(t, os.Mkdir(others, 0o700))
		must(t, os.Chown(others, 65534, 65534))
	}
	removed, err := Sweep(parent, "worker")
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0] != reused {
		t.Errorf("removed %q, want only %s", removed, reused)
	}
	for _, keep := range []string{live, making, others} {
		if _, err := os.Stat(keep); keep != "" && err != nil {
			t.Errorf("%s: %v, want it kept", keep, err)
		}
	}
	must(t, release())
	if _, err := os.Stat(live); !os.IsNotExist(err) {
		t.Errorf("after release, %s: %v, want it removed", live, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
