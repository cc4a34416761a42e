package chromium

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// server is a loopback web server for the load tests: /status/N answers
// N (as a stylesheet with ?css), /echo prints the request's headers and cookies, / serves the page
// given as ?html=.
func server(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/status/{code}", func(w http.ResponseWriter, r *http.Request) {
		var code int
		fmt.Sscan(r.PathValue("code"), &code)
		if r.URL.Query().Has("css") { // else ORB blocks it, with no response
			w.Header().Set("Content-Type", "text/css")
		}
		w.WriteHeader(code)
		fmt.Fprint(w, "<html><body>status</body></html>")
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<html><body><p>ua=%s</p><p>x-one=%s</p><p>x-scoped=%s</p><p>cookie=%s</p></body></html>",
			r.UserAgent(), r.Header.Get("X-One"), r.Header.Get("X-Scoped"), r.Header.Get("Cookie"))
	})
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, r.URL.Query().Get("html"))
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// closedPort is a loopback address where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

var quick = Load{SkipNetworkIdleEvent: true, SkipNetworkAlmostIdleEvent: true}

// TestLoadOptions converts pages with each load option and checks the
// error, or the PDF's text.
func TestLoadOptions(t *testing.T) {
	p := shared.get(t)
	srv := server(t)
	dir := t.TempDir()
	closed := closedPort(t)
	file := func(name, html string) string { return writePage(t, dir, name, html) }
	later := `<html><body><p id="p">waiting</p><script>setTimeout(() => {
		document.getElementById("p").textContent = "ready"; window.status = "done"; window.ready = true;
		const d = document.createElement("div"); d.id = "late"; document.body.appendChild(d)}, 300)</script></body></html>`
	withImg := func(src string) string { return `<html><body><p>img</p><img src="` + src + `"></body></html>` }
	withCSS := func(href string) string {
		return `<html><head><link rel="stylesheet" href="` + href + `"></head><body><p>css</p></body></html>`
	}
	tests := []struct {
		name    string
		url     string
		load    Load
		wantErr error
		errText string   // in the error
		text    []string // in the PDF
		notText []string
	}{
		{"plain", file("plain.html", "<p>plain</p>"), quick, nil, "", []string{"plain"}, nil},
		{"network idle", file("idle.html", "<p>idle</p>"), Load{}, nil, "", []string{"idle"}, nil},
		{"wait delay", file("delay.html", later), Load{WaitDelay: 600 * time.Millisecond, SkipNetworkIdleEvent: true}, nil, "", []string{"ready"}, nil},
		{"window status", file("status.html", later), Load{WaitWindowStatus: "done", SkipNetworkIdleEvent: true}, nil, "", []string{"ready"}, nil},
		{"expression", file("expr.html", later), Load{WaitForExpression: "window.ready === true", SkipNetworkIdleEvent: true}, nil, "", []string{"ready"}, nil},
		{"thenable expression, awaited", file("expr4.html", later), Load{WaitForExpression: "(async () => window.ready === true)()", SkipNetworkIdleEvent: true}, nil, "", []string{"ready"}, nil},
		{"selector", file("sel.html", later), Load{WaitForSelector: "#late", SkipNetworkIdleEvent: true}, nil, "", []string{"ready"}, nil},
		{"expression throws", file("expr2.html", "<p>x</p>"), Load{WaitForExpression: "nosuchthing.x"}, ErrInvalidExpression, "nosuchthing", nil, nil},
		{"expression undefined", file("expr3.html", "<p>x</p>"), Load{WaitForExpression: "undefined"}, ErrInvalidExpression, "", nil, nil},
		{"selector invalid", file("sel2.html", "<p>x</p>"), Load{WaitForSelector: "##"}, ErrInvalidSelector, "##", nil, nil},
		{"main status", srv.URL + "/status/404", Load{FailOnHTTPStatusCodes: []int64{499}}, ErrHTTPStatus, "404", nil, nil},
		{"main status not listed", srv.URL + "/status/404", Load{FailOnHTTPStatusCodes: []int64{500}}, nil, "", []string{"status"}, nil},
		{"resource status", file("res.html", withCSS(srv.URL+"/status/503?css")), Load{FailOnResourceHTTPStatusCodes: []int64{599}},
			ErrResourceHTTPStatus, srv.URL + "/status/503?css - 503: Service Unavailable", nil, nil},
		{"resource status ignored domain", file("res2.html", withCSS(srv.URL+"/status/503?css")),
			Load{FailOnResourceHTTPStatusCodes: []int64{599}, IgnoreResourceHTTPStatusDomains: []string{"127.0.0.1"}}, nil, "", []string{"css"}, nil},
		{"resource loading failed", file("fail.html", withImg("http://"+closed+"/x.png")), Load{FailOnResourceLoadingFailed: true},
			ErrResourceLoadingFailed, "ERR_CONNECTION_REFUSED", nil, nil},
		{"resource loading failed not asked", file("fail2.html", withImg("http://"+closed+"/x.png")), Load{}, nil, "", []string{"img"}, nil},
		{"console exception", file("throw.html", `<p>t</p><script>throw new Error("boom calq")</script>`), Load{FailOnConsoleExceptions: true},
			ErrConsoleExceptions, "boom calq", nil, nil},
		{"console exception not asked", file("throw2.html", `<p>t</p><script>throw new Error("boom")</script>`), quick, nil, "", []string{"t"}, nil},
		{"main page fails", "http://" + closed + "/", quick, ErrLoadingFailed, "ERR_CONNECTION_REFUSED", nil, nil},
		{"headers, agent, cookies", srv.URL + "/echo", Load{UserAgent: "calq-test-agent",
			ExtraHTTPHeaders: []Header{{Name: "X-One", Value: "one"}, {Name: "X-Scoped", Value: "scoped", Scope: `/nomatch$`}},
			Cookies:          []Cookie{{Name: "flavour", Value: "oat", Domain: "127.0.0.1"}}},
			nil, "", []string{"ua=calq-test-agent", "x-one=one", "cookie=flavour=oat"}, []string{"x-scoped=scoped"}},
		{"scoped header", srv.URL + "/echo", Load{ExtraHTTPHeaders: []Header{{Name: "X-Scoped", Value: "scoped", Scope: `/echo$`}}},
			nil, "", []string{"x-scoped=scoped"}, nil},
		{"media screen", file("media.html", mediaPage), Load{EmulatedMediaType: "screen"}, nil, "", []string{"on screen"}, []string{"on paper"}},
		{"media print", file("media2.html", mediaPage), Load{}, nil, "", []string{"on paper"}, []string{"on screen"}},
		{"media feature", file("dark.html", `<style>p::after{content:"light"}@media (prefers-color-scheme: dark){p::after{content:"dark"}}</style><p></p>`),
			Load{EmulatedMediaFeatures: []MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}, nil, "", []string{"dark"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.pdf")
			err := p.PDF(t.Context(), Request{URL: tt.url, Dir: dir, Load: tt.load}, DefaultPDF(), out)
			checkErr(t, err, tt.wantErr, tt.errText, out)
			if err != nil {
				return
			}
			text := pdfText(t, out)
			for _, s := range tt.text {
				if !strings.Contains(text, s) {
					t.Errorf("text %q does not contain %q", text, s)
				}
			}
			for _, s := range tt.notText {
				if strings.Contains(text, s) {
					t.Errorf("text %q contains %q", text, s)
				}
			}
		})
	}
}

