package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"calq/convert/pdf"
	"calq/internal/tooltest"
)

// serveProc is a calq serve process on a loopback port, with its journal,
// data, LibreOffice state and temporary files under one directory.
type serveProc struct {
	cmd    *exec.Cmd
	URL    string
	dir    string
	db     string
	data   string
	tmp    string
	stderr *syncBuffer
	done   chan error
}

// syncBuffer is a bytes.Buffer safe for a process's writes and a test's
// reads at once.
type syncBuffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	more chan struct{} // closed at the next write (await)
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.more != nil {
		close(s.more)
		s.more = nil
	}
	return s.b.Write(p)
}

// await waits until the buffer holds want, at most d; false if it does not.
func (s *syncBuffer) await(want string, d time.Duration) bool {
	deadline := time.After(d)
	for {
		s.mu.Lock()
		if strings.Contains(s.b.String(), want) {
			s.mu.Unlock()
			return true
		}
		if s.more == nil {
			s.more = make(chan struct{})
		}
		more := s.more
		s.mu.Unlock()
		select {
		case <-more:
		case <-deadline:
			return false
		}
	}
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// freePort is a loopback port free now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// serveEnv is the environment of a calq serve whose state is under dir.
func serveEnv(dir string) []string {
	return []string{"TMPDIR=" + filepath.Join(dir, "tmp"), "XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
		"XDG_STATE_HOME=" + filepath.Join(dir, "state"), "XDG_CONFIG_HOME=" + filepath.Join(dir, "config")}
}

// startServe starts calq serve with its state under dir (made when
// missing), and waits until /health says it is up.
func startServe(t *testing.T, dir string, args ...string) *serveProc {
	t.Helper()
	return startServeDB(t, dir, filepath.Join(dir, "calq.db"), args...)
}

// startServeDB is startServe with --db db: a journal file, or the shared
// queue's URL (the journal is then the default one, under dir's state).
func startServeDB(t *testing.T, dir, db string, args ...string) *serveProc {
	t.Helper()
	port := freePort(t)
	return startServeWith(t, dir, db, serveStart{listen: "127.0.0.1:" + strconv.Itoa(port), port: port}, args...)
}

// serveStart is how startServeWith starts calq serve: on --listen
// (none: the environment says where), with extra environment variables,
// and where its health is.
type serveStart struct {
	listen string
	port   int // the port the server listens on
	env    []string
	root   string // the root path; "" none
}

// startServeWith starts calq serve as st says, with its state under dir,
// and waits until its health (under st.root) says it is up.
func startServeWith(t *testing.T, dir, db string, st serveStart, args ...string) *serveProc {
	t.Helper()
	tooltest.Require(t, "soffice")
	for _, d := range []string{"tmp", "cache", "state", "config"} {
		os.MkdirAll(filepath.Join(dir, d), 0o700)
	}
	p := &serveProc{dir: dir, db: db, data: filepath.Join(dir, "data"), tmp: filepath.Join(dir, "tmp"),
		stderr: &syncBuffer{}, done: make(chan error, 1)}
	p.URL = "http://127.0.0.1:" + strconv.Itoa(st.port)
	flags := []string{"serve", "--db", p.db, "--data", p.data, "--instances", "2"}
	if st.listen != "" {
		flags = append(flags, "--listen", st.listen)
	}
	p.cmd = calqCmd(t, append(flags, args...)...)
	p.cmd.Env = append(append(p.cmd.Env, serveEnv(dir)...), st.env...)
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() { p.stop(t) })
	health := p.URL + strings.TrimSuffix(st.root, "/") + "/health"
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := http.Get(health)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return p
			}
		}
		select {
		case err := <-p.done:
			p.done <- err
			t.Fatalf("calq serve exited: %v\n%s", err, p.stderr)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("calq serve not up after 2 minutes:\n%s", p.stderr)
		}
	}
}

// stop sends SIGTERM and waits for the process.
func (p *serveProc) stop(t *testing.T) {
	if p.cmd.ProcessState != nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		p.done <- err
	case <-time.After(time.Minute):
		p.cmd.Process.Kill()
		t.Errorf("calq serve did not stop within a minute of SIGTERM")
	}
}

// kill sends SIGKILL and waits for the process.
func (p *serveProc) kill() {
	p.cmd.Process.Kill()
	err := <-p.done
	p.done <- err
}

// form is a multipart body of files (name → content) and fields.
func form(t *testing.T, files [][2]string, fields map[string]string) (*bytes.Buffer, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	for _, f := range files {
		w, _ := mw.CreateFormFile("files", f[0])
		io.WriteString(w, f[1])
	}
	mw.Close()
	return &b, mw.FormDataContentType()
}

// request sends one request and returns its status, body and headers.
func request(t *testing.T, method, url, key string, body io.Reader, ctype string) (int, []byte, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header
}

type jobReply struct {
	ID        string `json:"id"`
	State     string `json:"state"`
	FilesDone int    `json:"files_done"`
	Error     string `json:"error"`
}

