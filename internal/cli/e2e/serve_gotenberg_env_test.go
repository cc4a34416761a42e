package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// gotenbergCheck is one request to a calq serve started with Gotenberg's
// variables, and what it must answer.
type gotenbergCheck struct {
	method, path string
	user, pass   string // Basic auth; "" none
	status       int
	body         string // a part of the body; "" not checked
}

// check sends each request of checks to s and compares.
func check(t *testing.T, s *serveProc, checks []gotenbergCheck) {
	t.Helper()
	for _, c := range checks {
		var body io.Reader
		ctype := ""
		if c.method == http.MethodPost {
			b, ct := form(t, [][2]string{{"report.txt", "quarterly report\n"}}, nil)
			body, ctype = b, ct
		}
		req, err := http.NewRequest(c.method, s.URL+c.path, body)
		if err != nil {
			t.Fatal(err)
		}
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		if c.user != "" {
			req.SetBasicAuth(c.user, c.pass)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", c.method, c.path, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s %s as %q: got status %d, want %d (%.200s)", c.method, c.path, c.user, resp.StatusCode, c.status, b)
		} else if !strings.Contains(string(b), c.body) {
			t.Errorf("%s %s as %q: got body %.200q, want it to hold %q", c.method, c.path, c.user, b, c.body)
		}
	}
}

// TestServeGotenbergCompose: calq serve started as a docker-compose file
// for Gotenberg starts it (API_PORT on every address, a root path, Basic
// auth from the variables) serves /pdf/forms/libreoffice/convert behind
// Basic auth: the variables' user is made at the start, which lets it
// listen off loopback. A new password at the next start replaces the old.
func TestServeGotenbergCompose(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "calq.db")
	port := freePort(t)
	env := func(password string) []string {
		return []string{"API_PORT=" + strconv.Itoa(port), "API_ROOT_PATH=/pdf/", "API_ENABLE_BASIC_AUTH=true",
			"GOTENBERG_API_BASIC_AUTH_USERNAME=foo", "GOTENBERG_API_BASIC_AUTH_PASSWORD=" + password}
	}
	s := startServeWith(t, dir, db, serveStart{port: port, env: env("bar"), root: "/pdf/"})
	if l := s.stderr.String(); !strings.Contains(l, ":"+strconv.Itoa(port)) || strings.Contains(l, "127.0.0.1:") {
		t.Errorf("got stderr %q, want it listening on every address, port %d (API_PORT)", l, port)
	}
	check(t, s, []gotenbergCheck{
		{"POST", "/pdf/forms/libreoffice/convert", "", "", 401, ""},
		{"POST", "/pdf/forms/libreoffice/convert", "foo", "wrong", 401, ""},
		{"POST", "/pdf/forms/libreoffice/convert", "foo", "bar", 200, "%PDF-"},
		{"GET", "/pdf/health", "", "", 200, `"status":"up"`},
		{"HEAD", "/pdf/health", "", "", 200, ""},
		{"GET", "/pdf/version", "", "", 401, ""},
		{"GET", "/pdf/version", "foo", "bar", 200, ""},
		{"GET", "/pdf/favicon.ico", "", "", 401, ""},
		{"GET", "/pdf/favicon.ico", "foo", "bar", 204, ""},
		{"GET", "/pdf/prometheus/metrics", "foo", "bar", 200, "gotenberg_libreoffice_requests_queue_size"},
		{"GET", "/pdf/debug", "foo", "bar", 404, ""},
		{"GET", "/health", "", "", 404, ""},
		{"POST", "/forms/libreoffice/convert", "foo", "bar", 404, ""},
	})
	s.stop(t)
	s = startServeWith(t, dir, db, serveStart{port: port, env: env("baz"), root: "/pdf/"})
	check(t, s, []gotenbergCheck{
		{"GET", "/pdf/version", "foo", "bar", 401, ""},
		{"GET", "/pdf/version", "foo", "baz", 200, ""},
	})
	out := calqOut(t, serveEnv(dir), "users", "list", "--db", db)
	if !strings.Contains(out, "foo") {
		t.Errorf("got calq users list %q, want the user foo", out)
	}
}

// TestServeGotenbergSettings: the route settings from Gotenberg's
// variables on the real binary: /debug on, the LibreOffice routes off,
// the metrics under their own path and namespace, a flag over its
// variable.
func TestServeGotenbergSettings(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	s := startServeWith(t, dir, filepath.Join(dir, "calq.db"), serveStart{listen: "127.0.0.1:" + strconv.Itoa(port), port: port,
		env: []string{"API_ENABLE_DEBUG_ROUTE=true", "LIBREOFFICE_DISABLE_ROUTES=true", "PROMETHEUS_NAMESPACE=foo",
			"PROMETHEUS_METRICS_PATH=/custom/metrics", "API_TIMEOUT=45s", "PDFENGINES_MERGE_ENGINES=qpdf,pdfcpu"}},
		"--request-timeout", "40s")
	check(t, s, []gotenbergCheck{
		{"POST", "/forms/libreoffice/convert", "", "", 404, ""},
		{"POST", "/forms/pdfengines/merge", "", "", 400, ""},
		{"GET", "/custom/metrics", "", "", 200, "\nfoo_libreoffice_requests_queue_size 0\n"},
		{"GET", "/prometheus/metrics", "", "", 404, ""},
		{"GET", "/favicon.ico", "", "", 204, ""},
		{"GET", "/debug", "", "", 200, `"architecture":`},
	})
	_, v, h := request(t, http.MethodGet, s.URL+"/version", "", nil, "")
	if want := strings.Fields(calqOut(t, nil, "version"))[1]; string(v) != want || h.Get("Content-Type") != "text/plain; charset=UTF-8" {
		t.Errorf("GET /version: got %q as %q, want %q (calq version's) as text/plain; charset=UTF-8", v, h.Get("Content-Type"), want)
	}
	_, b, h := request(t, http.MethodGet, s.URL+"/debug", "", nil, "")
	var d struct {
		Version string            `json:"version"`
		Modules []string          `json:"modules"`
		Flags   map[string]string `json:"flags"`
	}
	if err := json.Unmarshal(b, &d); err != nil || h.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /debug: %v %q %s", err, h.Get("Content-Type"), b)
	}
	want := map[string]string{"request-timeout": "40s", "metrics-namespace": "foo", "disable-routes": "[libreoffice]", "debug-route": "true"}
	for k, v := range want {
		if d.Flags[k] != v {
			t.Errorf("GET /debug: got flag %s = %q, want %q", k, d.Flags[k], v)
		}
	}
	if d.Version == "" || strings.Contains(strings.Join(d.Modules, ","), "libreoffice") {
		t.Errorf("GET /debug: got version %q and modules %v, want a version and no libreoffice", d.Version, d.Modules)
	}
}
