package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"calq/convert"
)

// requireSoffice skips without LibreOffice, or fails under
// CALQ_REQUIRE_TOOLS=1.
func requireSoffice(t *testing.T) {
	t.Helper()
	if ok, err := toolCondition("tool:soffice"); err != nil {
		t.Fatal(err)
	} else if !ok {
		t.Skip("LibreOffice is not installed") // under CALQ_REQUIRE_TOOLS=1 toolCondition fails instead
	}
}

// convertRun is one calq convert process with its file lines.
type convertRun struct {
	cmd   *exec.Cmd
	mu    sync.Mutex
	files []convert.FileResult
	done  chan struct{}
}

// startConvert starts calq convert --json with TMPDIR set to tmp, so that
// its LibreOffice profiles, and so its processes, can be told apart.
func startConvert(t *testing.T, tmp string, args ...string) *convertRun {
	t.Helper()
	cmd := calqCmd(t, append([]string{"convert", "--json"}, args...)...)
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &convertRun{cmd: cmd, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var f convert.FileResult
			if json.Unmarshal(sc.Bytes(), &f) == nil && f.Type == "file" {
				r.mu.Lock()
				r.files = append(r.files, f)
				r.mu.Unlock()
			}
		}
	}()
	return r
}

// converted lists the inputs the run converted so far.
func (r *convertRun) converted() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var in []string
	for _, f := range r.files {
		if f.State == convert.StateConverted {
			in = append(in, f.Input)
		}
	}
	return in
}

func (r *convertRun) wait(t *testing.T) {
	t.Helper()
	<-r.done
	r.cmd.Wait()
}

// sofficeUnder lists the processes whose command line names dir: the
// LibreOffice instances started with TMPDIR=dir.
func sofficeUnder(dir string) []string {
	var found []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), dir) && strings.Contains(string(b), "soffice") {
			found = append(found, strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return found
}

// convertFixture writes n generated documents and returns the input and
// output directories and the journal.
func convertFixture(t *testing.T, n int) (in, out, db string) {
	t.Helper()
	dir := t.TempDir()
	in = filepath.Join(dir, "in")
	if err := os.Mkdir(in, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := convert.GenerateDocs(in, n, "small"); err != nil {
		t.Fatal(err)
	}
	return in, filepath.Join(dir, "out"), filepath.Join(dir, "j.db")
}

// TestConvertKillResume: calq convert killed with SIGKILL mid-batch
// leaves no LibreOffice process behind, and a second run converts the
// rest without converting a finished file again.
func TestConvertKillResume(t *testing.T) {
	requireSoffice(t)
	const n = 10
	in, out, db := convertFixture(t, n)
	tmp := t.TempDir()
	first := startConvert(t, tmp, "--instances", "1", "--db", db, "-o", out, in)
	deadline := time.Now().Add(2 * time.Minute)
	for len(first.converted()) < 3 {
		if time.Now().After(deadline) {
			first.cmd.Process.Kill()
			t.Fatal("3 files not converted in 2 minutes")
		}
		time.Sleep(50 * time.Millisecond)
	}
	first.cmd.Process.Signal(syscall.SIGKILL)
	first.wait(t)
	before := first.converted()
	// The guard kills the instance's group when calq dies.
	for left := sofficeUnder(tmp); len(left) > 0; left = sofficeUnder(tmp) {
		if time.Now().After(deadline) {
			t.Fatalf("LibreOffice outlived calq's SIGKILL: %q", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
	second := startConvert(t, tmp, "--instances", "1", "--db", db, "-o", out, in)
	second.wait(t)
	if code := second.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("second run exited %d", code)
	}
	again := map[string]bool{}
	for _, f := range second.converted() {
		again[f] = true
	}
	for _, f := range before {
		if again[f] {
			t.Errorf("%s converted by both runs", filepath.Base(f))
		}
	}
	if got := len(before) + len(again); got != n {
		t.Errorf("%d converted by the first run and %d by the second, want %d in all", len(before), len(again), n)
	}
	checkOutputs(t, out, n)
	if left := sofficeUnder(tmp); len(left) > 0 {
		t.Errorf("LibreOffice left after a normal exit: %q", left)
	}
}

// TestConvertOverlapping: two runs on one directory at once convert each
// file exactly once between them.
func TestConvertOverlapping(t *testing.T) {
	requireSoffice(t)
	const n = 8
	in, out, db := convertFixture(t, n)
	tmp := t.TempDir()
	a := startConvert(t, tmp, "--instances", "1", "--db", db, "-o", out, in)
	b := startConvert(t, tmp, "--instances", "1", "--db", db, "-o", out, in)
	a.wait(t)
	b.wait(t)
	// A file the other run holds is skipped, not failed: both succeed.
	for _, r := range []*convertRun{a, b} {
		if code := r.cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("a run exited %d, want 0", code)
		}
	}
	seen := map[string]int{}
	for _, f := range append(a.converted(), b.converted()...) {
		seen[f]++
	}
	for f, k := range seen {
		if k > 1 {
			t.Errorf("%s converted %d times", filepath.Base(f), k)
		}
	}
	if len(seen) != n {
		t.Errorf("%d files converted between the two runs, want %d", len(seen), n)
	}
	checkOutputs(t, out, n)
}

// checkOutputs wants n PDFs under out and no temporary file.
func checkOutputs(t *testing.T, out string, n int) {
	t.Helper()
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	pdfs := 0
	for _, e := range entries {
		switch {
		case strings.Contains(e.Name(), ".calq-part-"):
			t.Errorf("left behind: %s", e.Name())
		case strings.HasSuffix(e.Name(), ".pdf"):
			pdfs++
		}
	}
	if pdfs != n {
		t.Errorf("%d PDFs in %s, want %d", pdfs, out, n)
	}
}
