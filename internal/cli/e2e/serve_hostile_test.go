package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/api"

	"calq/internal/tooltest"
)

// calqOut runs calq and returns its stdout, failing the test on an error.
func calqOut(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := calqCmd(t, args...)
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("calq %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// serveUser adds a user to the journal at db and returns a key of it.
func serveUser(t *testing.T, dir, db, name string) string {
	t.Helper()
	calqOut(t, serveEnv(dir), "users", "add", "--db", db, name)
	return strings.TrimSpace(calqOut(t, serveEnv(dir), "users", "key", "--db", db, name))
}

// tree lists the files below root, but those below the directories
// skipped.
func tree(t *testing.T, root string, skip ...string) []string {
	t.Helper()
	var files []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && slices.Contains(skip, p) {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	return files
}

// TestServeHostile: each hostile request gets its documented status,
// and nothing is written outside --data (the journal, LibreOffice's own
// state and temporary files aside).
func TestServeHostile(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "calq.db")
	ann := serveUser(t, dir, db, "ann")
	bob := serveUser(t, dir, db, "bob")
	s := startServe(t, dir, "--header-timeout", "2s", "--max-body", "64MiB", "--request-timeout", "5s")
	skip := []string{s.data, s.tmp, filepath.Join(dir, "cache"), filepath.Join(dir, "state")}
	before := tree(t, dir, skip...)

	t.Run("part named ../../etc/passwd", func(t *testing.T) {
		b, ct := form(t, [][2]string{{"../../etc/passwd.txt", "root:x:0:0:not really\n"}}, nil)
		status, body, _ := request(t, http.MethodPost, s.URL+"/forms/libreoffice/convert", ann, b, ct)
		if status != 200 {
			t.Fatalf("status %d %s", status, body)
		}
		if text := pdfText(t, body); !strings.Contains(text, "not really") {
			t.Errorf("converted text %q", text)
		}
	})
	t.Run("declared Content-Length of 10 GB", func(t *testing.T) {
		reply := rawRequest(t, s.URL, "POST /forms/libreoffice/convert HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+ann+
			"\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 10000000000\r\n\r\n", 0)
		if !strings.HasPrefix(reply, "HTTP/1.1 413") {
			t.Errorf("reply %.200q, want 413", reply)
		}
	})
	t.Run("headers one byte a second", func(t *testing.T) {
		start := time.Now()
		reply := rawRequest(t, s.URL, "GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n", time.Second)
		// Not cut, the client writes for 22 s and then waits for a reply
		// until its 30 s deadline; cut, it is done a few seconds after 2 s.
		if took := time.Since(start); took > 20*time.Second || strings.Contains(reply, "200 OK") {
			t.Errorf("a slow client held the connection %v and got %.100q; want it cut after --header-timeout", took, reply)
		}
	})
	t.Run("body one byte a second", func(t *testing.T) {
		start := time.Now()
		head := "POST /forms/libreoffice/convert HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + ann +
			"\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 1000\r\n\r\n"
		c, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write([]byte(head))
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		go func() {
			for range 60 {
				if _, err := c.Write([]byte("-")); err != nil {
					return
				}
				time.Sleep(time.Second)
			}
		}()
		buf := make([]byte, 512)
		n, _ := c.Read(buf)
		// Not cut, the read waits until its 30 s deadline.
		if took := time.Since(start); took > 25*time.Second {
			t.Errorf("a slow body held the request %v (answer %.80q); want it cut after --request-timeout 5s", took, buf[:n])
		}
	})
	t.Run("docx zip bomb", func(t *testing.T) {
		bomb := filepath.Join(t.TempDir(), "bomb.docx")
		zipFile(t, bomb, []string{"[Content_Types].xml", ctTypes, "_rels/.rels", ctRels}, map[string]int64{"word/document.xml": 1 << 30})
		content, _ := os.ReadFile(bomb)
		b, ct := form(t, [][2]string{{"bomb.docx", string(content)}}, nil)
		status, body, _ := request(t, http.MethodPost, s.URL+"/forms/libreoffice/convert", ann, b, ct)
		if status != 400 && status != 503 {
			t.Errorf("zip bomb: %d %.300s, want 400 (or 503 if it ran out of time)", status, body)
		}
	})
	t.Run("wrong key", func(t *testing.T) {
		status, _, h := request(t, http.MethodGet, s.URL+"/jobs", "calq_"+strings.Repeat("x", 43), nil, "")
		if status != 401 || h.Get("Www-Authenticate") == "" {
			t.Errorf("status %d, WWW-Authenticate %q; want 401 with it", status, h.Get("Www-Authenticate"))
		}
	})
	t.Run("another user's job", func(t *testing.T) {
		id := submitJob(t, s.URL, ann, "a.txt", "ann's document\n")
		for _, path := range []string{"/jobs/" + id, "/jobs/" + id + "/result"} {
			if status, body, _ := request(t, http.MethodGet, s.URL+path, bob, nil, ""); status != 404 {
				t.Errorf("GET %s as bob: %d %s, want 404", path, status, body)
			}
		}
		if status, _, _ := request(t, http.MethodDelete, s.URL+"/jobs/"+id, bob, nil, ""); status != 404 {
			t.Errorf("DELETE as bob: %d, want 404", status)
		}
		if j := waitJob(t, s.URL, ann, id); j.State != "done" {
			t.Errorf("ann's job: %s %s", j.State, j.Error)
		}
	})
	t.Run("webhook to 127.0.0.1", func(t *testing.T) {
		b, ct := form(t, [][2]string{{"a.txt", "a\n"}}, nil)
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/forms/libreoffice/convert", b)
		req.Header.Set("Content-Type", ct)
		req.Header.Set("Authorization", "Bearer "+ann)
		req.Header.Set("Gotenberg-Webhook-Url", "http://127.0.0.1:9/result")
		req.Header.Set("Gotenberg-Webhook-Error-Url", "http://127.0.0.1:9/error")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 403 {
			t.Errorf("webhook to loopback without --webhook-allow: %d, want Gotenberg's 403", resp.StatusCode)
		}
	})
	after := tree(t, dir, skip...)
	for _, f := range after {
		if !slices.Contains(before, f) && f != db+"-wal" && f != db+"-shm" {
			t.Errorf("written outside --data: %s", f)
		}
	}
	if _, err := os.Stat("/etc/passwd.pdf"); err == nil {
		t.Error("/etc/passwd.pdf exists")
	}
}

// rawRequest writes head to the server at url, a byte at a time every
// pause when pause > 0, and returns what the server answered before
// closing.
func rawRequest(t *testing.T, url, head string, pause time.Duration) string {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if pause == 0 {
		c.Write([]byte(head))
	} else {
		for i := range len(head) {
			if _, err := c.Write([]byte{head[i]}); err != nil {
				break // the server closed the connection
			}
			time.Sleep(pause)
			if i > 20 {
				break
			}
		}
	}
	var out bytes.Buffer
	r := bufio.NewReader(c)
	line, _ := r.ReadString('\n')
	out.WriteString(line)
	return out.String()
}

// TestServeClients: Gotenberg's own npm clients, unchanged, through calq
// serve: chromiumly converts, merges, writes and reads metadata and reads
// the health; gotenberg-js-client converts (landscape). npm installs
// them into a temporary directory.
func TestServeClients(t *testing.T) {
	tooltest.Require(t, "node")
	tooltest.Require(t, "npm")
	dir := t.TempDir()
	db := filepath.Join(dir, "calq.db")
	key := serveUser(t, dir, db, "node")
	s := startServe(t, dir)

	npmDir := t.TempDir()
	install := exec.Command("npm", "install", "--no-audit", "--no-fund", "--silent", "--prefix", npmDir,
		"chromiumly@6.0.0", "gotenberg-js-client@0.7.4")
	install.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(npmDir, ".npm-cache"))
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install: %v\n%s", err, out)
	}
	script, err := filepath.Abs("../../serve/testdata/clients.js")
	if err != nil {
		t.Fatal(err)
	}
	docx, _ := filepath.Abs(filepath.Join(repoTestdata, "convert", "sample_3.docx"))
	xlsx, _ := filepath.Abs(filepath.Join(repoTestdata, "convert", "simple.xlsx"))
	out := t.TempDir()
	node := exec.Command("node", script, s.URL, key, docx, xlsx, out)
	node.Dir = npmDir
	node.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(npmDir, "node_modules"))
	got, err := node.CombinedOutput()
	t.Logf("node:\n%s", got)
	if err != nil {
		t.Fatalf("node clients.js: %v", err)
	}
	count := func(name string) int {
		n, err := api.PageCountFile(filepath.Join(out, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		return n
	}
	one := count("chromiumly-convert.pdf")
	if merged := count("chromiumly-convert-merge.pdf"); merged <= one {
		t.Errorf("convert with merge of docx and xlsx: %d pages, the docx alone %d", merged, one)
	}
	if twice := count("chromiumly-merge.pdf"); twice != 2*one {
		t.Errorf("merge of a PDF with itself: %d pages, want %d", twice, 2*one)
	}
	var meta map[string]map[string]any // ExifTool's JSON: numbers are numbers
	b, _ := os.ReadFile(filepath.Join(out, "chromiumly-metadata.json"))
	if json.Unmarshal(b, &meta) != nil || len(meta) != 1 {
		t.Fatalf("metadata read: %s", b)
	}
	for _, m := range meta {
		if m["Author"] != "Chromiumly Author" || m["Title"] != "Written by chromiumly" {
			t.Errorf("metadata read back: %v", m)
		}
	}
	dims, err := api.PageDimsFile(filepath.Join(out, "gjc-office-landscape.pdf"))
	if err != nil || len(dims) == 0 || dims[0].Width <= dims[0].Height {
		t.Errorf("gotenberg-js-client landscape: %v, %v; want wider than tall", dims, err)
	}
	if entries, _ := os.ReadDir(filepath.Join(npmDir)); len(entries) == 0 {
		t.Error("npm installed nothing")
	}
}

// TestConvertServer: calq convert --server is calq convert with its
// office documents converted on the server's warm pool: the same output
// tree and incremental rules, and a clear error without a server.
func TestConvertServer(t *testing.T) {
	dir := t.TempDir()
	s := startServe(t, dir)
	in := filepath.Join(dir, "in")
	os.MkdirAll(filepath.Join(in, "sub"), 0o755)
	os.WriteFile(filepath.Join(in, "a.txt"), []byte("first document\n"), 0o644)
	os.WriteFile(filepath.Join(in, "sub", "b.rtf"), []byte(`{\rtf1\ansi second document\par}`), 0o644)
	out := filepath.Join(dir, "out")
	env := append(convertEnv(filepath.Join(dir, "client")), "CALQ_DB="+filepath.Join(dir, "client.db"))
	os.MkdirAll(filepath.Join(dir, "client"), 0o700)
	run := func(args ...string) (string, error) {
		cmd := calqCmd(t, append([]string{"convert", "--json", "--server", s.URL, "-o", out}, args...)...)
		cmd.Env = append(cmd.Env, env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		b, err := cmd.Output()
		if err != nil {
			return string(b) + stderr.String(), err
		}
		return string(b), nil
	}
	got, err := run(in)
	if err != nil {
		t.Fatalf("calq convert --server: %v\n%s", err, got)
	}
	for _, p := range []string{"a.pdf", "sub/b.pdf"} {
		b, err := os.ReadFile(filepath.Join(out, p))
		if err != nil {
			t.Fatalf("%s: %v\n%s", p, err, got)
		}
		want := map[string]string{"a.pdf": "first document", "sub/b.pdf": "second document"}[p]
		if text := pdfText(t, b); !strings.Contains(text, want) {
			t.Errorf("%s holds %q", p, text)
		}
	}
	if left := sofficeUnder(filepath.Join(dir, "client")); len(left) > 0 {
		t.Errorf("calq convert --server started LibreOffice itself: %v", left)
	}
	got, err = run(in)
	if err != nil || strings.Count(got, `"state":"skipped"`) != 2 {
		t.Errorf("second run: %v\n%s; want both skipped", err, got)
	}
	cmd := calqCmd(t, "convert", "--server", "http://127.0.0.1:"+fmt.Sprint(freePort(t)), "-o", out, "--force", in)
	cmd.Env = append(cmd.Env, env...)
	b, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(b), "127.0.0.1") {
		t.Errorf("a server that is not there: %v\n%s; want an error naming it", err, b)
	}
	// A server with users wants the key, from CALQ_SERVER_KEY.
	key := serveUser(t, dir, s.db, "cron")
	cmd = calqCmd(t, "convert", "--server", s.URL, "-o", out, "--force", in)
	cmd.Env = append(cmd.Env, env...)
	if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), "needs an API key: set CALQ_SERVER_KEY") {
		t.Errorf("no key: %v\n%s", err, b)
	}
	cmd = calqCmd(t, "convert", "--server", s.URL, "-o", out, "--force", in)
	cmd.Env = append(cmd.Env, append(env, "CALQ_SERVER_KEY="+key)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("with the key: %v\n%s", err, b)
	}
	// The server keeps nothing of the client's files.
	if jobs, _ := os.ReadDir(filepath.Join(s.data, "jobs")); len(jobs) != 0 {
		t.Errorf("the server kept %d job directories after calq convert fetched its PDFs", len(jobs))
	}
}
