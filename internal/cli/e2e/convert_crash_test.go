package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"calq/convert"
	"calq/convert/convertbench"
	"calq/sched"
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

// convertEnv is the environment of a calq convert whose temporary files
// and LibreOffice profiles (its cache) are under tmp, so that its
// processes can be told apart.
func convertEnv(tmp string) []string {
	return []string{"TMPDIR=" + tmp, "XDG_CACHE_HOME=" + filepath.Join(tmp, "cache")}
}

// fileLine decodes a --json line of message_type "file".
func fileLine(line []byte) (convert.FileResult, bool) {
	var f struct {
		Type string `json:"message_type"`
		convert.FileResult
	}
	if json.Unmarshal(line, &f) != nil || f.Type != "file" {
		return convert.FileResult{}, false
	}
	return f.FileResult, true
}

// startConvert starts calq convert --json with its files under tmp (see
// convertEnv).
func startConvert(t *testing.T, tmp string, args ...string) *convertRun {
	t.Helper()
	cmd := calqCmd(t, append([]string{"convert", "--json"}, args...)...)
	cmd.Env = append(cmd.Env, convertEnv(tmp)...)
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
			if f, ok := fileLine(sc.Bytes()); ok {
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
	if _, err := convertbench.GenerateDocs(in, n, "small"); err != nil {
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
	if len(sofficeUnder(tmp)) == 0 {
		t.Fatalf("no LibreOffice process of calq's found under %s: the check below would prove nothing", tmp)
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
	// The killed run's debris: LibreOffice's profiles and work
	// directories (copies of documents) and calq's copies of inputs.
	if left, _ := filepath.Glob(filepath.Join(tmp, "calq-*")); len(left) == 0 {
		t.Errorf("no calq-* directory in TMPDIR after a SIGKILL; the debris check below proves nothing")
	}
	second := startConvert(t, tmp, "--instances", "1", "--db", db, "-o", out, in)
	second.wait(t)
	if code := second.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("second run exited %d", code)
	}
	for _, pattern := range []string{filepath.Join(tmp, "calq-*"), filepath.Join(out, ".calq-*")} {
		if left, _ := filepath.Glob(pattern); len(left) > 0 {
			t.Errorf("the killed run's debris outlived the next run: %q", left)
		}
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

// waitConverted polls until the run has converted n files.
func (r *convertRun) waitConverted(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for len(r.converted()) < n {
		if time.Now().After(deadline) {
			r.cmd.Process.Kill()
			t.Fatalf("%d files not converted in 3 minutes", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestConvertCtrlC: the user presses Ctrl-C mid-batch. The files not
// done are "cancelled", not failed, the summary says so once, with the
// run's real duration, and calq exits 130.
func TestConvertCtrlC(t *testing.T) {
	requireSoffice(t)
	const n = 10
	in, out, db := convertFixture(t, n)
	tmp := t.TempDir()
	cmd := calqCmd(t, "convert", "--instances", "1", "--db", db, "-o", out, in)
	cmd.Env = append(cmd.Env, convertEnv(tmp)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once the first file is done: output of a PDF.
	waitFirstPDF(t, cmd, out)
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit status %d, want 130\n%s", code, stderr.String())
	}
	got := stderr.String()
	if strings.Contains(got, "failed [") || strings.Count(got, "context canceled") > 1 {
		t.Errorf("cancelled files reported as failures, or the cause repeated:\n%s", got)
	}
	m := regexp.MustCompile(`(?m)^calq: 10 files: (\d+) converted, 0 skipped, 0 failed, (\d+) cancelled in ([0-9.]+)s$`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("no summary with cancelled files:\n%s", got)
	}
	if secs, _ := strconv.ParseFloat(m[3], 64); secs <= 0 {
		t.Errorf("summary time %ss, want the run's duration", m[3])
	}
	// The files not started are recorded cancelled, not left queued.
	if states := journalStates(t, db); slices.Contains(states, sched.StateQueued) {
		t.Errorf("journal after Ctrl-C: %v, want no job queued", states)
	}
}

// waitFirstPDF waits until the convert run cmd has put a PDF in out; it
// kills cmd and fails t when none comes within 3 minutes. (A poll: the
// run's output is the only sign outside it.)
func waitFirstPDF(t *testing.T, cmd *exec.Cmd, out string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if pdfs, _ := filepath.Glob(filepath.Join(out, "*.pdf")); len(pdfs) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no file converted in 3 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestConvertOverlappingKilled: two runs on one directory, and the one
// that holds files is killed. The survivor must not exit 0 with files
// missing: it waits, takes over the dead run's files and converts them.
func TestConvertOverlappingKilled(t *testing.T) {
	requireSoffice(t)
	const n = 8
	in, out, db := convertFixture(t, n)
	tmp := t.TempDir()
	a := startConvert(t, tmp, "--instances", "1", "--db", db, "-o", out, in)
	a.waitConverted(t, 1)
	b := startConvert(t, tmp, "--instances", "1", "--db", db, "-o", out, in)
	// b has planned when it prints its first line; a holds a file then.
	deadline := time.Now().Add(3 * time.Minute)
	for {
		b.mu.Lock()
		started := len(b.files) > 0
		b.mu.Unlock()
		if started || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	a.cmd.Process.Signal(syscall.SIGKILL)
	a.wait(t)
	b.wait(t)
	if code := b.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("the survivor exited %d", code)
	}
	checkOutputs(t, out, n)
}
