package serve

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"calq/convert/pdf"
	"calq/internal/serve/jobs"
	"calq/internal/tooltest"
)

// fullDisk mounts a tmpfs of size (mounting needs root: skipped
// without, but in CI) at a new directory and returns it.
func fullDisk(t *testing.T, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if o, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		tooltest.Unavailable(t, "cannot mount a tmpfs here (root: %v): %v: %s", os.Geteuid() == 0, err, o)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	return dir
}

// TestDiskFull: with --data on a full disk (a 256 KiB tmpfs), an upload
// is refused with 507 and a sentence for people: no server path, no
// system error, nothing left behind in --data.
func TestDiskFull(t *testing.T) {
	data := fullDisk(t, "256k")
	ts := newTestServer(t, func(o *Options) { o.Data = data })
	big := upload{"files", "big.txt", bytes.Repeat([]byte("calq fills the disk\n"), 32<<10)} // 640 KiB
	for _, path := range []string{"/jobs", "/forms/libreoffice/convert"} {
		resp := post(t, ts.URL+path, []upload{big}, nil, nil)
		b := string(body(t, resp))
		if resp.StatusCode != http.StatusInsufficientStorage {
			t.Errorf("POST %s on a full disk: %d %q, want 507", path, resp.StatusCode, b)
		}
		if strings.Contains(b, data) || strings.Contains(b, "no space left") {
			t.Errorf("POST %s on a full disk says %q: a server path or a system error", path, b)
		}
	}
	if left, _ := os.ReadDir(filepath.Join(data, "jobs")); len(left) > 0 {
		t.Errorf("%d job directories left in --data after the refusals", len(left))
	}
}

// TestDiskFullDuringJob: a job whose result does not fit the disk (two
// PDFs of about 150 KiB merged on a 512 KiB tmpfs) fails with 507 and a
// sentence, not 500 with the server's paths.
func TestDiskFullDuringJob(t *testing.T) {
	for _, route := range []string{routeMerge, routeConvert} {
		t.Run(route, func(t *testing.T) {
			data := fullDisk(t, "512k")
			ts := newTestServer(t, func(o *Options) { o.Data = data })
			files := []upload{noisePDF(t, "a.pdf", 1), noisePDF(t, "b.pdf", 2)}
			resp := post(t, ts.URL+"/jobs", files, nil, http.Header{"Calq-Route": {route}})
			var v jobView
			if err := json.Unmarshal(body(t, resp), &v); err != nil || resp.StatusCode != http.StatusAccepted {
				t.Fatalf("POST /jobs: %d, %v", resp.StatusCode, err)
			}
			v = finalView(t, ts.URL, v.ID)
			if v.State != jobs.Failed || v.Status != http.StatusInsufficientStorage {
				t.Errorf("the job: %s, status %d %q; want failed, 507", v.State, v.Status, v.Error)
			}
			if strings.Contains(v.Error, data) || strings.Contains(v.Error, "no space left") {
				t.Errorf("the job's error %q: a server path or a system error", v.Error)
			}
		})
	}
}

// noisePDF is an upload of a one-page PDF of an image of noise, which
// does not compress: about 150 KiB.
func noisePDF(t *testing.T, name string, seed uint64) upload {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 224, 224))
	r := rand.New(rand.NewPCG(seed, seed))
	for i := range img.Pix {
		img.Pix[i] = byte(r.Uint32())
		if i%4 == 3 {
			img.Pix[i] = 0xff // opaque
		}
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "noise.png"), filepath.Join(dir, "noise.pdf")
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := pdf.FromImages(t.Context(), []string{in}, out); err != nil {
		t.Fatal(err)
	}
	u := fileUpload(t, out)
	u.name = name
	return u
}

// TestJournalLocked: while another program (an sqlite3 shell) holds a
// write transaction on the journal, a request is refused with 503 and
// Retry-After once the journal's busy timeout (10 s) has passed, with no
// server path; once the lock is gone, requests are accepted again.
func TestJournalLocked(t *testing.T) {
	sqlite3 := tooltest.Require(t, "sqlite3")
	ts := newTestServer(t, nil)
	shell := exec.Command(sqlite3, "-bail", ts.DB) // a failed BEGIN ends it: no "locked" without the lock
	in, err := shell.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := shell.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	shell.Stderr = &stderr
	if err := shell.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(in, ".timeout 10000\nBEGIN IMMEDIATE;\nSELECT 'locked';\n") // waits for the server's own writes
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "locked\n" {
		t.Fatalf("sqlite3 said %q, %v (%s); want locked", line, err, &stderr)
	}
	doc := []upload{{"files", "a.txt", []byte("a\n")}}
	resp := post(t, ts.URL+"/jobs", doc, nil, nil)
	b := string(body(t, resp))
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("POST /jobs with the journal locked: %d (Retry-After %q) %q, want 503 with Retry-After",
			resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}
	if strings.Contains(b, ts.DB) || strings.Contains(b, "SQLITE") {
		t.Errorf("POST /jobs with the journal locked says %q: a server path or SQLite's error", b)
	}
	in.Close() // sqlite3 ends, and its transaction with it
	if err := shell.Wait(); err != nil {
		t.Fatalf("sqlite3: %v: %s", err, &stderr)
	}
	if resp := post(t, ts.URL+"/jobs", doc, nil, nil); resp.StatusCode != http.StatusAccepted {
		t.Errorf("POST /jobs after the lock: %d %s, want 202", resp.StatusCode, body(t, resp))
	}
}

