package serve

import (
	"bytes"
	"net/http"
	"regexp"
	"strings"
)

// rootWriter puts the root path before the paths a reply names, for the
// pages and handlers are written for a server at the root: a Location
// header and, in an HTML page, the href, src, action and data-src
// attributes that begin with one "/". An HTML page is held until its
// handler ends (finish); everything else passes through, flushes
// included (a job's event stream).
type rootWriter struct {
	http.ResponseWriter
	root   string
	html   *bytes.Buffer // an HTML page's body, held
	status int
	wrote  bool
}

func (w *rootWriter) WriteHeader(code int) {
	if w.wrote {
		return
	}
	w.wrote = true
	h := w.Header()
	if loc := h.Get("Location"); strings.HasPrefix(loc, "/") && !strings.HasPrefix(loc, "//") {
		h.Set("Location", w.root+loc)
	}
	if strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		w.html, w.status = &bytes.Buffer{}, code
		h.Del("Content-Length")
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *rootWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", http.DetectContentType(p))
		}
		w.WriteHeader(http.StatusOK)
	}
	if w.html != nil {
		return w.html.Write(p)
	}
	return w.ResponseWriter.Write(p)
}

// Flush passes a flush on, but for an HTML page, written at its end.
func (w *rootWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && w.html == nil {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's deadlines.
func (w *rootWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish writes the HTML page held, its paths under the root.
func (w *rootWriter) finish() {
	if w.html == nil {
		return
	}
	w.ResponseWriter.WriteHeader(w.status)
	w.ResponseWriter.Write(pagePath.ReplaceAllFunc(w.html.Bytes(), func(m []byte) []byte {
		i := bytes.IndexByte(m, '"') + 1
		return append(append(append([]byte{}, m[:i]...), w.root...), m[i:]...)
	}))
}

// pagePath is an attribute of a page that names a path of the server:
// one "/" then anything but a second "/" (a URL without its scheme).
var pagePath = regexp.MustCompile(`\b(?:href|src|action|data-src)="/(?:[^/"]|")`)
