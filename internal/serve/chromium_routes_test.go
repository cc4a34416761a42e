package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"calq/convert/chromium"
	"calq/internal/tooltest"
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

// lazyPool is a Chromium pool that has started no browser.
func lazyPool(t *testing.T) *chromium.Pool {
	t.Helper()
	if _, _, err := chromium.Find(""); err != nil {
		tooltest.Unavailable(t, "%v", err)
	}
	p, err := chromium.New(chromium.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestChromiumHealth: /health has a chromium detail, up before any
// browser started, only on a server with Chromium; /prometheus/metrics
// has Gotenberg's two chromium gauges in its namespace; /debug lists the
// module with the pool's state.
func TestChromiumHealth(t *testing.T) {
	with := newTestServer(t, func(o *Options) {
		o.Chromium = lazyPool(t)
		o.Routes.Debug = true
		o.Routes.DebugData = DebugData{Modules: []string{"libreoffice", "pdfcpu"},
			ModulesData: map[string]map[string]string{"chromium": {"version": "156"}}}
	})
	without := newTestServer(t, nil)
	for _, tt := range []struct {
		name     string
		url      string
		chromium bool
	}{{"with chromium", with.URL, true}, {"without", without.URL, false}} {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.Get(tt.url + "/health")
			if err != nil {
				t.Fatal(err)
			}
			var v struct {
				Status  string
				Details map[string]struct{ Status string }
			}
			if err := json.Unmarshal(body(t, resp), &v); err != nil || resp.StatusCode != 200 || v.Status != "up" {
				t.Fatalf("got %d %+v (%v), want 200 up", resp.StatusCode, v, err)
			}
			c, ok := v.Details["chromium"]
			if ok != tt.chromium || (ok && c.Status != "up") {
				t.Errorf("got chromium detail %+v (present %v), want present %v and up", c, ok, tt.chromium)
			}
			resp, err = http.Get(tt.url + "/prometheus/metrics")
			if err != nil {
				t.Fatal(err)
			}
			m := string(body(t, resp))
			for _, want := range []string{"\ngotenberg_chromium_requests_queue_size 0\n", "\ngotenberg_chromium_restarts_count 0\n",
				"# HELP gotenberg_chromium_requests_queue_size ", "# TYPE gotenberg_chromium_restarts_count gauge\n"} {
				if !strings.Contains(m, want) {
					t.Errorf("metrics lack %q", want)
				}
			}
		})
	}
	resp, err := http.Get(with.URL + "/debug")
	if err != nil {
		t.Fatal(err)
	}
	var d DebugData
	if err := json.Unmarshal(body(t, resp), &d); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(d.Modules, ","); got != "chromium,libreoffice,pdfcpu" {
		t.Errorf("got modules %s, want chromium,libreoffice,pdfcpu", got)
	}
	if c := d.ModulesData["chromium"]; c["version"] != "156" || c["browsers"] != "0" || c["started"] != "false" {
		t.Errorf("got chromium debug data %v, want the version kept and the pool's state", c)
	}
}
