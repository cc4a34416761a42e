package serve

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"calq/internal/serve/form"
)

// traced gives every reply of h a Gotenberg-Trace, as Gotenberg does on
// all its routes (errors, /health, /version and the metrics included):
// the client's own when it is usable, else a new one, which a request
// without one then carries so that the job it becomes keeps the same (a
// request with an unusable one is refused by form.Headers). Once the reply
// is written, one log line tells its method, path, status, size, time and
// trace (correlation_id, Gotenberg's name for it, which its users' log
// searches look for), unless the route is a quiet one (routeLogged).
func (s *Server) traced(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		trace, _ := form.TraceOf(r.Header)
		if r.Header.Get(form.TraceHeader) == "" {
			r.Header.Set(form.TraceHeader, trace)
		}
		w.Header().Set(form.TraceHeader, trace)
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(rec, r)
		if !s.routeLogged(strings.TrimPrefix(r.URL.Path, s.root())) {
			return // a quiet route: health checks every few seconds
		}
		s.opts.Log.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("correlation_id", trace), slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", rec.status), slog.Int64("bytes_out", rec.bytes),
			slog.Duration("latency", time.Since(start)))
	})
}

// recorder keeps the status and the size of a reply. It unwraps, so that
// http.NewResponseController reaches the connection's deadlines, and
// flushes, for the pages' live updates.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
	wrote  bool
}

func (r *recorder) WriteHeader(status int) {
	if !r.wrote && status >= 200 { // not an interim 1xx
		r.status, r.wrote = status, true
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

func (r *recorder) Flush() {
	r.wrote = true
	http.NewResponseController(r.ResponseWriter).Flush()
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