func submitJob(t *testing.T, url, key, name, content string) string {
	t.Helper()
	b, ct := form(t, [][2]string{{name, content}}, nil)
	status, body, _ := request(t, http.MethodPost, url+"/jobs", key, b, ct)
	var j jobReply
	if status != 202 || json.Unmarshal(body, &j) != nil || j.ID == "" {
		t.Fatalf("POST /jobs: %d %s", status, body)
	}
	return j.ID
}

func waitJob(t *testing.T, url, key, id string) jobReply {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		status, body, _ := request(t, http.MethodGet, url+"/jobs/"+id+"?wait=30s", key, nil, "")
		var j jobReply
		if status != 200 || json.Unmarshal(body, &j) != nil {
			t.Fatalf("GET /jobs/%s: %d %s", id, status, body)
		}
		if j.State == "done" || j.State == "failed" || j.State == "cancelled" || time.Now().After(deadline) {
			return j
		}
	}
}

// pdfText writes b as a PDF and returns its text.
func pdfText(t *testing.T, b []byte) string {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Fatalf("not a PDF: %.200q", b)
	}
	p := filepath.Join(t.TempDir(), "r.pdf")
	os.WriteFile(p, b, 0o600)
	text, err := pdf.Text(p, "")
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// TestServeCrash: 20 accepted jobs, calq serve SIGKILLed at once, started
// again: 20 results, each of its own document, and no LibreOffice left.
func TestServeCrash(t *testing.T) {
	dir := t.TempDir()
	s := startServe(t, dir)
	ids := make([]string, 20)
	for i := range ids {
		ids[i] = submitJob(t, s.URL, "", fmt.Sprintf("doc%02d.txt", i), fmt.Sprintf("crash test document %02d\n", i))
	}
	s.kill()
	deadline := time.Now().Add(30 * time.Second)
	for left := sofficeUnder(s.tmp); len(left) > 0; left = sofficeUnder(s.tmp) {
		if time.Now().After(deadline) {
			t.Fatalf("LibreOffice left running 30 s after calq serve was killed: %v", left)
		}
		time.Sleep(100 * time.Millisecond)
	}

	s = startServe(t, dir)
	for i, id := range ids {
		j := waitJob(t, s.URL, "", id)
		if j.State != "done" {
			t.Errorf("job %d (%s) after the restart: %s %s", i, id, j.State, j.Error)
			continue
		}
		status, body, _ := request(t, http.MethodGet, s.URL+"/jobs/"+id+"/result", "", nil, "")
		if status != 200 {
			t.Errorf("result of job %d: %d %s", i, status, body)
			continue
		}
		if text := pdfText(t, body); !strings.Contains(text, fmt.Sprintf("crash test document %02d", i)) {
			t.Errorf("job %d's PDF holds %q, not its own document", i, text)
		}
	}
	s.stop(t)
	if left := sofficeUnder(s.tmp); len(left) > 0 {
		t.Errorf("LibreOffice left running after calq serve stopped: %v", left)
	}
	if n := strings.Count(s.stderr.String(), "panic"); n > 0 {
		t.Errorf("calq serve panicked:\n%s", s.stderr)
	}
}

// TestServeLoad: 20 clients send 200 requests on loopback. Every reply
// is a documented status, every 200 a PDF of its own document, and the
// server's memory stays bounded. Two users: the second user's single
// file finishes while the first user's 100 are queued (also in
// internal/serve's TestFairness; here through the whole process).
func TestServeLoad(t *testing.T) {
	s := startServe(t, t.TempDir(), "--max-queued", "150")
	const clients, requests = 20, 200
	statuses := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int)
	go func() {
		for i := range requests {
			next <- i
		}
		close(next)
	}()
	var bad []string
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				want := fmt.Sprintf("load test document %03d", i)
				b, ct := form(t, [][2]string{{fmt.Sprintf("d%03d.txt", i), want + "\n"}}, nil)
				status, body, h := request(t, http.MethodPost, s.URL+"/forms/libreoffice/convert", "", b, ct)
				mu.Lock()
				statuses[status]++
				switch status {
				case 200:
					if !bytes.HasPrefix(body, []byte("%PDF-")) {
						bad = append(bad, fmt.Sprintf("%d: 200 without a PDF", i))
					}
				case 429, 503:
					if h.Get("Retry-After") == "" {
						bad = append(bad, fmt.Sprintf("%d: %d without Retry-After", i, status))
					}
				default:
					bad = append(bad, fmt.Sprintf("%d: status %d %s", i, status, body))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("statuses: %v", statuses)
	for _, b := range bad {
		t.Error(b)
	}
	if statuses[200] == 0 {
		t.Errorf("no request succeeded: %v", statuses)
	}
	rss := peakRSS(t, s.cmd.Process.Pid)
	t.Logf("calq serve's peak RSS: %d MiB", rss>>20)
	if rss > 512<<20 {
		t.Errorf("calq serve's peak RSS %d MiB, want under 512 MiB", rss>>20)
	}
}

// peakRSS is a process's VmHWM in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	return mustProcStatus(t, pid, "VmHWM")
}
