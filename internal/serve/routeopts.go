package serve

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
)

// RouteOptions are the settings of the server's routes: where they are
// (a root path, the metrics' path), which groups are off, and the
// optional ones (GET /debug). calq serve's flags set them; Gotenberg's
// environment variables are mapped onto those flags in
// internal/cli/servecmd.
type RouteOptions struct {
	// RootPath puts every route under it: "/pdf/" serves /pdf/health,
	// /pdf/forms/..., the pages under /pdf/. "" or "/": at the root.
	RootPath string
	// Disabled are route groups that answer 404, as if they did not
	// exist: "libreoffice", "pdfengines", "chromium" (RouteGroups).
	Disabled []string
	// Debug serves GET /debug: DebugData as JSON, behind authentication.
	Debug     bool
	DebugData DebugData
	// MetricsPath is where the Prometheus metrics are
	// ("/prometheus/metrics"); NoMetrics turns the route off (404).
	MetricsPath string
	NoMetrics   bool
	// MetricsNamespace begins the names of the Gotenberg-compatible
	// metrics ("gotenberg": gotenberg_libreoffice_requests_queue_size);
	// calq's own keep their calq_serve_ names.
	MetricsNamespace string
	// Logged are the routes among "health", "version", "root", "debug"
	// and "metrics" (QuietRoutes) whose requests are logged; the other
	// routes' requests always are. (Gotenberg's *_ROUTE_TELEMETRY.)
	Logged []string
}

// RouteGroups are the groups of routes RouteOptions.Disabled can name.
var RouteGroups = []string{"libreoffice", "pdfengines", "chromium"}

// QuietRoutes are the routes whose requests are not logged unless
// RouteOptions.Logged names them: a health check every few seconds
// would bury the conversions.
var QuietRoutes = []string{"health", "version", "root", "debug", "metrics"}

// DebugData is what GET /debug shows: calq's version and build, the
// time zone, the parts of the server ("modules", in Gotenberg's word) and
// the settings it was started with, by flag name. Its zero value is what
// Gotenberg shows without debug data: empty fields.
type DebugData struct {
	Version      string                       `json:"version"`
	Timezone     string                       `json:"timezone"`
	Architecture string                       `json:"architecture"`
	Modules      []string                     `json:"modules"`
	ModulesData  map[string]map[string]string `json:"modules_additional_data"`
	Flags        map[string]string            `json:"flags"`
}

var metricsNamespace = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// Check refuses settings the routes cannot be built from, naming them.
func (o RouteOptions) Check() error {
	for _, p := range []struct{ name, v string }{{"root path", o.RootPath}, {"metrics path", o.MetricsPath}} {
		if p.v != "" && (!strings.HasPrefix(p.v, "/") || strings.ContainsAny(p.v, " \t\r\n{}?#%") || strings.Contains(p.v, "//")) {
			return fmt.Errorf("%s %q: want a path such as /pdf/, without spaces, braces, '?', '#', '%%' or '//'", p.name, p.v)
		}
	}
	if o.MetricsNamespace != "" && !metricsNamespace.MatchString(o.MetricsNamespace) {
		return fmt.Errorf("metrics namespace %q: want letters, digits and '_', not beginning with a digit", o.MetricsNamespace)
	}
	for _, g := range o.Disabled {
		if !slices.Contains(RouteGroups, g) {
			return fmt.Errorf("route group %q: want one of %s", g, strings.Join(RouteGroups, ", "))
		}
	}
	for _, r := range o.Logged {
		if !slices.Contains(QuietRoutes, r) {
			return fmt.Errorf("logged route %q: want one of %s", r, strings.Join(QuietRoutes, ", "))
		}
	}
	return nil
}

// routeOff says whether route (below /forms/) is in a disabled group.
func (s *Server) routeOff(route string) bool {
	group, _, _ := strings.Cut(route, "/")
	return slices.Contains(s.opts.Routes.Disabled, group)
}

// routeLogged says whether the requests of path (below the root path)
// are logged: always but for the quiet routes not named in
// RouteOptions.Logged. The request log (Gotenberg's "path" lines) asks it
// before it writes a line. /favicon.ico is not quiet: Gotenberg logs it
// whatever its root route's switch says.
func (s *Server) routeLogged(path string) bool {
	name := ""
	switch path {
	case "/health":
		name = "health"
	case "/version":
		name = "version"
	case "/":
		name = "root"
	case "/debug":
		name = "debug"
	case s.metricsPath():
		name = "metrics"
	default:
		return true
	}
	return slices.Contains(s.opts.Routes.Logged, name)
}

func (s *Server) metricsPath() string {
	if p := s.opts.Routes.MetricsPath; p != "" {
		return p
	}
	return "/prometheus/metrics"
}

// rooted serves h under the root path: a request outside it is 404.
func rooted(root string, h http.Handler) http.Handler {
	root = strings.TrimSuffix(root, "/")
	if root == "" {
		return h
	}
	strip := http.StripPrefix(root, h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == root {
			http.Redirect(w, r, root+"/", http.StatusMovedPermanently)
			return
		}
		if !strings.HasPrefix(r.URL.Path, root+"/") {
			fail(w, http.StatusNotFound, fmt.Sprintf("no route %s %s: calq serve's routes are under %s/", r.Method, r.URL.Path, root))
			return
		}
		rw := &rootWriter{ResponseWriter: w, root: root}
		strip.ServeHTTP(rw, r)
		rw.finish()
	})
}

// root is the root path without its last "/": what goes before a path
// the server names ("" at the root).
func (s *Server) root() string { return strings.TrimSuffix(s.opts.Routes.RootPath, "/") }

// debug is GET /debug.
// favicon is GET /favicon.ico: nothing, so that a browser opening the
// API does not fill the log with 404s.
func favicon(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusNoContent)
}
