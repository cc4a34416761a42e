package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
