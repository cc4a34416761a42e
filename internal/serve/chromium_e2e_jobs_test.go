package serve

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"calq/internal/serve/jobs"
	"calq/internal/serve/webhook"
)

// TestChromiumWebhook: a Chromium route with a webhook answers 204 and
// delivers the PDF or the image with its type and name.
func TestChromiumWebhook(t *testing.T) {
	type hit struct {
		header http.Header
		body   []byte
	}
	hits := make(chan hit, 4)
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		hits <- hit{r.Header.Clone(), b}
	}))
	defer sink.Close()
	ts := chromiumServer(t, func(o *Options) {
		p, err := webhook.NewPolicy([]string{"127.0.0.1/32"})
		if err != nil {
			t.Fatal(err)
		}
		o.WebhookPolicy = p
		o.Webhooks = webhook.NewSender(p, webhook.Options{Base: 10 * time.Millisecond})
	})
	for _, tt := range []struct {
		route, ctype, file string
		files              []upload
	}{
		{routeChromiumMarkdown, contentTypePDF, "foo.pdf", markdownFiles},
		{routeScreenshotHTML, "image/png", "foo.png", siteFiles},
	} {
		t.Run(tt.route, func(t *testing.T) {
			h := http.Header{"Gotenberg-Output-Filename": {"foo"}, "Gotenberg-Webhook-Url": {sink.URL + "/webhook"},
				"Gotenberg-Webhook-Error-Url": {sink.URL + "/webhook/error"}}
			resp := post(t, ts.URL+"/forms/"+tt.route, tt.files, nil, h)
			if b := body(t, resp); resp.StatusCode != http.StatusNoContent {
				t.Fatalf("got %d %q, want 204", resp.StatusCode, b)
			}
			got := received(t, hits)
			if v := got.header.Get("Content-Type"); v != tt.ctype {
				t.Errorf("got Content-Type %q, want %q", v, tt.ctype)
			}
			if _, params, err := mime.ParseMediaType(got.header.Get("Content-Disposition")); err != nil || params["filename"] != tt.file {
				t.Errorf("got Content-Disposition %q, want the file name %s", got.header.Get("Content-Disposition"), tt.file)
			}
			if tt.ctype == contentTypePDF {
				pdfFile(t, got.body)
			} else if !imageMagic(got.body, tt.ctype) {
				t.Errorf("got %.16q, want a %s", got.body, tt.ctype)
			}
		})
	}
}

// TestChromiumJob: POST /jobs takes a Chromium route; the job runs and
// its result is the image.
func TestChromiumJob(t *testing.T) {
	ts := chromiumServer(t, nil)
	resp := post(t, ts.URL+"/jobs", siteFiles, map[string]string{"format": "jpeg"}, http.Header{"Calq-Route": {routeScreenshotHTML}})
	var v jobView
	if err := json.Unmarshal(body(t, resp), &v); err != nil || resp.StatusCode != http.StatusAccepted || v.Route != routeScreenshotHTML {
		t.Fatalf("got %d %+v (%v), want 202 with a job of %s", resp.StatusCode, v, err, routeScreenshotHTML)
	}
	resp = get(t, ts.URL+"/jobs/"+v.ID+"?wait=60s", "")
	json.Unmarshal(body(t, resp), &v)
	if v.State != jobs.Done {
		t.Fatalf("got job %+v, want it done", v)
	}
	resp = get(t, ts.URL+"/jobs/"+v.ID+"/result", "")
	b := body(t, resp)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/jpeg" || !imageMagic(b, "image/jpeg") {
		t.Errorf("got %d %s %.16q, want a JPEG", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
}

// TestChromiumSecretsStayOut: a page's cookies and extra headers reach
// the page's server, and neither the journal nor the data directory
// keeps them once the job is done.
func TestChromiumSecretsStayOut(t *testing.T) {
	got := make(chan http.Header, 4)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- r.Header.Clone():
		default:
		}
		w.Write([]byte("<html><body><p>private</p></body></html>"))
	}))
	defer site.Close()
	ts := chromiumServer(t, nil)
	fields := map[string]string{"url": site.URL + "/private",
		"cookies":          `[{"name":"session","value":"cookie-4711","domain":"127.0.0.1"}]`,
		"extraHttpHeaders": `{"X-Token":"header-4711"}`}
	resp := post(t, ts.URL+"/jobs", nil, fields, http.Header{"Calq-Route": {routeChromiumURL}})
	var v jobView
	json.Unmarshal(body(t, resp), &v)
	resp = get(t, ts.URL+"/jobs/"+v.ID+"?wait=60s", "")
	json.Unmarshal(body(t, resp), &v)
	if v.State != jobs.Done {
		t.Fatalf("got job %+v, want it done", v)
	}
	h := received(t, got)
	if c := h.Get("Cookie"); c != "session=cookie-4711" || h.Get("X-Token") != "header-4711" {
		t.Errorf("got Cookie %q and X-Token %q, want the request's", c, h.Get("X-Token"))
	}
	noSecrets(t, ts, "cookie-4711", "header-4711")
}

// noSecrets fails t when the journal's files or the data directory hold
// one of secrets.
func noSecrets(t *testing.T, ts *testServer, secrets ...string) {
	t.Helper()
	files, _ := filepath.Glob(ts.DB + "*")
	filepath.WalkDir(ts.Data, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, secret := range secrets {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds %q", f, secret)
			}
		}
	}
}
