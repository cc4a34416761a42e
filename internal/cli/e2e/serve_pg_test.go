package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"calq/internal/pgtest"
)

// TestServePG: calq serve --db postgres:// converts through the shared
// queue, which it serves beside a calq worker. Six synchronous requests
// and six jobs each get their own document's PDF; calq history on the
// database shows the jobs under their serve-ID labels, converted by the
// worker and by the server. A second calq serve on the same database
// converts a job sent to it, and knows nothing of the first one's jobs.
func TestServePG(t *testing.T) {
	srv := pgtest.Start(t)
	a := startServeDB(t, t.TempDir(), srv.URL, "--instances", "1", "--name", "serve-a", "--request-timeout", "2m")
	startWorker(t, srv.URL, "--kinds", "convert", "-j", "2", "--instances", "1", "--name", "ext-worker")
	if !strings.Contains(a.stderr.String(), "converting through the shared queue") {
		t.Errorf("calq serve does not say it uses the shared queue:\n%s", a.stderr)
	}

	const n = 6
	text := func(kind string, i int) string { return fmt.Sprintf("shared serve %s document %02d", kind, i) }
	var wg sync.WaitGroup
	errs := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = convertOnce(t, a.URL, fmt.Sprintf("sync%02d.txt", i), text("sync", i))
		}()
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = submitJob(t, a.URL, "", fmt.Sprintf("job%02d.txt", i), text("job", i)+"\n")
	}
	wg.Wait()
	for i, e := range errs {
		if e != "" {
			t.Errorf("synchronous request %d: %s", i, e)
		}
	}
	for i, id := range ids {
		if e := jobResult(t, a.URL, id, text("job", i)); e != "" {
			t.Errorf("job %d (%s): %s", i, id, e)
		}
	}

	// Each accepted request is a batch of its own, labelled with its
	// job's id; the worker and the server both converted some.
	ranOn := map[string]int{}
	labels := map[string]bool{}
	for _, r := range sharedHistory(t, srv.URL) {
		if r.State != "done" || !strings.HasPrefix(r.Label, "serve-") {
			t.Errorf("shared job %s: state %s, label %q; want done, serve-ID", r.Key, r.State, r.Label)
		}
		ranOn[r.RanOn]++
		labels[r.Label] = true
	}
	t.Logf("conversions by worker: %v", ranOn)
	if ranOn["serve-a"] == 0 || ranOn["ext-worker"] == 0 || ranOn["serve-a"]+ranOn["ext-worker"] != 2*n {
		t.Errorf("conversions by worker %v, want %d in all, some by serve-a and some by ext-worker", ranOn, 2*n)
	}
	for _, id := range ids {
		if !labels["serve-"+id] {
			t.Errorf("no shared job labelled serve-%s in calq history", id)
		}
	}

	b := startServeDB(t, t.TempDir(), srv.URL, "--instances", "1", "--name", "serve-b", "--request-timeout", "2m")
	id := submitJob(t, b.URL, "", "second.txt", "second server's document\n")
	if e := jobResult(t, b.URL, id, "second server's document"); e != "" {
		t.Errorf("job on the second server: %s", e)
	}
	// Job records stay with the server that accepted the request.
	if status, body, _ := request(t, http.MethodGet, b.URL+"/jobs/"+ids[0], "", nil, ""); status != http.StatusNotFound {
		t.Errorf("the first server's job on the second: %d %s, want 404", status, body)
	}
}

// convertOnce sends one document to POST /forms/libreoffice/convert and
// says what is wrong with the reply, "" when it is want's PDF.
func convertOnce(t *testing.T, url, name, want string) string {
	body, ct := form(t, [][2]string{{name, want + "\n"}}, nil)
	status, reply, _ := request(t, http.MethodPost, url+"/forms/libreoffice/convert", "", body, ct)
	if status != http.StatusOK || !bytes.HasPrefix(reply, []byte("%PDF-")) {
		return fmt.Sprintf("status %d: %.200q", status, reply)
	}
	if got := pdfText(t, reply); !strings.Contains(got, want) {
		return fmt.Sprintf("the PDF holds %q, not its own document", got)
	}
	return ""
}

// jobResult waits for job id and says what is wrong with its result, ""
// when it is want's PDF.
func jobResult(t *testing.T, url, id, want string) string {
	j := waitJob(t, url, "", id)
	if j.State != "done" {
		return fmt.Sprintf("%s: %s", j.State, j.Error)
	}
	status, body, _ := request(t, http.MethodGet, url+"/jobs/"+id+"/result", "", nil, "")
	if status != http.StatusOK {
		return fmt.Sprintf("result: %d %s", status, body)
	}
	if got := pdfText(t, body); !strings.Contains(got, want) {
		return fmt.Sprintf("the PDF holds %q, not its own document", got)
	}
	return ""
}

