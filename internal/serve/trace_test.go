package serve

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// logLines are the JSON log lines in the file at path.
func logLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err == nil {
			out = append(out, m)
		}
	}
	return out
}

var uuidForm = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// TestTraceOnEveryReply: every reply carries Gotenberg-Trace, the
// client's own or a new UUID, errors, /health, /version and the metrics
// included; and each request's log line carries that trace as
// correlation_id with its method, path and status, as Gotenberg's users
// search their logs.
func TestTraceOnEveryReply(t *testing.T) {
	ts, logPath := jsonLogServer(t, "health", "version", "metrics") // quiet unless named (TestQuietRoutes)
	cases := []struct {
		name, method, path, trace string
		status                    int
	}{
		{"health", http.MethodGet, "/health", "get_health", 200},
		{"health, HEAD", http.MethodHead, "/health", "head_health", 200},
		{"version", http.MethodGet, "/version", "get_version", 200},
		{"metrics", http.MethodGet, "/prometheus/metrics", "get_metrics", 200},
		{"no such route", http.MethodGet, "/nothing", "nothing", 404},
		{"a route's other method", http.MethodGet, "/forms/libreoffice/convert", "get_convert", 405},
		{"a refused form", http.MethodPost, "/forms/pdfengines/merge", "post_merge", 415},
		{"no trace given", http.MethodGet, "/health", "", 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, ts.URL+c.path, nil)
			if c.trace != "" {
				req.Header.Set("Gotenberg-Trace", c.trace)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body(t, resp)
			if resp.StatusCode != c.status {
				t.Errorf("got status %d, want %d", resp.StatusCode, c.status)
			}
			got := resp.Header.Get("Gotenberg-Trace")
			switch {
			case c.trace != "" && got != c.trace:
				t.Errorf("got Gotenberg-Trace %q, want the client's %q", got, c.trace)
			case c.trace == "" && !uuidForm.MatchString(got):
				t.Errorf("got Gotenberg-Trace %q, want a new UUID", got)
			}
			for _, l := range logLines(t, logPath) {
				if l["msg"] == "request" && l["correlation_id"] == got {
					if l["path"] != c.path || l["method"] != c.method || l["status"] != float64(c.status) {
						t.Errorf("got log line %v, want path %s, method %s, status %d", l, c.path, c.method, c.status)
					}
					return
				}
			}
			t.Errorf("no log line with correlation_id %q in %v", got, logLines(t, logPath))
		})
	}
}

// TestQuietRoutes: the requests of /health, /version and the metrics are
// not logged unless --log-routes names them (Gotenberg's
// *_ROUTE_TELEMETRY switches); the others always are.
func TestQuietRoutes(t *testing.T) {
	ts, logPath := jsonLogServer(t, "version")
	for _, c := range []struct {
		path   string
		logged bool
	}{
		{"/health", false}, {"/prometheus/metrics", false}, {"/", false},
		{"/version", true}, {"/nothing", true},
		// Gotenberg logs its favicon route whatever its root route's
		// telemetry switch says.
		{"/favicon.ico", true},
	} {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+c.path, nil)
		req.Header.Set("Gotenberg-Trace", "quiet-"+strings.Trim(c.path, "/"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body(t, resp)
		found := false
		for _, l := range logLines(t, logPath) {
			found = found || l["msg"] == "request" && l["path"] == c.path
		}
		if found != c.logged {
			t.Errorf("GET %s: logged %v, want %v", c.path, found, c.logged)
		}
	}
}

// jsonLogServer is a test server logging JSON to the file at logPath,
// with the quiet routes logged named.
func jsonLogServer(t *testing.T, logged ...string) (ts *testServer, logPath string) {
	t.Helper()
	logPath = filepath.Join(t.TempDir(), "log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })
	ts = newTestServer(t, func(o *Options) {
		o.Log = slog.New(slog.NewJSONHandler(logFile, nil))
		o.Routes.Logged = logged
	})
	return ts, logPath
}
