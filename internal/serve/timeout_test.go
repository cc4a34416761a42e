package serve

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFileTimeoutIs503: a document cut by --file-timeout on
// libreoffice/convert answers 503, as the pdfengines routes' files and
// Gotenberg's timeouts do, not 400 (the document is not known to be bad),
// with the reason in words.
func TestFileTimeoutIs503(t *testing.T) {
	hang, err := os.ReadFile(filepath.Join(repoTestdata, "convert", "ofz8255-1.html"))
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, func(o *Options) { o.FileTimeout = 3 * time.Second })
	resp := post(t, ts.URL+"/forms/libreoffice/convert", []upload{{"files", "hang.html", hang}}, nil, nil)
	b := string(body(t, resp))
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(b, "hang.html: converting it took longer than the limit of 3 seconds") {
		t.Errorf("a document over the file timeout: %d %q, want 503 saying it took longer than the limit", resp.StatusCode, b)
	}
}
