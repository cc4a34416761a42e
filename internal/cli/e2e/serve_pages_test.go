package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/mail"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"calq/internal/smtptest"
)

// pageClient is a browser's side of calq serve's pages: cookies kept,
// redirects not followed, requests marked same-origin as a browser's.
type pageClient struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newPageClient(t *testing.T, base string) *pageClient {
	jar, _ := cookiejar.New(nil)
	return &pageClient{t, base, &http.Client{Jar: jar, Timeout: 2 * time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (p *pageClient) do(method, path string, body io.Reader, ctype string) (int, string, http.Header) {
	p.t.Helper()
	req, err := http.NewRequest(method, p.base+path, body)
	if err != nil {
		p.t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := p.c.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func (p *pageClient) post(path string, v url.Values) (int, string, http.Header) {
	p.t.Helper()
	return p.do(http.MethodPost, path, strings.NewReader(v.Encode()), "application/x-www-form-urlencoded")
}

// waitFinal follows a job's events until it is final.
func (p *pageClient) waitFinal(job string) string {
	p.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, p.base+job+"/events", nil)
	resp, err := p.c.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	var last string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			last = d
		}
	}
	return last
}

// TestServePages: the administrator and a user made by calq users with
// passwords sign in to calq serve's pages; the user adds a contact,
// converts a document, mails the result from the job's page through a
// real SMTP server; the administrator exports the log; the conversion is
// in the journal's history, and no password is in the server's log.
func TestServePages(t *testing.T) {
	smtp := smtptest.Start(t, "")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("[smtp]\nhost = \"127.0.0.1\"\nport = %d\nfrom = \"calq@example.net\"\nstarttls = \"none\"\n", smtp.Port)), 0o600)
	db := filepath.Join(dir, "calq.db")
	pw := filepath.Join(dir, "admin.pw")
	os.WriteFile(pw, []byte("root-password-1\n"), 0o600)
	env := serveEnv(dir)
	calqOut(t, env, "users", "add", "--db", db, "--admin", "--password-file", pw, "root")
	if _, stderr, code := runCalq(t, env, "ann-password-22\n", "users", "add", "--db", db, "--password-file", "-", "ann"); code != 0 {
		t.Fatalf("calq users add ann: %d %s", code, stderr)
	}
	if _, stderr, code := runCalq(t, env, "short\n", "users", "add", "--db", db, "--password-file", "-", "bob"); code == 0 ||
		!strings.Contains(stderr, "password") {
		t.Errorf("a short password: exit %d %s, want refused", code, stderr)
	}
	s := startServe(t, dir, "--config", cfg)

	ann := newPageClient(t, s.URL)
	if status, _, h := ann.post("/login", url.Values{"user": {"ann"}, "password": {"ann-password-22"}}); status != 303 ||
		h.Get("Location") != "/convert" {
		t.Fatalf("ann signs in: %d to %q", status, h.Get("Location"))
	}
	if status, page, _ := ann.post("/contacts", url.Values{"action": {"save"}, "name": {"boss"}, "address": {"boss@example.com"}}); status != 200 ||
		!strings.Contains(page, "boss@example.com") {
		t.Fatalf("add a contact: %d", status)
	}
	b, ct := form(t, [][2]string{{"report.txt", "quarterly report\n"}}, nil)
	status, _, h := ann.do(http.MethodPost, "/convert", b, ct)
	job := h.Get("Location")
	if status != 303 || !strings.HasPrefix(job, "/job/") {
		t.Fatalf("upload: %d to %q", status, job)
	}
	if last := ann.waitFinal(job); !strings.Contains(last, `"state":"done"`) {
		t.Fatalf("job: %s", last)
	}
	if status, _, h := ann.post(job+"/mail", url.Values{"to": {"boss"}}); status != 303 || !strings.Contains(h.Get("Location"), "mailed") {
		t.Fatalf("mail from the job's page: %d", status)
	}
	raws, envs := smtp.Received(t)
	if len(raws) != 1 || strings.Join(envs[0].RcptTos, ",") != "boss@example.com" || !strings.Contains(string(raws[0]), "report.pdf") {
		t.Errorf("mail: %d messages, envelopes %+v", len(raws), envs)
	}
	if status, page, _ := ann.post(job+"/mail", url.Values{"to": {"nobody"}}); status != 400 || !strings.Contains(page, "nobody") {
		t.Errorf("mail to an unknown contact: %d, want 400 naming it", status)
	}
	mailedName(t, ann, smtp)

	root := newPageClient(t, s.URL)
	if status, _, _ := root.post("/login", url.Values{"user": {"root"}, "password": {"root-password-1"}}); status != 303 {
		t.Fatalf("root signs in: %d", status)
	}
	status, csv, h := root.do(http.MethodGet, "/admin/log?user=ann&format=csv", nil, "")
	if status != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/csv") || !strings.Contains(csv, "report.txt") ||
		!strings.Contains(csv, "ann") {
		t.Errorf("log as CSV: %d %s\n%s", status, h.Get("Content-Type"), csv)
	}
	if status, jsonl, _ := root.do(http.MethodGet, "/admin/log?format=jsonl&q=report", nil, ""); status != 200 ||
		!strings.Contains(jsonl, `"message_type":"job"`) || !strings.Contains(jsonl, "report.txt") {
		t.Errorf("log as JSON Lines: %d\n%s", status, jsonl)
	}
	// The conversion is in the journal's history, as calq convert's are.
	s.stop(t)
	id := strings.TrimPrefix(job, "/job/")
	if out := calqOut(t, env, "history", "--db", db, "--label", "serve-"+id); !strings.Contains(out, "convert-office") ||
		!strings.Contains(out, "jobs/"+id[:5]) || !strings.Contains(out, "done") {
		t.Errorf("calq history --label serve- does not list the conversion:\n%s", out)
	}
	for _, secret := range []string{"ann-password-22", "root-password-1"} {
		if strings.Contains(s.stderr.String(), secret) {
			t.Errorf("the server's log holds a password")
		}
		if b, _ := os.ReadFile(db); strings.Contains(string(b), secret) {
			t.Errorf("the journal holds a password in clear")
		}
	}
}

