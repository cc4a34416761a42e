package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"calq/internal/pdfgen"
)

// Issue 33, item 2: no PDF keeps a core, a job slot, the memory or the
// server hostage. A PDF of 100,000 pages in 12 MB, and one of 1 MB whose
// stream inflates to 1 GiB, against every pdfengines route and
// libreoffice/convert.

// pdfRoutes are the routes that do pdfcpu's work, with the fields each
// needs, and how many copies of the file they get.
var pdfRoutes = []struct {
	route  string
	fields map[string]string
	copies int
}{
	{"pdfengines/merge", nil, 2},
	{"pdfengines/split", map[string]string{"splitMode": "intervals", "splitSpan": "1"}, 1},
	{"pdfengines/convert", map[string]string{"pdfa": "PDF/A-2b"}, 1},
	{"pdfengines/metadata/read", nil, 1},
	{"pdfengines/metadata/write", map[string]string{"metadata": `{"Title":"calq"}`}, 1},
	{"pdfengines/encrypt", map[string]string{"userPassword": "user-pw", "ownerPassword": "owner-pw"}, 1},
	{"pdfengines/watermark", map[string]string{"watermarkSource": "text", "watermarkExpression": "calq"}, 1},
	{"pdfengines/stamp", map[string]string{"stampSource": "text", "stampExpression": "calq"}, 1},
	{"pdfengines/rotate", map[string]string{"rotateAngle": "90"}, 1},
	{"pdfengines/flatten", nil, 1},
	{"pdfengines/optimize", nil, 1},
	{"libreoffice/convert", nil, 1},
}

// hostilePDFs returns the two PDFs.
func hostilePDFs(t *testing.T) (pages, bomb []byte) {
	t.Helper()
	var b1, b2 bytes.Buffer
	if err := pdfgen.Pages(&b1, 100000); err != nil {
		t.Fatal(err)
	}
	if err := pdfgen.Inflating(&b2, 1<<30); err != nil {
		t.Fatal(err)
	}
	return b1.Bytes(), b2.Bytes()
}

// pdfForm is a multipart body of copies of one file and fields.
func pdfForm(t *testing.T, name string, content []byte, copies int, fields map[string]string) (*bytes.Buffer, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	for i := range copies {
		w, _ := mw.CreateFormFile("files", strings.Replace(name, ".pdf", strconv.Itoa(i)+".pdf", 1))
		w.Write(content)
	}
	mw.Close()
	return &b, mw.FormDataContentType()
}

// procStatus reads one field of /proc/PID/status, in bytes for kB
// fields; 0 when the process or field is gone.
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// resetPeak makes pid's VmHWM what it holds now.
func resetPeak(pid int) { os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) }

