package e2e

import (
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeSlowFileLocksNobodyOut is issue 33's lock-out through the
// whole process: the first document a fresh calq serve measures hangs
// LibreOffice until --file-timeout (12 s) cuts it, longer than
// --request-timeout (10 s). A one-file synchronous request after it is
// converted: a prediction may delay a request, never refuse it for good
// (it was 413 "cannot be converted within the request's limit").
func TestServeSlowFileLocksNobodyOut(t *testing.T) {
	s := startServe(t, t.TempDir(), "--request-timeout", "10s", "--file-timeout", "12s")
	hang, err := os.ReadFile(filepath.Join(repoTestdata, "convert", "ofz8255-1.html"))
	if err != nil {
		t.Fatal(err)
	}
	id := submitJob(t, s.URL, "", "hang.html", string(hang))
	if j := waitJob(t, s.URL, "", id); j.State != "failed" {
		t.Fatalf("the hanging document's job: %s %q, want failed (timed out)", j.State, j.Error)
	}
	b, ct := form(t, [][2]string{{"after.txt", "converted after a slow file\n"}}, nil)
	status, body, h := request(t, http.MethodPost, s.URL+"/forms/libreoffice/convert", "", b, ct)
	if status != http.StatusOK {
		t.Fatalf("a one-file synchronous request after the slow file: %d (Retry-After %q) %s, want 200",
			status, h.Get("Retry-After"), body)
	}
	if text := pdfText(t, body); !strings.Contains(text, "converted after a slow file") {
		t.Errorf("the PDF holds %q", text)
	}
}

// TestServeKilledDuringUpload: calq serve SIGKILLed while a request's
// file is being uploaded leaves the upload in --data, with no job in the
// journal; the next start removes it.
func TestServeKilledDuringUpload(t *testing.T) {
	dir := t.TempDir()
	s := startServe(t, dir)
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := "POST /jobs HTTP/1.1\r\nHost: calq\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: 10000000\r\n\r\n" +
		"--B\r\nContent-Disposition: form-data; name=\"files\"; filename=\"cut.txt\"\r\nContent-Type: text/plain\r\n\r\n"
	if _, err := io.WriteString(conn, head+strings.Repeat("an upload cut by SIGKILL\n", 4096)); err != nil {
		t.Fatal(err)
	}
	jobs := filepath.Join(s.data, "jobs")
	deadline := time.Now().Add(time.Minute)
	for uploads, _ := filepath.Glob(filepath.Join(jobs, "*", "in", "*")); len(uploads) == 0; uploads, _ = filepath.Glob(filepath.Join(jobs, "*", "in", "*")) {
		if time.Now().After(deadline) {
			t.Fatalf("no upload in %s after a minute", jobs)
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.kill()
	if left, _ := os.ReadDir(jobs); len(left) != 1 {
		t.Fatalf("after SIGKILL, %d entries in %s, want the cut upload's directory", len(left), jobs)
	}
	startServe(t, dir)
	if left, _ := os.ReadDir(jobs); len(left) != 0 {
		t.Errorf("after the restart, %s holds %v, want nothing", jobs, left)
	}
}