// sharedRecord is what the test reads of calq history --json's jobs.
type sharedRecord struct {
	MessageType string `json:"message_type"`
	Key         string `json:"key"`
	Label       string `json:"label"`
	State       string `json:"state"`
	RanOn       string `json:"ran_on"`
}

// sharedHistory is calq history --json of the shared queue at url: all
// its jobs.
func sharedHistory(t *testing.T, url string) []sharedRecord {
	t.Helper()
	cmd := calqCmd(t, "history", "--db", url, "--json", "--limit", "0")
	cmd.Env = append(cmd.Env, convertEnv(filepath.Join(t.TempDir()))...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("calq history: %v\n%s", err, out)
	}
	var recs []sharedRecord
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r sharedRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.MessageType != "job" {
			t.Fatalf("calq history line %q: %v", l, err)
		}
		recs = append(recs, r)
	}
	return recs
}

// TestServePGOutage: calq serve waits for a database that is down at its
// start, and for one that goes away under an accepted job, with one line
// when it is lost and one when it is back each time; the jobs convert.
func TestServePGOutage(t *testing.T) {
	srv := pgtest.Start(t)
	srv.Stop()
	// Long enough for calq serve to start LibreOffice and find the
	// database down, also on a busy machine (3 s was not, once).
	restart := time.AfterFunc(20*time.Second, srv.Start)
	defer restart.Stop()
	s := startServeDB(t, t.TempDir(), srv.URL, "--instances", "1")
	id := submitJob(t, s.URL, "", "first.txt", "before the outage\n")
	if e := jobResult(t, s.URL, id, "before the outage"); e != "" {
		t.Errorf("job after the database came up: %s", e)
	}

	srv.Stop()
	id = submitJob(t, s.URL, "", "second.txt", "across the outage\n") // the journal is this machine's
	waitLog(t, s, "unreachable, retrying", 2)
	srv.Start()
	if e := jobResult(t, s.URL, id, "across the outage"); e != "" {
		t.Errorf("job across the outage: %s", e)
	}
	waitLog(t, s, "back after", 2)
	if lost := strings.Count(s.stderr.String(), "unreachable, retrying"); lost != 2 {
		t.Errorf("%d lines saying the database is lost, want 2 (one per outage):\n%s", lost, s.stderr)
	}
}

// waitLog waits until calq serve's stderr holds n lines with text.
func waitLog(t *testing.T, s *serveProc, text string, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for strings.Count(s.stderr.String(), text) < n {
		if time.Now().After(deadline) {
			t.Fatalf("calq serve did not say %q %d times in a minute:\n%s", text, n, s.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestServePGCrash: calq serve hands six jobs to the shared queue and is
// frozen, then killed, while a calq worker converts them. Started again,
// it finishes each job with its own document's PDF from the same batch:
// no file is submitted again, and each was converted once (one attempt
// recorded done), the frozen server's claims run again elsewhere after
// their lease.
func TestServePGCrash(t *testing.T) {
	srv := pgtest.Start(t)
	dir := t.TempDir()
	// Short leases: the frozen server's claims go back to the queue in
	// seconds, not the default 30.
	a := startServeDB(t, dir, srv.URL, "--instances", "1", "--lease", "3s")
	startWorker(t, srv.URL, "--kinds", "convert", "-j", "2", "--instances", "1", "--lease", "3s")
	c := pgConn(t, srv.URL)
	const n = 6
	ids := make([]string, n)
	for i := range ids {
		ids[i] = submitJob(t, a.URL, "", fmt.Sprintf("crash%02d.txt", i), fmt.Sprintf("shared crash document %02d\n", i))
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if got := pgStrings(t, c, `SELECT count(*)::text FROM jobs`); got[0] == fmt.Sprint(n) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("calq serve did not submit its %d files in a minute:\n%s", n, a.stderr)
		}
	}
	a.cmd.Process.Signal(syscall.SIGSTOP)
	a.kill()

	a = startServeDB(t, dir, srv.URL, "--instances", "1", "--lease", "3s")
	for i, id := range ids {
		if e := jobResult(t, a.URL, id, fmt.Sprintf("shared crash document %02d", i)); e != "" {
			t.Errorf("job %d (%s) after the restart: %s", i, id, e)
		}
	}
	checkRecordedOnce(t, c, n)
	// --log-format auto logs JSON here (stderr is no terminal), text on one.
	m := regexp.MustCompile(`"jobs resumed"(?: count=|,"count":)(\d+)`).FindStringSubmatch(a.stderr.String())
	if m == nil || m[1] == "0" {
		t.Errorf("the restarted server resumed no job, the test proves nothing:\n%s", a.stderr)
	} else {
		t.Logf("the restarted server resumed %s jobs", m[1])
	}
}
