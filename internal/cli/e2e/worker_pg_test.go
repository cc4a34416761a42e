package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"calq/convert/pdf"
	"calq/internal/pgtest"
	"calq/internal/tooltest"
)

// The tests below run calq worker processes against a real PostgreSQL
// server and count executions through files the jobs append to: a job
// that ran twice shows twice.

// startWorker starts calq worker on url, with its temporary files and
// LibreOffice profiles in a directory of its own, and waits until it has
// registered (a submitter with -j 0 looks for a live worker first); the
// test's cleanup stops it.
func startWorker(t *testing.T, url string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := startWorkerAsync(t, url, args...)
	workerID(t, pgConn(t, url), cmd.Process.Pid)
	return cmd
}

// startWorkerAsync is startWorker without the wait.
func startWorkerAsync(t *testing.T, url string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := calqCmd(t, append([]string{"worker", "--db", url, "--quiet"}, args...)...)
	cmd.Env = append(cmd.Env, convertEnv(t.TempDir())...)
	var log strings.Builder
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGCONT)
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if t.Failed() {
			t.Logf("worker %d log:\n%s", cmd.Process.Pid, log.String())
		}
	})
	return cmd
}

// submit runs calq sched run -j 0 on url in the background and returns
// its command, whose Wait ends when every job has ended.
func submit(t *testing.T, url, jobs string, args ...string) (*exec.Cmd, *lockedBuilder) {
	t.Helper()
	cmd := calqCmd(t, append([]string{"sched", "run", "--db", url, "-j", "0", "--quiet"}, append(args, jobs)...)...)
	var out lockedBuilder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, &out
}

// lockedBuilder is a strings.Builder that a command writes to while the
// test reads it.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func waitSubmit(t *testing.T, cmd *exec.Cmd, out *lockedBuilder, want string) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil || !strings.Contains(out.String(), want) {
			t.Fatalf("sched run: %v, want %q in:\n%s", err, want, out.String())
		}
	case <-time.After(5 * time.Minute):
		t.Fatalf("sched run did not end in 5 minutes:\n%s", out.String())
	}
}

