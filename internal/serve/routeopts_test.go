package serve

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"calq/internal/serve/users"
	"calq/internal/serve/webhook"
)

// TestRouteOptions: the settings of the routes (root path, disabled
// groups, /debug, the metrics' place and names) as Gotenberg's suite
// checks them, one request each on a server started with them.
func TestRouteOptions(t *testing.T) {
	type want struct {
		method, path string
		status       int
		ctype        string // the exact Content-Type; "" not checked
		body         string // a part of the body; "" not checked
	}
	txt := []upload{{"files", "a.txt", []byte("a\n")}}
	cases := []struct {
		name  string
		opts  RouteOptions
		users bool // a user exists: requests need a key
		wants []want
	}{
		{name: "defaults", wants: []want{
			{"GET", "/health", 200, "application/json; charset=utf-8", `"status":"up"`},
			{"HEAD", "/health", 200, "application/json; charset=utf-8", ""},
			{"GET", "/version", 200, "text/plain; charset=UTF-8", "(devel)"},
			{"GET", "/favicon.ico", 204, "", ""},
			{"GET", "/debug", 404, "", ""},
			{"GET", "/prometheus/metrics", 200, "", "\ngotenberg_libreoffice_requests_queue_size 0\n"},
			{"GET", "/prometheus/metrics", 200, "", "\ngotenberg_libreoffice_restarts_count "}, // the shared pool may have restarted
			{"GET", "/prometheus/metrics", 200, "", "\ncalq_serve_documents_waiting 0\n"},
			{"POST", "/forms/chromium/convert/html", 503, "", "Chromium is not installed"},
		}},
		{name: "root path", opts: RouteOptions{RootPath: "/foo/", Debug: true}, wants: []want{
			{"GET", "/foo/health", 200, "application/json; charset=utf-8", `"status":"up"`},
			{"HEAD", "/foo/health", 200, "", ""},
			{"GET", "/foo/version", 200, "", "(devel)"},
			{"GET", "/foo/debug", 200, "application/json", ""},
			{"GET", "/foo/favicon.ico", 204, "", ""},
			{"GET", "/foo/prometheus/metrics", 200, "", "gotenberg_libreoffice_requests_queue_size"},
			{"POST", "/foo/forms/libreoffice/convert", 200, "application/pdf", "%PDF-"},
			{"GET", "/health", 404, "", "under /foo/"},
			{"POST", "/forms/libreoffice/convert", 404, "", ""},
			{"GET", "/foobar/health", 404, "", ""},
			{"GET", "/foo/no-such-route", 404, "", ""},
		}},
		{name: "libreoffice routes off", opts: RouteOptions{Disabled: []string{"libreoffice"}}, wants: []want{
			{"POST", "/forms/libreoffice/convert", 404, "", ""},
			{"POST", "/jobs", 404, "", "disabled"}, // libreoffice/convert, POST /jobs's default
			{"POST", "/forms/pdfengines/merge", 400, "", ""},
		}},
		{name: "pdfengines routes off", opts: RouteOptions{Disabled: []string{"pdfengines"}}, wants: []want{
			{"POST", "/forms/pdfengines/merge", 404, "", ""},
			{"POST", "/forms/pdfengines/embed", 404, "", ""},
			{"POST", "/forms/libreoffice/convert", 200, "application/pdf", ""},
		}},
		{name: "chromium routes off", opts: RouteOptions{Disabled: []string{"chromium"}}, wants: []want{
			{"POST", "/forms/chromium/convert/html", 404, "", ""},
		}},
		{name: "debug", opts: RouteOptions{Debug: true, DebugData: DebugData{Version: "v9", Modules: []string{"api"}}}, wants: []want{
			{"GET", "/debug", 200, "application/json", `"version":"v9"`},
			{"GET", "/debug", 200, "", `"modules":["api"]`},
		}},
		{name: "debug without its data", opts: RouteOptions{Debug: true}, wants: []want{
			{"GET", "/debug", 200, "application/json", `"modules":null,"modules_additional_data":null,"flags":null`},
		}},
		{name: "behind authentication", opts: RouteOptions{Debug: true}, users: true, wants: []want{
			{"GET", "/debug", 401, "", ""},
			{"GET", "/favicon.ico", 401, "", ""},
			{"GET", "/version", 401, "", ""},
			{"GET", "/prometheus/metrics", 401, "", ""},
			{"GET", "/health", 200, "", ""},
		}},
		{name: "metrics namespace and path", opts: RouteOptions{MetricsNamespace: "foo", MetricsPath: "/custom/metrics"}, wants: []want{
			{"GET", "/custom/metrics", 200, "", "\nfoo_libreoffice_requests_queue_size 0\n"},
			{"GET", "/prometheus/metrics", 404, "", ""},
		}},
		{name: "metrics off", opts: RouteOptions{NoMetrics: true}, wants: []want{
			{"GET", "/prometheus/metrics", 404, "", ""},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestServer(t, func(o *Options) { o.Routes = c.opts })
			if c.users {
				if _, err := ts.Users.Add(context.Background(), users.User{Name: "ann"}); err != nil {
					t.Fatal(err)
				}
			}
			for _, w := range c.wants {
				var resp *http.Response
				if w.method == "POST" {
					resp = post(t, ts.URL+w.path, txt, nil, nil)
				} else {
					req, _ := http.NewRequest(w.method, ts.URL+w.path, nil)
					var err error
					if resp, err = http.DefaultClient.Do(req); err != nil {
						t.Fatal(err)
					}
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != w.status {
					t.Errorf("%s %s: got status %d, want %d (%.200s)", w.method, w.path, resp.StatusCode, w.status, b)
					continue
				}
				if got := resp.Header.Get("Content-Type"); w.ctype != "" && got != w.ctype {
					t.Errorf("%s %s: got Content-Type %q, want %q", w.method, w.path, got, w.ctype)
				}
				if w.body != "" && !strings.Contains(string(b), w.body) {
					t.Errorf("%s %s: got body %.300q, want it to hold %q", w.method, w.path, b, w.body)
				}
			}
		})
	}
}

// TestDebugShape: GET /debug has Gotenberg's fields, with calq's values.
func TestDebugShape(t *testing.T) {
	d := DebugData{Version: "v1", Timezone: "UTC", Architecture: "amd64", Modules: []string{"api", "libreoffice"},
		ModulesData: map[string]map[string]string{"libreoffice": {"version": "7.4"}}, Flags: map[string]string{"root-path": "/"}}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	json.Unmarshal(b, &got)
	for _, k := range []string{"version", "timezone", "architecture", "modules", "modules_additional_data", "flags"} {
		if _, ok := got[k]; !ok {
			t.Errorf("got %s, want the field %q", b, k)
		}
	}
}

// TestRouteOptionsRefused: settings the routes cannot be built from are
// refused when the server is made, naming the setting.
func TestRouteOptionsRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		opts RouteOptions
		want string
	}{
		{"metrics path over a route", RouteOptions{MetricsPath: "/health"}, `metrics path "/health"`},
		{"metrics path not a path", RouteOptions{MetricsPath: "metrics"}, `metrics path "metrics"`},
		{"root path with a space", RouteOptions{RootPath: "/a b/"}, `root path "/a b/"`},
		{"namespace", RouteOptions{MetricsNamespace: "9x"}, `metrics namespace "9x"`},
		{"group", RouteOptions{Disabled: []string{"office"}}, `route group "office"`},
		{"logged route", RouteOptions{Logged: []string{"forms"}}, `logged route "forms"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := Options{Data: t.TempDir(), Jobs: newTestServer(t, nil).Jobs, Routes: c.opts}
			_, err := New(o)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error naming %s", err, c.want)
			}
		})
	}
}

// TestRouteLogged: the quiet routes are logged only when named.
func TestRouteLogged(t *testing.T) {
	s := &Server{opts: Options{Routes: RouteOptions{Logged: []string{"health"}, MetricsPath: "/m"}}}
	for path, want := range map[string]bool{"/health": true, "/version": false, "/": false, "/favicon.ico": true,
		"/debug": false, "/m": false, "/prometheus/metrics": true, "/forms/libreoffice/convert": true} {
		if got := s.routeLogged(path); got != want {
			t.Errorf("routeLogged(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestWebhookSync: with WebhookSync a route asking for a webhook answers
// 204 once the webhook holds the result (Gotenberg's
// WEBHOOK_ENABLE_SYNC_MODE); without it, at once.
func TestWebhookSync(t *testing.T) {
	var got atomic.Int32 // results the webhook received
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/result" {
			got.Add(1)
		}
	}))
	defer hook.Close()
	policy, err := webhook.NewPolicy([]string{"127.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, func(o *Options) {
		o.WebhookPolicy, o.Webhooks, o.WebhookSync = policy, webhook.NewSender(policy, webhook.Options{}), true
	})
	h := http.Header{webhook.HeaderURL: {hook.URL + "/result"}, webhook.HeaderErrorURL: {hook.URL + "/error"}}
	resp := post(t, ts.URL+"/forms/libreoffice/convert", []upload{{"files", "a.txt", []byte("a\n")}}, nil, h)
	body(t, resp)
	if resp.StatusCode != http.StatusNoContent || got.Load() != 1 {
		t.Errorf("got status %d with %d results at the webhook, want 204 once it has the result", resp.StatusCode, got.Load())
	}
}