// finalView is job id's view once it is final: GET /jobs/ID?wait= may
// answer before (the job's end is recorded just after its run ends).
func finalView(t *testing.T, base, id string) jobView {
	t.Helper()
	for range 30 {
		var v jobView
		if err := json.Unmarshal(body(t, get(t, base+"/jobs/"+id+"?wait=30s", "")), &v); err != nil {
			t.Fatal(err)
		}
		if v.State.Final() {
			return v
		}
	}
	t.Fatalf("job %s not final after 30 waits", id)
	return jobView{}
}

// TestPageHidesServerError: a page that fails on the server's side (a
// user's profiles file broken on the server's disk) answers 500 with a
// sentence, not the file's path and the parser's error.
func TestPageHidesServerError(t *testing.T) {
	ts := pageServer(t, nil)
	dir := filepath.Join(filepath.Dir(ts.Data), "profiles")
	if err := os.WriteFile(filepath.Join(dir, "alice.toml"), []byte("[[[ not TOML\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	alice := browserClient(t)
	signIn(t, alice, ts.URL, "alice", "alice-secret-pw")
	status, page := pageGet(t, alice, ts.URL+"/profiles", nil)
	if status != http.StatusInternalServerError || !strings.Contains(page, "the cause is in its log") {
		t.Errorf("GET /profiles with a broken file: %d, want 500 saying the cause is in the log", status)
	}
	if strings.Contains(page, dir) || strings.Contains(page, "alice.toml") {
		t.Errorf("GET /profiles with a broken file shows a server path:\n%s", page)
	}
}

// TestPageChangeHidesServerError: a change asked on a page that fails on
// the server's disk (the profiles directory is a file) says so without
// the server's paths, while a mistake of the request keeps its words.
func TestPageChangeHidesServerError(t *testing.T) {
	ts := pageServer(t, nil)
	alice := browserClient(t)
	signIn(t, alice, ts.URL, "alice", "alice-secret-pw")
	if status, page := pagePost(t, alice, ts.URL+"/profiles", url.Values{"action": {"save"}, "name": {"../up"}}); status != http.StatusBadRequest {
		t.Errorf("a profile named ../up: %d, want 400 naming the mistake\n%s", status, page)
	}
	dir := filepath.Join(filepath.Dir(ts.Data), "profiles")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	status, page := pagePost(t, alice, ts.URL+"/profiles", url.Values{"action": {"save"}, "name": {"board"}, "title": {"Board"}})
	if status != http.StatusInternalServerError || !strings.Contains(page, "the cause is in its log") {
		t.Errorf("saving a profile on a broken disk: %d, want 500 saying the cause is in the log", status)
	}
	if strings.Contains(page, dir) || strings.Contains(page, "not a directory") {
		t.Errorf("saving a profile on a broken disk shows the server's error:\n%s", page)
	}
}

// TestInternalError: what a reply says of the server's own failures.
func TestInternalError(t *testing.T) {
	ts := &Server{opts: Options{Log: slog.New(slog.DiscardHandler)}}
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, sqlErr := db.Exec("SELECT FROM nothing")
	tests := []struct {
		name   string
		err    error
		status int
		retry  time.Duration
	}{
		{"disk full", fmt.Errorf("store: %w", &fs.PathError{Op: "write", Path: "/srv/calq/data/x", Err: syscall.ENOSPC}), 507, 0},
		{"over quota", &fs.PathError{Op: "write", Path: "/srv/calq/data/x", Err: syscall.EDQUOT}, 507, 0},
		{"an SQLite error", fmt.Errorf("journal /srv/calq/calq.db: %w", sqlErr), 500, 0},
		{"anything else", errors.New("open /srv/calq/data/secret: permission denied"), 500, 0},
	}
	for _, tt := range tests {
		status, msg, retry := ts.internalError("do it", tt.err)
		if status != tt.status || retry != tt.retry {
			t.Errorf("%s: %d, Retry-After %v; want %d, %v", tt.name, status, retry, tt.status, tt.retry)
		}
		if strings.Contains(msg, "/srv") || strings.Contains(msg, tt.err.Error()) {
			t.Errorf("%s: %q shows the error", tt.name, msg)
		}
	}
}