func pgConn(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// pgStrings runs a query of one text column.
func pgStrings(t *testing.T, c *pgx.Conn, sql string, args ...any) []string {
	t.Helper()
	rows, err := c.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// workerID is the id under which the worker process pid registered.
func workerID(t *testing.T, c *pgx.Conn, pid int) string {
	t.Helper()
	for range 600 {
		// The table may not be there yet: the first worker creates it.
		var id string
		if c.QueryRow(context.Background(), `SELECT id FROM workers WHERE pid = $1 AND stopped IS NULL`, pid).Scan(&id) == nil {
			return id
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("worker %d never registered", pid)
	return ""
}

// checkRecordedOnce checks that every job of the database ended done,
// with exactly one attempt recorded done.
func checkRecordedOnce(t *testing.T, c *pgx.Conn, n int) {
	t.Helper()
	bad := pgStrings(t, c, `SELECT j.key || ': ' || j.state || ', ' || count(a.*) FILTER (WHERE a.state = 'done') || ' done'
		FROM jobs j LEFT JOIN attempts a ON a.job_id = j.id GROUP BY j.id
		HAVING j.state <> 'done' OR count(a.*) FILTER (WHERE a.state = 'done') <> 1`)
	if len(bad) > 0 {
		t.Errorf("%d jobs not recorded done exactly once: %v", len(bad), bad[:min(len(bad), 10)])
	}
	if got := pgStrings(t, c, `SELECT count(*)::text FROM jobs`); got[0] != fmt.Sprint(n) {
		t.Errorf("%s jobs in the database, want %d", got[0], n)
	}
}

// counts counts the lines of a file by value.
func counts(t *testing.T, path string) map[string]int {
	m := map[string]int{}
	for _, l := range lines(t, path) {
		m[l]++
	}
	return m
}

// TestWorkerKilled: three workers share 600 jobs; one is SIGKILLed while
// it holds claimed and running jobs. Every job is recorded done once, and
// only jobs the killed worker held run twice.
func TestWorkerKilled(t *testing.T) {
	srv := pgtest.Start(t)
	dir := t.TempDir()
	const n = 600
	jobs := crashJobs(t, dir, n, "0.05")
	var workers []*exec.Cmd
	for range 3 {
		workers = append(workers, startWorker(t, srv.URL, "--kinds", "shell", "-j", "4", "--lease", "3s"))
	}
	sub, out := submit(t, srv.URL, jobs)
	c := pgConn(t, srv.URL)
	victim := workers[1]
	id := workerID(t, c, victim.Process.Pid)
	waitLines(t, filepath.Join(dir, "done"), n/4)
	// Kill it once it says, in the queue, that it runs a job: within a
	// minute at most, as the other waits (it was 3 s).
	var held []string
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if held = pgStrings(t, c, `SELECT key FROM jobs WHERE worker = $1 AND state = 'running'`, id); len(held) > 0 {
			break
		}
	}
	victim.Process.Kill()
	victim.Wait()
	// Nothing changes a dead worker's jobs before its lease expires.
	held = pgStrings(t, c, `SELECT key FROM jobs WHERE worker = $1 AND state = 'running'`, id)
	if len(held) == 0 {
		t.Fatal("the killed worker held no job: the test proves nothing")
	}
	waitSubmit(t, sub, out, fmt.Sprintf("%d jobs: %d done, 0 failed", n, n))
	checkRecordedOnce(t, c, n)
	heldLines := map[string]bool{}
	for _, k := range held {
		heldLines[k[strings.LastIndex(k, "/")+1:]] = true
	}
	started := counts(t, filepath.Join(dir, "started"))
	var twice []string
	for i := 1; i <= n; i++ {
		k := fmt.Sprint(i)
		switch started[k] {
		case 1:
		case 2:
			twice = append(twice, k)
			if !heldLines[k] {
				t.Errorf("job %s started twice, but the killed worker did not hold it", k)
			}
		default:
			t.Errorf("job %s started %d times", k, started[k])
		}
	}
	t.Logf("the killed worker held %d jobs; %d of them had started and ran again: %v", len(held), len(twice), twice)

	// --status lists the two live workers and the dead one as silent, or
	// stopped: it stopped nothing, so silent once its heartbeat is old.
	st := calqCmd(t, "worker", "--db", srv.URL, "--status", "--json")
	b, err := st.Output()
	if err != nil {
		t.Fatal(err)
	}
	alive := 0
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var w struct {
			MessageType string `json:"message_type"`
			ID          string `json:"id"`
			Alive       bool   `json:"alive"`
		}
		if err := json.Unmarshal([]byte(l), &w); err != nil || w.MessageType != "worker" {
			t.Fatalf("status line %q: %v", l, err)
		}
		if w.Alive {
			alive++
		}
	}
	if alive < 2 {
		t.Errorf("status shows %d live workers, want the 2 that run:\n%s", alive, b)
	}
}

// TestWorkerPaused: a worker SIGSTOPped past its lease loses its jobs to
// another; continued, it kills them rather than finishing them, and
// records nothing.
func TestWorkerPaused(t *testing.T) {
	srv := pgtest.Start(t)
	dir := t.TempDir()
	const n = 2
	jobs := crashJobs(t, dir, n, "20")
	a := startWorker(t, srv.URL, "--kinds", "shell", "-j", "2", "--lease", "2s", "--name", "a")
	c := pgConn(t, srv.URL)
	sub, out := submit(t, srv.URL, jobs)
	waitLines(t, filepath.Join(dir, "started"), n)
	if err := a.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// b takes the jobs over once their lease has run out (and b has been
	// connected for a lease); they start again.
	startWorker(t, srv.URL, "--kinds", "shell", "-j", "2", "--lease", "2s", "--name", "b")
	waitLines(t, filepath.Join(dir, "started"), 2*n)
	// Attempts record the worker's name (--name; the host's by default).
	if got := pgStrings(t, c, `SELECT DISTINCT worker FROM attempts WHERE reason = 'lease expired'`); !slices.Equal(got, []string{"a"}) {
		t.Errorf("requeued attempts belong to %v, want a", got)
	}
	if err := a.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	// a's jobs die now; b's finish after their 20s.
	checkTakenOver(t, c, dir, n, sub, out, "b")
}

// checkTakenOver waits for the n jobs of dir submitted by sub and checks
// that the worker named b alone finished and recorded them, each once: the
// worker that lost them killed them rather than finishing them.
func checkTakenOver(t *testing.T, c *pgx.Conn, dir string, n int, sub *exec.Cmd, out *lockedBuilder, b string) {
	t.Helper()
	waitSubmit(t, sub, out, fmt.Sprintf("%d jobs: %d done", n, n))
	checkRecordedOnce(t, c, n)
	for k, v := range counts(t, filepath.Join(dir, "done")) {
		if v != 1 {
			t.Errorf("job %s finished %d times, want once (by b)", k, v)
		}
	}
	if got := pgStrings(t, c, `SELECT DISTINCT worker FROM attempts WHERE state = 'done'`); !slices.Equal(got, []string{b}) {
		t.Errorf("done attempts recorded by %v, want only %s", got, b)
	}
}

// TestServerOutage: the server stops for twice the lease and comes back.
// No job is recorded twice; jobs repeat only as the README says: those
// running (or ended and not yet recorded) when the outage passed the lease.
func TestServerOutage(t *testing.T) {
	srv := pgtest.Start(t)
	dir := t.TempDir()
	const n = 60
	jobs := crashJobs(t, dir, n, "0.3")
	for range 2 {
		startWorker(t, srv.URL, "--kinds", "shell", "-j", "3", "--lease", "2s")
	}
	sub, out := submit(t, srv.URL, jobs)
	waitLines(t, filepath.Join(dir, "done"), n/4)
	srv.Stop()
	time.Sleep(4 * time.Second)
	srv.Start()
	waitSubmit(t, sub, out, fmt.Sprintf("%d jobs: %d done, 0 failed", n, n))
	c := pgConn(t, srv.URL)
	checkRecordedOnce(t, c, n)
	started := counts(t, filepath.Join(dir, "started"))
	repeated := 0
	for i := 1; i <= n; i++ {
		switch k := fmt.Sprint(i); started[k] {
		case 1:
		case 2:
			repeated++
		default:
			t.Errorf("job %s started %d times, want once, twice at most", k, started[k])
		}
	}
	// At most what the two workers held: 3 running each, and what they
	// had claimed to start next.
	if repeated > 2*(3+3) {
		t.Errorf("%d jobs ran twice, more than the workers held", repeated)
	}
	t.Logf("%d of %d jobs ran twice across the outage", repeated, n)
}

// TestConvertShared: calq convert -j 0 hands the files to two workers and
// writes the same PDFs as a local run, byte for byte once their dates are
// dropped; each worker's LibreOffice started once, whatever the number of
// files it converted.
func TestConvertShared(t *testing.T) {
	tooltest.Require(t, "soffice")
	srv := pgtest.Start(t)
	for range 2 {
		startWorker(t, srv.URL, "--kinds", "convert", "-j", "2", "--instances", "1")
	}
	tmp := t.TempDir()
	samples := filepath.Join(repoTestdata, "convert", "samples")
	remote := calqCmd(t, "convert", "-j", "0", "--db", srv.URL, "-o", filepath.Join(tmp, "remote"), samples)
	remote.Env = append(remote.Env, convertEnv(tmp)...)
	remote.Env = append(remote.Env, "XDG_STATE_HOME="+filepath.Join(tmp, "state"))
	if out, err := remote.CombinedOutput(); err != nil || !strings.Contains(string(out), "10 converted, 0 skipped, 0 failed") {
		t.Fatalf("convert -j 0: %v\n%s", err, out)
	}
	// Two local runs. LibreOffice's PDFs are the same from run to run
	// once undated, and must match byte for byte. pdfcpu writes the
	// objects of the PDFs it makes (from PDF and image inputs) in Go's
	// random map order (pdfcpu issue 1179): those must match one of the
	// local runs byte for byte, or else in pages and text.
	for _, name := range []string{"local", "local2"} {
		local := calqCmd(t, "convert", "--db", filepath.Join(tmp, name+".db"), "-o", filepath.Join(tmp, name), samples)
		local.Env = append(local.Env, convertEnv(tmp)...)
		if out, err := local.CombinedOutput(); err != nil {
			t.Fatalf("convert: %v\n%s", err, out)
		}
	}
	inputs, _ := os.ReadDir(samples)
	if len(inputs) != 10 {
		t.Fatalf("%d samples, want 10", len(inputs))
	}
	read := func(dir, name string) []byte {
		b, err := os.ReadFile(filepath.Join(tmp, dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return undated(b)
	}
	bytewise := 0
	for _, in := range inputs {
		ext := strings.ToLower(filepath.Ext(in.Name()))
		name := strings.TrimSuffix(in.Name(), filepath.Ext(in.Name())) + ".pdf"
		remote := read("remote", name)
		if bytes.Equal(remote, read("local", name)) || bytes.Equal(remote, read("local2", name)) {
			bytewise++
			continue
		}
		if !slices.Contains([]string{".pdf", ".png", ".jpg", ".jpeg", ".tif", ".tiff"}, ext) {
			t.Errorf("%s: the workers' PDF differs from the local one beyond dates", name)
			continue
		}
		l := filepath.Join(tmp, "local", name)
		li, lerr := pdf.Inspect(l, "")
		ri, rerr := pdf.Inspect(filepath.Join(tmp, "remote", name), "")
		lt, _ := pdf.Text(l, "")
		rt, _ := pdf.Text(filepath.Join(tmp, "remote", name), "")
		if lerr != nil || rerr != nil || li.Pages != ri.Pages || lt != rt {
			t.Errorf("%s: the workers' PDF has %d pages (%v), the local one %d (%v), or other text", name, ri.Pages, rerr, li.Pages, lerr)
		}
	}
	t.Logf("%d of %d PDFs compared byte for byte", bytewise, len(inputs))
	// Each worker's instance stayed warm: every office file it converted
	// reports the instance's first start.
	c := pgConn(t, srv.URL)
	rows := pgStrings(t, c, `SELECT a.worker || ' ' || convert_from(a.result, 'UTF8') FROM attempts a WHERE a.state = 'done'`)
	office := map[string]int{}
	for _, r := range rows {
		w, js, _ := strings.Cut(r, " ")
		var res struct {
			Instance string `json:"instance"`
			Starts   int    `json:"starts"`
		}
		if err := json.Unmarshal([]byte(js), &res); err != nil {
			t.Fatalf("result %q: %v", js, err)
		}
		if res.Instance == "" {
			continue // an image or a PDF: pdfcpu
		}
		office[w]++
		if res.Starts != 1 {
			t.Errorf("worker %s: instance %s had started %d times, want 1 (kept warm)", w, res.Instance, res.Starts)
		}
	}
	t.Logf("office files per worker: %v", office)
	if len(office) == 0 {
		t.Error("no office file went through LibreOffice")
	}
}

// undated drops what differs between two conversions of one file: dates
// (PDF and XMP), document IDs and the XMP's instance IDs.
func undated(b []byte) []byte {
	for _, re := range undatedRes {
		b = re.ReplaceAll(b, []byte("X"))
	}
	return b
}

var undatedRes = []*regexp.Regexp{
	regexp.MustCompile(`D:\d{8,14}[^)]*`),
	regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[0-9.:+Z-]*`),
	regexp.MustCompile(`/ID\s*\[[^\]]*\]`),
	regexp.MustCompile(`uuid:[0-9a-fA-F-]+`),
	regexp.MustCompile(`/DocChecksum\s*/[0-9A-F]+`),
}

// TestConvertSharedRoot: with --shared-root the inputs and PDFs stay on
// the share: nothing travels through the database.
func TestConvertSharedRoot(t *testing.T) {
	tooltest.Require(t, "soffice")
	srv := pgtest.Start(t)
	root := t.TempDir()
	in := filepath.Join(root, "in")
	if err := os.CopyFS(in, os.DirFS(filepath.Join(repoTestdata, "convert", "samples"))); err != nil {
		t.Fatal(err)
	}
	startWorker(t, srv.URL, "--kinds", "convert", "-j", "2", "--instances", "1", "--shared-root", root)
	tmp := t.TempDir()
	cmd := calqCmd(t, "convert", "-j", "0", "--db", srv.URL, "--shared-root", root, "-o", filepath.Join(tmp, "out"), in)
	cmd.Env = append(cmd.Env, convertEnv(tmp)...)
	cmd.Env = append(cmd.Env, "XDG_STATE_HOME="+filepath.Join(tmp, "state"))
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "10 converted, 0 skipped, 0 failed") {
		t.Fatalf("convert -j 0 --shared-root: %v\n%s", err, out)
	}
	c := pgConn(t, srv.URL)
	if n := pgStrings(t, c, `SELECT count(*)::text FROM blobs`); n[0] != "0" {
		t.Errorf("%s blobs in the database, want none", n[0])
	}
	if left, _ := os.ReadDir(filepath.Join(root, ".calq-shared")); len(left) != 1 || left[0].Name() != "id" {
		t.Errorf("%v left in the share's work directory, want only its id", left)
	}
}
