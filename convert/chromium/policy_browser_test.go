package chromium

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"calq/internal/tooltest"
)

// startTimeout bounds the start of the browsers of the policy's pool
// tests: generous, as the machines that run them under -race are small
// and shared.
const startTimeout = 3 * time.Minute

// testServers is the policy of the pools of the tests that are not about
// the policy: every network, as Gotenberg's own suite runs, so that their
// loopback servers are reachable and a closed port is refused by the
// system (ERR_CONNECTION_REFUSED), not by a proxy.
var testServers = Policy{AllowAllNetworks: true}

// pathServer is a loopback HTTP server recording the paths it was asked
// for; /redirect sends the browser to target.
type pathServer struct {
	*httptest.Server
	mu     sync.Mutex
	paths  []string
	target string
}

func newPathServer(t *testing.T) *pathServer {
	t.Helper()
	s := &pathServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.paths = append(s.paths, r.URL.Path)
		target := s.target
		s.mu.Unlock()
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, target, http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		fmt.Fprint(w, "loopback secret")
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *pathServer) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.paths)
}

// hostilePage is a page that asks for the counting server at addr (and
// by name) in every way a page can, and for the metadata address; it sets
// window.done once its scripts' requests have settled.
func hostilePage(addr, name, redirect string) string {
	u := "http://" + addr
	return `<!doctype html><html><head>
<link rel="prefetch" href="` + u + `/prefetch">
<style>body { background: url(` + u + `/css); }</style>
</head><body>
<img src="` + u + `/img">
<img src="http://` + name + `/name">
<img src="http://169.254.169.254/latest/meta-data/">
<img src="` + redirect + `">
<iframe src="` + u + `/iframe"></iframe>
<script>
const settle = p => p.then(() => 1, () => 0);
const xhr = new Promise(r => { const x = new XMLHttpRequest(); x.onloadend = r; x.open("GET", "` + u + `/xhr"); x.send(); });
const ws = new Promise(r => { const s = new WebSocket("ws://` + addr + `/ws"); s.onerror = s.onclose = r; });
const loaded = new Promise(r => window.addEventListener("load", r));
Promise.all([settle(fetch("` + u + `/fetch")), xhr, ws, loaded]).then(() => { window.done = true; });
</script></body></html>`
}

// policyBrowser starts chromium with the switches of g, as the pool does,
// and returns a tab's context.
func policyBrowser(t *testing.T, g *gate) context.Context {
	t.Helper()
	path := tooltest.Require(t, "chromium")
	args, err := g.browserArgs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path),
		chromedp.UserDataDir(filepath.Join(dir, "profile")), chromedp.NoSandbox,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true))
	for _, a := range args {
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if hasValue {
			opts = append(opts, chromedp.Flag(name, value))
		} else {
			opts = append(opts, chromedp.Flag(name, true))
		}
	}
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancel(); allocCancel() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	tab, tabCancel := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(tabCancel)
	return tab
}

// TestBrowserGoesThroughProxy: chromium started with the gate's switches
// sends every request of a hostile page, loopback and link-local ones
// included, through the policy's proxy: with the default policy the
// loopback server gets nothing, and when AllowNetworks names it, it gets
// every kind of request.
func TestBrowserGoesThroughProxy(t *testing.T) {
	count := newPathServer(t)
	redir := newPathServer(t)
	redir.target = count.URL + "/redirected"
	_, port, _ := net.SplitHostPort(count.Listener.Addr().String())
	name := loopbackName(t) + ":" + port
	page := filepath.Join(t.TempDir(), "index.html")
	if err := os.WriteFile(page, []byte(hostilePage(count.Listener.Addr().String(), name, redir.URL+"/redirect")), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		allow []string
		want  []string // paths the counting server must see
	}{
		{"default", []string{redir.Listener.Addr().String()}, nil},
		{"allowed", []string{redir.Listener.Addr().String(), count.Listener.Addr().String()},
			[]string{"/css", "/fetch", "/iframe", "/img", "/name", "/redirected", "/ws", "/xhr"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := newGate(Policy{AllowNetworks: tt.allow})
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var refusals []string
			g.log = func(msg string) { mu.Lock(); refusals = append(refusals, msg); mu.Unlock() }
			t.Cleanup(func() { g.close() })
			before := len(count.seen())
			tab := policyBrowser(t, g)
			if err := chromedp.Do(tab, chromedp.Navigate("file://"+page)); err != nil {
				t.Fatal(err)
			}
			if _, err := chromedp.Run(tab, chromedp.Poll[bool]("window.done === true")); err != nil {
				t.Fatalf("waiting for the page's requests: %v", err)
			}
			got := count.seen()[before:]
			for _, p := range tt.want {
				if !slices.Contains(got, p) {
					t.Errorf("the loopback server did not get %s; it got %v", p, got)
				}
			}
			if tt.want == nil && len(got) > 0 {
				t.Errorf("the loopback server got %v, want nothing", got)
			}
			mu.Lock()
			all := strings.Join(refusals, "\n")
			mu.Unlock()
			// The metadata address is refused by the proxy: chromium did not
			// bypass it for a link-local destination.
			if !strings.Contains(all, "169.254.169.254 is a private") {
				t.Errorf("the proxy refused no request to 169.254.169.254; its refusals:\n%s", all)
			}
			if tt.want == nil && !strings.Contains(all, "127.0.0.1 is a private") {
				t.Errorf("the proxy refused no request to 127.0.0.1; its refusals:\n%s", all)
			}
			t.Logf("the loopback server got %v; the redirecting server %v; refusals:\n%s", got, redir.seen(), all)
		})
	}
}

// TestBrowserWebRTCNoUDP: WebRTC, which would open UDP sockets of its own
// outside any proxy, gathers no UDP candidate.
func TestBrowserWebRTCNoUDP(t *testing.T) {
	g, err := newGate(Policy{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.close() })
	page := filepath.Join(t.TempDir(), "rtc.html")
	html := `<!doctype html><script>
window.candidates = [];
const pc = new RTCPeerConnection({iceServers: [{urls: "stun:192.0.2.1:3478"}]});
pc.createDataChannel("x");
pc.onicecandidate = e => { if (e.candidate) window.candidates.push(e.candidate.candidate); else window.done = true; };
pc.createOffer().then(o => pc.setLocalDescription(o));
</script>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	tab := policyBrowser(t, g)
	if err := chromedp.Do(tab, chromedp.Navigate("file://"+page)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(tab, chromedp.Poll[bool]("window.done === true", chromedp.WithPollingTimeout(0))); err != nil {
		c, _ := chromedp.Run(tab, chromedp.Evaluate[[]string]("window.candidates"))
		t.Fatalf("waiting for ICE gathering to end: %v; candidates %q", err, c)
	}
	c, err := chromedp.Run(tab, chromedp.Evaluate[[]string]("window.candidates"))
	if err != nil {
		t.Fatal(err)
	}
	for _, cand := range c {
		if strings.Contains(strings.ToLower(cand), " udp ") {
			t.Errorf("WebRTC gathered a UDP candidate: %s", cand)
		}
	}
	t.Logf("candidates: %q", c)
}
