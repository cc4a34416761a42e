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
