package chromium

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// hostileTargets is a page asking, in every way a page can (img, iframe,
// fetch, XHR, WebSocket, CSS url(), link rel=prefetch, a redirect from
// an allowed server), for each of targets; it writes what its scripts read into the
// page, and sets window.done once they have settled.
func hostileTargets(redirect string, targets ...string) string {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><style>")
	for i, u := range targets {
		b.WriteString("#c" + string(rune('a'+i)) + " { background: url(" + u + "css); }\n")
	}
	b.WriteString("</style>")
	for _, u := range targets {
		b.WriteString(`<link rel="prefetch" href="` + u + `prefetch">`)
	}
	b.WriteString("</head><body><h1>PAGE-RENDERED</h1>")
	for i, u := range targets {
		b.WriteString(`<div id="c` + string(rune('a'+i)) + `">x</div><img src="` + u + `img"><iframe src="` + u + `"></iframe>`)
	}
	b.WriteString(`<img src="` + redirect + `"><iframe src="` + redirect + `"></iframe><pre id="out"></pre><script>
const out = document.getElementById("out");
const show = (u, p) => p.then(t => { out.textContent += u + " read: " + t + "\n"; }, e => { out.textContent += u + " failed\n"; });
const xhr = u => new Promise((ok, no) => { const x = new XMLHttpRequest(); x.onload = () => ok(x.responseText); x.onerror = no; x.open("GET", u); x.send(); });
const all = [];
for (const u of ` + jsList(append(targets, redirect)) + `) {
  all.push(show(u, fetch(u + (u.endsWith("/") ? "fetch" : "")).then(r => r.text())));
  all.push(show(u, xhr(u + (u.endsWith("/") ? "xhr" : ""))));
  if (u.startsWith("http") && u.endsWith("/")) {
    all.push(new Promise(r => { const s = new WebSocket("ws" + u.slice(4) + "ws"); s.onerror = s.onclose = r; }));
  }
}
all.push(new Promise(r => window.addEventListener("load", r)));
Promise.all(all).then(() => { window.done = true; });
</script></body></html>`)
	return b.String()
}

func jsList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = `"` + s + `"`
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// TestHostilePage prints, through the pool, a page that asks for a
// loopback server (by address, by a name, in decimal and hex), the
// metadata address, /etc/passwd and a file of
// another conversion: with the default policy none of them gives it
// anything; with AllowNetworks naming the loopback server, that server
// (and it alone) is reached.
func TestHostilePage(t *testing.T) {
	requireChromium(t)
	count := newPathServer(t)
	redir := newPathServer(t)
	redir.target = count.URL + "/redirected"
	root := t.TempDir()
	mine, other := filepath.Join(root, "job1"), filepath.Join(root, "job2")
	for _, d := range []string{mine, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(other, "secret.txt"), []byte("OTHER-JOB-SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(count.Listener.Addr().String())
	page := writePage(t, mine, "index.html", hostileTargets(redir.URL+"/redirect",
		count.URL+"/", "http://"+loopbackName(t)+":"+port+"/", "http://169.254.169.254/latest/meta-data/",
		"http://2130706433:"+port+"/", "http://0x7f.1:"+port+"/",
		"file:///etc/passwd", "file://"+other+"/secret.txt"))
	tests := []struct {
		name    string
		allow   []string
		reached []string // the paths the loopback server must get
		read    bool     // whether the page could read its answer
	}{
		{"default", []string{redir.Listener.Addr().String()}, nil, false},
		{"loopback server allowed", []string{redir.Listener.Addr().String(), count.Listener.Addr().String()},
			[]string{"/css", "/fetch", "/img", "/redirected", "/ws", "/xhr"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var logged []string
			logf := func(msg string) { mu.Lock(); logged = append(logged, msg); mu.Unlock() }
			p, err := New(Config{Browsers: 1, Tabs: 1, StartTimeout: startTimeout, Policy: Policy{AllowNetworks: tt.allow}, Log: logf})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			before := len(count.seen())
			out := filepath.Join(t.TempDir(), "out.pdf")
			r := Request{URL: page, Dir: mine, Load: Load{WaitForExpression: "window.done === true"}}
			if err := p.PDF(t.Context(), r, DefaultPDF(), out); err != nil {
				t.Fatalf("PDF: %v", err)
			}
			got := count.seen()[before:]
			text := pdfText(t, out)
			for _, p := range tt.reached {
				if !slices.Contains(got, p) {
					t.Errorf("the loopback server did not get %s; it got %v", p, got)
				}
			}
			if tt.reached == nil && len(got) > 0 {
				t.Errorf("the loopback server got %v, want nothing", got)
			}
			if !strings.Contains(text, "PAGE-RENDERED") {
				t.Errorf("the PDF does not show the page; its text:\n%s", text)
			}
			for _, secret := range []string{"root:x:0:0", "OTHER-JOB-SECRET"} {
				if strings.Contains(text, secret) {
					t.Errorf("the PDF shows %q; its text:\n%s", secret, text)
				}
			}
			if tt.reached == nil {
				// The WebSocket's handshake is refused by the proxy; the
				// log says which URL, as for every other refusal.
				ws := "'ws" + strings.TrimPrefix(count.URL, "http") + "/ws' targets a non-public address"
				mu.Lock()
				all := strings.Join(logged, "\n")
				mu.Unlock()
				if !strings.Contains(all, ws) {
					t.Errorf("the log lacks %q; it has:\n%s", ws, all)
				}
			}
			if got := strings.Contains(text, "loopback secret"); got != tt.read {
				t.Errorf("the PDF shows the loopback server's answer: %v, want %v; its text:\n%s", got, tt.read, text)
			}
		})
	}
}

// TestPoolUnreachable: through the policy's proxy, a main page or a
// resource on a closed port fails to load, as it does without a proxy.
func TestPoolUnreachable(t *testing.T) {
	requireChromium(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	p, err := New(Config{Browsers: 1, Tabs: 1, StartTimeout: startTimeout, Policy: Policy{AllowNetworks: []string{"127.0.0.1"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	dir := t.TempDir()
	tests := []struct {
		name string
		r    Request
		want error
	}{
		{"main page", Request{URL: "http://" + closed + "/", Dir: dir}, ErrLoadingFailed},
		{"resource", Request{URL: writePage(t, dir, "img.html", `<p>img</p><img src="http://`+closed+`/x.png">`), Dir: dir,
			Load: Load{FailOnResourceLoadingFailed: true}}, ErrResourceLoadingFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := p.PDF(t.Context(), tt.r, DefaultPDF(), filepath.Join(t.TempDir(), "out.pdf"))
			if !errors.Is(err, tt.want) {
				t.Errorf("PDF: %v, want %v", err, tt.want)
			}
		})
	}
}
