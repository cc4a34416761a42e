package serve

import (
	"net/http"
	"strings"
	"testing"
)

// TestChromiumNotInstalled: on a server without Chromium each Chromium
// route, straight or as a job, answers 503 saying so before it stores
// anything; with the group disabled they are not there (404).
func TestChromiumNotInstalled(t *testing.T) {
	ts := newTestServer(t, nil)
	off := newTestServer(t, func(o *Options) { o.Routes.Disabled = []string{"chromium"} })
	page := []upload{{"files", "index.html", []byte("<p>x</p>")}}
	for _, route := range chromiumRoutes {
		t.Run(route, func(t *testing.T) {
			resp := post(t, ts.URL+"/forms/"+route, page, map[string]string{"url": "http://example.com"}, nil)
			if b := string(body(t, resp)); resp.StatusCode != 503 || b != chromiumNotInstalledError {
				t.Errorf("got %d %q, want 503 %q", resp.StatusCode, b, chromiumNotInstalledError)
			}
			resp = post(t, ts.URL+"/jobs", page, nil, http.Header{"Calq-Route": {route}})
			if b := string(body(t, resp)); resp.StatusCode != 503 || !strings.Contains(b, "Chromium is not installed") {
				t.Errorf("POST /jobs: got %d %q, want 503 saying Chromium is not installed", resp.StatusCode, b)
			}
			resp = post(t, off.URL+"/forms/"+route, page, nil, nil)
			if b := string(body(t, resp)); resp.StatusCode != 404 {
				t.Errorf("disabled: got %d %q, want 404", resp.StatusCode, b)
			}
		})
	}
	js, err := ts.Jobs.List(t.Context(), "", 100)
	if err != nil || len(js) != 0 {
		t.Errorf("got %d jobs (%v), want none recorded", len(js), err)
	}
}