// mailedName: a job of several PDFs mailed from its page reaches people
// under its first file's name and the day, in the attachment's name and
// the subject, never under the job's id.
func mailedName(t *testing.T, ann *pageClient, smtp *smtptest.Server) {
	t.Helper()
	b, ct := form(t, [][2]string{{"a-report.txt", "quarterly report\n"}, {"b-annex.txt", "figures\n"}}, nil)
	_, _, h := ann.do(http.MethodPost, "/convert", b, ct)
	job := h.Get("Location")
	if last := ann.waitFinal(job); !strings.Contains(last, `"state":"done"`) {
		t.Fatalf("job of two files: %s", last)
	}
	before, _ := smtp.Received(t)
	if status, _, _ := ann.post(job+"/mail", url.Values{"to": {"boss"}}); status != 303 {
		t.Fatalf("mail a job of two files: %d", status)
	}
	raws, _ := smtp.Received(t)
	if len(raws) != len(before)+1 {
		t.Fatalf("%d mails, want %d", len(raws), len(before)+1)
	}
	raw := raws[len(raws)-1]
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	subject, _ := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	var names []string
	_, params, _ := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for p, err := mr.NextPart(); err == nil; p, err = mr.NextPart() {
		if p.FileName() != "" {
			names = append(names, p.FileName())
		}
	}
	want := regexp.MustCompile(`^a-report and 1 more \d{4}-\d\d-\d\d\.zip$`)
	if len(names) != 1 || !want.MatchString(names[0]) || !strings.Contains(subject, names[0]) ||
		bytes.Contains(raw, []byte(strings.TrimPrefix(job, "/job/"))) {
		t.Errorf("mail of a job of two files: subject %q, attachments %q; want them named %v, never the job's id", subject, names, want)
	}
}
