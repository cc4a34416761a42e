package chromium

import (
	"bufio"
	"calq/internal/tooltest"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"calq/internal/netpolicy"
)

// countingServer is a loopback HTTP server counting the requests it got;
// it answers with the request's headers, one per line.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		for k, v := range r.Header {
			fmt.Fprintf(w, "%s: %s\n", k, strings.Join(v, ","))
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// testProxy starts a proxy over a policy allowing allow, closed with t.
func testProxy(t *testing.T, allow []string, upstream string, lim proxyLimits, rules ...string) *proxy {
	t.Helper()
	np, err := netpolicy.New(allow)
	if err != nil {
		t.Fatal(err)
	}
	hr, err := parseHostRules(strings.Join(rules, ","))
	if err != nil {
		t.Fatal(err)
	}
	px, err := startProxy(context.Background(), proxyConfig{policy: np, upstream: upstream, rules: hr, limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { px.close() })
	return px
}

// viaProxy GETs target through px as a browser does: absolute http
// requests, CONNECT for the others. It returns the status and body.
func viaProxy(t *testing.T, px *proxy, method, target string) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", px.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	if method == http.MethodConnect {
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			t.Fatalf("CONNECT %s: %v", target, err)
		}
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target)
	} else {
		fmt.Fprintf(c, "GET http://%s/ HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target, target)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// loopbackName is a host name (not localhost) that resolves to a loopback
// address on this machine: its own host name, as /etc/hosts usually has
// it.
func loopbackName(t *testing.T) string {
	t.Helper()
	h, err := os.Hostname()
	if err != nil {
		tooltest.Unavailable(t, "no host name: %v", err)
	}
	addrs, err := net.LookupIP(h)
	if err != nil || len(addrs) == 0 || !addrs[0].IsLoopback() {
		tooltest.Unavailable(t, "the host name %q does not resolve to loopback (%v, %v): /etc/hosts should map it", h, addrs, err)
	}
	return h
}

func TestProxyPolicy(t *testing.T) {
	srv, hits := countingServer(t)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	name := loopbackName(t)
	runProxyCases(t, hits, nil, []proxyCase{
		{"loopback refused", nil, http.MethodGet, srv.Listener.Addr().String(), 403, "'" + srv.URL + "/' targets a non-public address: 127.0.0.1 is a private, loopback or reserved address"},
		{"loopback allowed", []string{"127.0.0.1"}, http.MethodGet, srv.Listener.Addr().String(), 200, ""},
		{"loopback allowed with its port", []string{srv.Listener.Addr().String()}, http.MethodGet, srv.Listener.Addr().String(), 200, ""},
		{"loopback, other port allowed", []string{"127.0.0.1:1"}, http.MethodGet, srv.Listener.Addr().String(), 403, "private, loopback or reserved"},
		{"localhost refused", nil, http.MethodGet, fmt.Sprintf("localhost:%d", port), 403, "localhost is"},
		{"name resolving to loopback refused at connect time", nil, http.MethodGet, fmt.Sprintf("%s:%d", name, port), 403, name + " is 127."},
		{"name resolving to loopback allowed by network", []string{"127.0.0.0/8"}, http.MethodGet, fmt.Sprintf("%s:%d", name, port), 200, ""},
		{"metadata refused", nil, http.MethodGet, "169.254.169.254:80", 403, "169.254.169.254 is a private"},
		{"CONNECT loopback refused", nil, http.MethodConnect, srv.Listener.Addr().String(), 403, "CONNECT blocked for '" + srv.Listener.Addr().String() + "': 127.0.0.1 is a private, loopback or reserved address"},
		{"CONNECT name resolving to loopback refused", nil, http.MethodConnect, fmt.Sprintf("%s:%d", name, port), 403, name + " is 127."},
		{"CONNECT metadata v6 refused", nil, http.MethodConnect, "[fd00:ec2::254]:443", 403, "fd00:ec2::254 is a private"},
		{"CONNECT loopback allowed", []string{"127.0.0.1"}, http.MethodConnect, srv.Listener.Addr().String(), 200, ""},
	})
}

// proxyCase is a request through a proxy allowing allow, and its answer:
// the status and a part of the body.
type proxyCase struct {
	name   string
	allow  []string
	method string
	target string
	status int
	why    string
}

// runProxyCases runs each case through a proxy of its own, with the host
// resolver rules, and checks that the server counting hits got the
// request if and only if the answer is 200.
func runProxyCases(t *testing.T, hits *atomic.Int32, rules []string, cases []proxyCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			px := testProxy(t, tt.allow, "", proxyLimits{}, rules...)
			before := hits.Load()
			status, body := viaProxy(t, px, tt.method, tt.target)
			if status != tt.status || !strings.Contains(body, tt.why) {
				t.Errorf("%s %s: got %d %q, want %d with %q", tt.method, tt.target, status, body, tt.status, tt.why)
			}
			if got, want := hits.Load()-before, map[bool]int32{true: 1, false: 0}[tt.status == 200]; got != want {
				t.Errorf("the server got %d requests, want %d", got, want)
			}
		})
	}
}