const mediaPage = `<style>@media screen{p::after{content:"on screen"}}@media print{p::after{content:"on paper"}}</style><p></p>`

// checkErr checks a conversion's error against want (nil: none) and the
// text it must hold; a failed conversion leaves no file at out.
func checkErr(t *testing.T, err, want error, text, out string) {
	t.Helper()
	switch {
	case want == nil && err != nil:
		t.Fatalf("got error %v, want none", err)
	case want != nil && !errors.Is(err, want):
		t.Fatalf("got error %v, want %v", err, want)
	case want != nil && !strings.Contains(err.Error(), text):
		t.Fatalf("got error %q, want it to contain %q", err, text)
	}
	if err != nil {
		if m, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "*")); len(m) > 0 {
			t.Errorf("a failed conversion left %v", m)
		}
	}
}

// TestIntercepted: the page's own requests, file:// ones included, go
// through the gate: a file outside the conversion's directory is refused
// as a page, an image, an iframe, a stylesheet or a fetch.
func TestIntercepted(t *testing.T) {
	p := shared.get(t)
	dir, other := t.TempDir(), t.TempDir()
	secret := writePage(t, other, "secret.html", "<p>SECRET-CALQ</p>")
	css := writePage(t, other, "secret.css", `body::after{content:"SECRET-CSS"}`)
	ok := writePage(t, dir, "ok.html", "<p>INSIDE-OK</p>")
	html := `<html><head><link rel="stylesheet" href="` + css + `"></head><body><p>host</p>
<iframe src="` + secret + `"></iframe><iframe src="` + ok + `"></iframe>
<p id="f">fetch pending</p><script>fetch("` + secret + `").then(r => r.text()).then(t => document.getElementById("f").textContent = t,
 e => document.getElementById("f").textContent = "fetch refused")</script></body></html>`
	url := writePage(t, dir, "host.html", html)
	out := filepath.Join(t.TempDir(), "out.pdf")
	if err := p.PDF(t.Context(), Request{URL: url, Dir: dir}, DefaultPDF(), out); err != nil {
		t.Fatalf("PDF: %v", err)
	}
	text := pdfText(t, out)
	if !regexp.MustCompile(`INSIDE-OK`).MatchString(text) {
		t.Errorf("text %q: the iframe inside the directory did not load", text)
	}
	for _, s := range []string{"SECRET-CALQ", "SECRET-CSS", "fetch pending"} {
		if strings.Contains(text, s) {
			t.Errorf("text %q contains %q", text, s)
		}
	}
	err := p.PDF(t.Context(), Request{URL: secret, Dir: dir}, DefaultPDF(), out)
	if !errors.Is(err, ErrRefused) {
		t.Errorf("a page outside the directory: got %v, want %v", err, ErrRefused)
	}
}