// pdfHelpers are the pids of parent's pdf helpers.
func pdfHelpers(parent int) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(b), "(pdf helper)") {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if procStatus(pid, "PPid")>>10 == int64(parent) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// helperPeaks reads the peak memory of parent's pdf helpers every 20 ms
// until stop, which returns the highest seen. A helper killed between
// two reads takes its last 20 ms with it.
func helperPeaks(parent int) (stop func() int64) {
	var peak int64
	var mu sync.Mutex
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			for _, pid := range pdfHelpers(parent) {
				mu.Lock()
				peak = max(peak, procStatus(pid, "VmHWM"))
				mu.Unlock()
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 {
		close(done)
		<-finished
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// serveBound is the documented bound of calq serve's own memory while
// pdfcpu works on any PDF (README, calq serve): its helpers' memory is
// theirs, bounded by --pdf-memory-limit.
const serveBound = 256 << 20

// TestServePDFIntake: with the default page limit, and the inflated-size
// limit lowered to 64 MiB (the default, 512 MiB, is the same code with 8
// times the inflating: minutes of a race-built calq serve on a loaded
// machine for the 24 requests), both PDFs are refused at upload, with a
// 413 naming the file and the limit, on every route; calq serve's memory
// stays bounded. Before, each was accepted and worked on
// in calq serve's own process (minutes of a core, gigabytes).
func TestServePDFIntake(t *testing.T) {
	pages, bomb := hostilePDFs(t)
	s := startServe(t, t.TempDir(), "--max-pdf-inflated", "64MiB", "--request-timeout", "5m")
	pid := s.cmd.Process.Pid
	for _, r := range pdfRoutes {
		for _, f := range []struct {
			name    string
			content []byte
			want    string
		}{
			{"pages.pdf", pages, "is refused: the PDF has 100000 pages, over the limit of 10000"},
			{"bomb.pdf", bomb, "is refused: the PDF's streams inflate to more than the limit of 64 MiB"},
		} {
			resetPeak(pid)
			b, ct := pdfForm(t, f.name, f.content, r.copies, r.fields)
			status, body, _ := request(t, http.MethodPost, s.URL+"/forms/"+r.route, "", b, ct)
			rss := procStatus(pid, "VmHWM")
			t.Logf("%s, %s: %d, calq serve's peak %d MiB", r.route, f.name, status, rss>>20)
			if status != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), f.want) {
				t.Errorf("%s, %s: %d %s; want 413 %q", r.route, f.name, status, body, f.want)
			}
			if rss > serveBound {
				t.Errorf("%s, %s: calq serve's peak %d MiB, over %d MiB", r.route, f.name, rss>>20, serveBound>>20)
			}
		}
	}
}

// TestServePDFWork: with --max-pdf-pages raised to 100000, the work on
// the pages starts on every route and stops at --file-timeout (3s), with
// the reason, in time; calq serve's own memory stays bounded. Before,
// rotating them ran for hours whatever --file-timeout, and converting
// them took calq serve to 3.3 GiB.
func TestServePDFWork(t *testing.T) {
	pages, _ := hostilePDFs(t)
	s := startServe(t, t.TempDir(), "--file-timeout", "3s", "--max-pdf-pages", "100000", "--request-timeout", "5m")
	pid := s.cmd.Process.Pid
	for _, r := range pdfRoutes {
		want, status := "took longer than the file timeout of 3s", http.StatusServiceUnavailable
		switch r.route {
		case "pdfengines/merge": // two files
			want = "took longer than the file timeout of 6s"
		case "libreoffice/convert":
			want = "pages0.pdf: converting it took longer than the limit of 3 seconds"
		case "pdfengines/convert": // LibreOffice's own timeout
			want = "pages0.pdf: converting it took too long, so it was stopped"
		}
		t.Run(r.route, func(t *testing.T) {
			checkStopped(t, s, r.route, "pages.pdf", pages, r.copies, r.fields, status, want)
		})
	}
	if left := pdfHelpers(pid); len(left) > 2 {
		t.Errorf("%d pdf helpers left, want at most one per core (warm)", len(left))
	}
}

// checkStopped posts the file to route on s and expects the status and
// reason within a minute, calq serve's memory under serveBound.
func checkStopped(t *testing.T, s *serveProc, route, name string, content []byte, copies int, fields map[string]string, status int, want string) {
	t.Helper()
	pid := s.cmd.Process.Pid
	resetPeak(pid)
	peaks := helperPeaks(pid)
	b, ct := pdfForm(t, name, content, copies, fields)
	begin := time.Now()
	got, body, _ := request(t, http.MethodPost, s.URL+"/forms/"+route, "", b, ct)
	took := time.Since(begin)
	helper := peaks()
	rss := procStatus(pid, "VmHWM")
	t.Logf("%s, %s: %d after %v; peak RSS: calq serve %d MiB, pdf helper %d MiB", route, name, got, took.Round(100*time.Millisecond), rss>>20, helper>>20)
	if got != status || !strings.Contains(string(body), want) {
		t.Errorf("%s, %s: %d %s; want %d %q", route, name, got, body, status, want)
	}
	for _, jargon := range []string{"post-process", "pass through", "helper"} {
		if strings.Contains(string(body), jargon) && got != http.StatusBadRequest {
			t.Errorf("%s, %s: the reply %q says %q, calq's own term", route, name, body, jargon)
		}
	}
	if took > 3*time.Minute { // a bound for a loaded machine: "stopped", not "fast"
		t.Errorf("%s, %s: the reply took %v", route, name, took)
	}
	if rss > serveBound {
		t.Errorf("%s, %s: calq serve's peak %d MiB, over %d MiB", route, name, rss>>20, serveBound>>20)
	}
}

// postJob submits the file as a job on route and waits until it runs.
func postJob(t *testing.T, s *serveProc, route, name string, content []byte, fields map[string]string) string {
	t.Helper()
	b, ct := pdfForm(t, name, content, 1, fields)
	status, body, _ := request(t, http.MethodPost, s.URL+"/jobs?route="+route, "", b, ct)
	var j jobReply
	if status != 202 || json.Unmarshal(body, &j) != nil {
		t.Fatalf("POST /jobs: %d %s", status, body)
	}
	waitRunning(t, s, j.ID)
	return j.ID
}

// waitRunning waits until job id runs, and its pdf helper works.
func waitRunning(t *testing.T, s *serveProc, id string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		_, body, _ := request(t, http.MethodGet, s.URL+"/jobs/"+id, "", nil, "")
		var j jobReply
		json.Unmarshal(body, &j)
		if j.State == "running" && len(pdfHelpers(s.cmd.Process.Pid)) > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s not running after 2 minutes: %s", id, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestServePDFStop: with a --file-timeout of 10 minutes, and the limits
// raised, watermarking the stream of 1 GiB stops at --pdf-memory-limit
// (the default, 1 GiB), with the reason; while pdfcpu rotates the
// 100,000 pages, DELETE of the job answers at once and ends it; then
// SIGTERM stops calq serve within --grace while another such job runs,
// the job queued for the next start, and no helper outlives the server.
// Before, the stream took calq serve to 2.5 GiB, DELETE waited for
// pdfcpu (hours), and SIGTERM did not stop the server in 121 s.
func TestServePDFStop(t *testing.T) {
	pages, bomb := hostilePDFs(t)
	dir := t.TempDir()
	args := []string{"--file-timeout", "10m", "--max-pdf-pages", "100000", "--max-pdf-inflated", "2GiB", "--grace", "2s",
		"--request-timeout", "5m"}
	s := startServe(t, dir, args...)
	wm := map[string]string{"watermarkSource": "text", "watermarkExpression": "calq"}
	checkStopped(t, s, "pdfengines/watermark", "bomb.pdf", bomb, 1, wm, http.StatusBadRequest,
		"needs more than 1024 MiB of memory to process")
	rotate := map[string]string{"rotateAngle": "90"}
	id := postJob(t, s, "pdfengines/rotate", "pages.pdf", pages, rotate)
	begin := time.Now()
	status, body, _ := request(t, http.MethodDelete, s.URL+"/jobs/"+id, "", nil, "")
	took := time.Since(begin)
	t.Logf("DELETE of the running job: %d after %v", status, took.Round(time.Millisecond))
	if status != 204 || took > 10*time.Second {
		t.Errorf("DELETE of the running job: %d %s after %v; want 204 at once", status, body, took)
	}
	if j := waitJob(t, s.URL, "", id); j.State != "cancelled" {
		t.Errorf("the job after DELETE: %s %s", j.State, j.Error)
	}

	id = postJob(t, s, "pdfengines/rotate", "pages.pdf", pages, rotate)
	helpers := pdfHelpers(s.cmd.Process.Pid)
	begin = time.Now()
	s.stop(t)
	took = time.Since(begin)
	t.Logf("SIGTERM stopped calq serve in %v", took.Round(time.Millisecond))
	if took > 20*time.Second {
		t.Errorf("SIGTERM took %v to stop calq serve with --grace 2s", took)
	}
	waitHelpersGone(t, helpers)
	s = startServe(t, dir, "--file-timeout", "3s", "--max-pdf-pages", "100000")
	if j := waitJob(t, s.URL, "", id); j.State != "failed" || !strings.Contains(j.Error, "took longer than the file timeout of 3s") {
		t.Errorf("the job stopped by SIGTERM, after the restart: %s %q; want it run again and timed out", j.State, j.Error)
	}
}

// TestServePDFCrash: a job running when calq serve is killed (SIGKILL)
// runs again at the next start; killed again while it runs, it ends
// failed at the start after, with the reason, instead of running again;
// no pdf helper outlives a killed server. Before, it was resumed at
// every start, for ever.
func TestServePDFCrash(t *testing.T) {
	pages, _ := hostilePDFs(t)
	dir := t.TempDir()
	args := []string{"--file-timeout", "10m", "--max-pdf-pages", "100000"}
	s := startServe(t, dir, args...)
	id := postJob(t, s, "pdfengines/rotate", "pages.pdf", pages, map[string]string{"rotateAngle": "90"})
	for crash := 1; crash <= 2; crash++ {
		helpers := pdfHelpers(s.cmd.Process.Pid)
		s.kill()
		waitHelpersGone(t, helpers)
		s = startServe(t, dir, args...)
		if crash == 1 {
			waitRunning(t, s, id)
		}
	}
	j := waitJob(t, s.URL, "", id)
	if want := "calq serve died 2 times while converting this job"; j.State != "failed" || !strings.Contains(j.Error, want) {
		t.Errorf("the job after two crashes: %s %q; want failed %q", j.State, j.Error, want)
	}
}

// waitHelpersGone waits up to 10 s for the pids to end.
func waitHelpersGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for syscall.Kill(pid, 0) == nil && procStatus(pid, "VmRSS") > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("pdf helper %d outlives its killed calq serve", pid)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}