// TestProxyHopByHop: the proxy drops the hop-by-hop headers, those the
// Connection header names and its own credentials, and adds no
// X-Forwarded-For that would tell the destination about calq.
func TestProxyHopByHop(t *testing.T) {
	srv, _ := countingServer(t)
	px := testProxy(t, []string{"127.0.0.1"}, "", proxyLimits{})
	c, err := net.Dial("tcp", px.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET %s/ HTTP/1.1\r\nHost: %s\r\nConnection: close, X-Private\r\nX-Private: 1\r\n"+
		"Proxy-Authorization: Basic eDp5\r\nProxy-Connection: keep-alive\r\nKeep-Alive: 30\r\nX-Kept: yes\r\n\r\n",
		srv.URL, srv.Listener.Addr())
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	got := string(b)
	for _, h := range []string{"X-Private", "Proxy-Authorization", "Proxy-Connection", "Keep-Alive", "X-Forwarded-For"} {
		if strings.Contains(got, h+":") {
			t.Errorf("the server got %s; its headers:\n%s", h, got)
		}
	}
	if !strings.Contains(got, "X-Kept: yes") {
		t.Errorf("the server did not get X-Kept; its headers:\n%s", got)
	}
}

// TestProxyOnlyProxies: a request that is not a proxy's (origin form, as
// a page could send to the proxy itself) is refused.
func TestProxyOnlyProxies(t *testing.T) {
	px := testProxy(t, nil, "", proxyLimits{})
	resp, err := http.Get("http://" + px.addr() + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("GET / on the proxy: got %d, want 400", resp.StatusCode)
	}
}

// TestProxyUpstream: with Config.ProxyServer, requests the policy allows
// go through that proxy (here a second proxy, whose own refusal shows they
// did), and those it refuses go nowhere.
func TestProxyUpstream(t *testing.T) {
	srv, hits := countingServer(t)
	tests := []struct {
		name          string
		allow, inner  []string
		method        string
		status        int
		why           string
		upstreamTried bool
	}{
		{"allowed, the other proxy too", []string{"127.0.0.1"}, []string{"127.0.0.1"}, http.MethodGet, 200, "", true},
		{"allowed, the other proxy refuses", []string{"127.0.0.1"}, nil, http.MethodGet, 403, "127.0.0.1 is a private", true},
		{"refused here", nil, []string{"127.0.0.1"}, http.MethodGet, 403, "127.0.0.1 is a private", false},
		{"CONNECT allowed, the other proxy too", []string{"127.0.0.1"}, []string{"127.0.0.1"}, http.MethodConnect, 200, "", true},
		{"CONNECT allowed, the other proxy refuses", []string{"127.0.0.1"}, nil, http.MethodConnect, 502, "it answered 403 Forbidden", true},
		{"CONNECT refused here", nil, []string{"127.0.0.1"}, http.MethodConnect, 403, "127.0.0.1 is a private", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inner := testProxy(t, tt.inner, "", proxyLimits{})
			outer := testProxy(t, tt.allow, inner.addr(), proxyLimits{})
			before := hits.Load()
			status, body := viaProxy(t, outer, tt.method, srv.Listener.Addr().String())
			if status != tt.status || !strings.Contains(body, tt.why) {
				t.Errorf("got %d %q, want %d with %q", status, body, tt.status, tt.why)
			}
			if got := inner.ln.peak.Load() > 0; got != tt.upstreamTried {
				t.Errorf("the other proxy was reached: %v, want %v", got, tt.upstreamTried)
			}
			if got, want := hits.Load()-before, map[bool]int32{true: 1, false: 0}[tt.status == 200]; got != want {
				t.Errorf("the server got %d requests, want %d", got, want)
			}
		})
	}
}

// TestProxyUnreachable: a destination that cannot be reached gets the
// browser a failed load, not an answer it would take for the
// destination's: a plain request's connection is reset, a CONNECT
// answered 502.
func TestProxyUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	px := testProxy(t, []string{"127.0.0.1"}, "", proxyLimits{})
	if status, body := viaProxy(t, px, http.MethodConnect, closed); status != http.StatusBadGateway || !strings.Contains(body, "connection refused") {
		t.Errorf("CONNECT %s: got %d %q, want 502 saying connection refused", closed, status, body)
	}
	c, err := net.Dial("tcp", px.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET http://%s/ HTTP/1.1\r\nHost: %s\r\n\r\n", closed, closed)
	if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
		t.Errorf("GET http://%s/: got %s, want the connection reset", closed, resp.Status)
	}
}
