package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"calq/internal/pgtest"
)

// waitSQL polls the database until query's one text value is want.
func waitSQL(t *testing.T, url, want, query string, args ...any) {
	t.Helper()
	c := pgConn(t, url)
	var got []string
	for range 1200 {
		if got = pgStrings(t, c, query, args...); len(got) == 1 && got[0] == want {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s: %v, want %s", query, got, want)
}

// exitStatus runs cmd and returns its combined output and exit status.
func exitStatus(t *testing.T, cmd *exec.Cmd) (string, int) {
	t.Helper()
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &ee):
		return string(out), ee.ExitCode()
	}
	t.Fatalf("%v: %v", cmd.Args, err)
	return "", 0
}

// TestSchedRunRerun: the submitter of calq sched run -j 0, interrupted
// while the workers run its batch, leaves the jobs to them; the same
// command again, once they have ended, prints every output and runs
// nothing again; --force runs the lines again, as a new batch.
func TestSchedRunRerun(t *testing.T) {
	srv := pgtest.Start(t)
	dir := t.TempDir()
	const n = 4
	gate := filepath.Join(dir, "gate")
	jobs := pausedJobs(t, dir, n, fmt.Sprintf("while [ ! -e %s ]; do sleep 0.05; done", gate))
	worker := startWorker(t, srv.URL, "--kinds", "shell", "-j", "4")
	sub, out := submit(t, srv.URL, jobs)
	waitLines(t, filepath.Join(dir, "started"), n)
	sub.Process.Signal(syscall.SIGINT)
	if err := sub.Wait(); err == nil || sub.ProcessState.ExitCode() != 130 {
		t.Fatalf("interrupted submitter: %v, want exit 130\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "run the same command again") {
		t.Errorf("the interrupted submitter does not say how to collect:\n%s", out.String())
	}
	os.WriteFile(gate, nil, 0o644)
	waitSQL(t, srv.URL, fmt.Sprint(n), `SELECT count(*)::text FROM jobs WHERE state = 'done'`)
	// Collecting needs no worker.
	worker.Process.Signal(syscall.SIGTERM)
	worker.Wait()

	again := calqCmd(t, "sched", "run", "--db", srv.URL, "-j", "0", "--quiet", "--json", jobs)
	got, code := exitStatus(t, again)
	if code != 0 || strings.Count(got, `"event":"done"`) != n ||
		!strings.Contains(got, fmt.Sprintf(`"submitted":%d,"done":%d`, n, n)) {
		t.Errorf("the same command again: exit %d, want 0 with %d jobs done:\n%s", code, n, got)
	}
	if c := counts(t, filepath.Join(dir, "started")); len(c) != n || slices.Max(mapValues(c)) != 1 {
		t.Errorf("runs by line after the re-run: %v, want each once", c)
	}
	// Running again does: none is live.
	force := calqCmd(t, "sched", "run", "--db", srv.URL, "-j", "0", "--quiet", "--force", jobs)
	if got, code := exitStatus(t, force); code != 1 || !strings.Contains(got, "no live calq worker runs shell") {
		t.Errorf("--force without a live worker: exit %d, want 1\n%s", code, got)
	}
	startWorker(t, srv.URL, "--kinds", "shell", "-j", "4")
	force = calqCmd(t, "sched", "run", "--db", srv.URL, "-j", "0", "--quiet", "--force", jobs)
	if got, code := exitStatus(t, force); code != 0 {
		t.Fatalf("--force: exit %d\n%s", code, got)
	}
	if c := counts(t, filepath.Join(dir, "started")); len(c) != n || slices.Min(mapValues(c)) != 2 {
		t.Errorf("runs by line after --force: %v, want each twice", c)
	}
}

func mapValues(m map[string]int) []int {
	var vs []int
	for _, v := range m {
		vs = append(vs, v)
	}
	return vs
}

// TestNoLiveWorker: a submitter with -j 0 whose jobs no live worker
// takes (no worker, another kind, a share it does not mount) says so at
// once, exits 1 and submits nothing.
func TestNoLiveWorker(t *testing.T) {
	srv := pgtest.Start(t)
	tmp := t.TempDir()
	jobsFile := filepath.Join(tmp, "jobs")
	os.WriteFile(jobsFile, []byte("echo hi\n"), 0o644)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.png"), mustRead(t, filepath.Join(repoTestdata, "convert", "samples", "testPNG.png")), 0o644)
	convert := func(args ...string) *exec.Cmd {
		cmd := calqCmd(t, append([]string{"convert", "-j", "0", "--db", srv.URL, "-o", filepath.Join(tmp, "out")}, args...)...)
		cmd.Env = append(cmd.Env, convertEnv(tmp)...)
		cmd.Env = append(cmd.Env, "XDG_STATE_HOME="+filepath.Join(tmp, "state"))
		return cmd
	}
	check := func(name string, cmd *exec.Cmd, want ...string) {
		t.Helper()
		got, code := exitStatus(t, cmd)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1\n%s", name, code, got)
		}
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: no %q in:\n%s", name, w, got)
			}
		}
	}
	check("sched run, no worker", calqCmd(t, "sched", "run", "--db", srv.URL, "-j", "0", jobsFile),
		"calq: sched run: run: no live calq worker runs shell: nothing submitted", "calq: hint: start one on a machine: calq worker --db URL --kinds shell")
	startWorker(t, srv.URL, "--kinds", "convert-office", "-j", "1", "--name", "office-only")
	check("sched run, a convert worker", calqCmd(t, "sched", "run", "--db", srv.URL, "-j", "0", jobsFile), "no live calq worker runs shell")
	check("convert of an image, an office worker", convert(root), "no live calq worker runs convert-image")
	other := t.TempDir()
	startWorker(t, srv.URL, "--kinds", "convert", "-j", "1", "--shared-root", other, "--name", "other-share")
	check("convert on a share no worker mounts", convert("--shared-root", root, root),
		"--shared-root "+root+": no live calq worker with the share", "mounted runs convert-image", "--shared-root DIR")
	if n := pgStrings(t, pgConn(t, srv.URL), `SELECT count(*)::text FROM jobs`); n[0] != "0" {
		t.Errorf("%s jobs submitted, want none", n[0])
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConvertSharedRerun: calq convert -j 0, killed once its files are
// queued, and run again after the workers converted them, collects their
// PDFs from the queue: nothing is converted twice. A PDF deleted after it
// was placed is converted again, and --force converts them all again.
// Images and PDFs only: pdfcpu, no LibreOffice.
func TestConvertSharedRerun(t *testing.T) {
	srv := pgtest.Start(t)
	tmp := t.TempDir()
	in := filepath.Join(tmp, "in")
	os.Mkdir(in, 0o755)
	samples := filepath.Join(repoTestdata, "convert", "samples")
	for _, name := range []string{"testPNG.png", "testTIFF_multipage.tif", "pages_3.pdf"} {
		os.WriteFile(filepath.Join(in, name), mustRead(t, filepath.Join(samples, name)), 0o644)
	}
	worker := startWorker(t, srv.URL, "--kinds", "convert", "-j", "2", "--name", "box")
	out := filepath.Join(tmp, "out")
	convert := func(args ...string) *exec.Cmd {
		cmd := calqCmd(t, append([]string{"convert", "-j", "0", "--db", srv.URL, "-o", out, in}, args...)...)
		cmd.Env = append(cmd.Env, convertEnv(tmp)...)
		cmd.Env = append(cmd.Env, "XDG_STATE_HOME="+filepath.Join(tmp, "state"))
		return cmd
	}
	// The worker is paused: the submitter queues the files and is killed
	// before any is converted.
	worker.Process.Signal(syscall.SIGSTOP)
	first := convert()
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	waitSQL(t, srv.URL, "3", `SELECT count(*)::text FROM jobs`)
	first.Process.Kill()
	first.Wait()
	worker.Process.Signal(syscall.SIGCONT)
	waitSQL(t, srv.URL, "3", `SELECT count(*)::text FROM jobs WHERE state = 'done'`)
	if pdfs, _ := filepath.Glob(filepath.Join(out, "*.pdf")); len(pdfs) != 0 {
		t.Fatalf("PDFs placed by a killed submitter: %v", pdfs)
	}
	// Collecting needs no worker; converting again does.
	worker.Process.Signal(syscall.SIGTERM)
	worker.Wait()

	got, code := exitStatus(t, convert())
	if code != 0 || !strings.Contains(got, "3 converted, 0 skipped, 0 failed") {
		t.Fatalf("the same command again: exit %d\n%s", code, got)
	}
	c := pgConn(t, srv.URL)
	if n := pgStrings(t, c, `SELECT count(*)::text FROM attempts`); n[0] != "3" {
		t.Errorf("%s attempts after the re-run, want the first 3 only", n[0])
	}
	kinds := pgStrings(t, c, `SELECT DISTINCT kind || ' ' || ran_on FROM jobs ORDER BY 1`)
	if want := []string{"convert-image box", "convert-pdf box"}; !slices.Equal(kinds, want) {
		t.Errorf("kinds and workers %q, want %q", kinds, want)
	}
	if got, _ := exitStatus(t, convert()); !strings.Contains(got, "0 converted, 3 skipped") {
		t.Errorf("a third run: want all skipped\n%s", got)
	}
	os.Remove(filepath.Join(out, "testPNG.pdf"))
	if got, code := exitStatus(t, convert()); code != 1 || !strings.Contains(got, "no live calq worker runs convert-image") {
		t.Errorf("a PDF to convert again, no worker: exit %d, want 1\n%s", code, got)
	}
	startWorker(t, srv.URL, "--kinds", "convert", "-j", "2", "--name", "box")
	if got, code := exitStatus(t, convert()); code != 0 || !strings.Contains(got, "1 converted, 2 skipped") {
		t.Errorf("after a PDF was deleted: exit %d, want it converted again\n%s", code, got)
	}
	if got, code := exitStatus(t, convert("--force")); code != 0 || !strings.Contains(got, "3 converted, 0 skipped") {
		t.Errorf("--force: exit %d\n%s", code, got)
	}
	if n := pgStrings(t, c, `SELECT count(*)::text FROM attempts WHERE state = 'done'`); n[0] != "7" {
		t.Errorf("%s conversions in all, want 3 + 1 deleted + 3 forced", n[0])
	}
}

// TestWorkerJSON: calq worker's --json lines start with their
// message_type and name durations in seconds; the worker's name is
// stable across its restarts.
func TestWorkerJSON(t *testing.T) {
	srv := pgtest.Start(t)
	w := calqCmd(t, "worker", "--db", srv.URL, "--kinds", "shell", "--json", "--name", "night")
	stdout, err := w.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Process.Signal(syscall.SIGTERM); w.Wait() })
	var line [512]byte
	k, _ := stdout.Read(line[:])
	if ev := string(line[:k]); !strings.HasPrefix(ev, `{"message_type":"worker_event","event":"ready",`) || !strings.Contains(ev, `"key":"night:`) {
		t.Errorf("first event %q: want message_type first, then event ready, keyed by name:pid:tag", ev)
	}
	workerID(t, pgConn(t, srv.URL), w.Process.Pid)
	b, err := calqCmd(t, "worker", "--db", srv.URL, "--status", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	st := strings.TrimSpace(string(b))
	var fields map[string]any
	if err := json.Unmarshal([]byte(st), &fields); err != nil || !strings.HasPrefix(st, `{"message_type":"worker",`) {
		t.Fatalf("status %q (%v): want one line, message_type first", st, err)
	}
	if _, ok := fields["heartbeat_age_seconds"]; !ok || fields["name"] != "night" || fields["heartbeat_age_s"] != nil {
		t.Errorf("status %s: want name night and heartbeat_age_seconds", st)
	}
}
