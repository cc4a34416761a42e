package chromium

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestHostRules(t *testing.T) {
	rules, err := parseHostRules("MAP mapped.test 127.0.0.1, MAP *.wild.test 10.0.0.1:8080 ,EXCLUDE keep.other.test, MAP *.other.test [::1], MAP gone.test ~NOTFOUND, MAP port.test:81 1.2.3.4")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		host, port string
		want       string // host:port, or the error
	}{
		{"mapped.test", "80", "127.0.0.1:80"},
		{"MAPPED.test", "443", "127.0.0.1:443"},
		{"a.wild.test", "80", "10.0.0.1:8080"},
		{"wild.test", "80", "wild.test:80"},
		{"keep.other.test", "80", "keep.other.test:80"},
		{"x.other.test", "80", "[::1]:80"},
		{"gone.test", "80", "gone.test: no such host (host resolver rules)"},
		{"port.test", "81", "1.2.3.4:81"},
		{"port.test", "80", "port.test:80"},
		{"example.com", "443", "example.com:443"},
	}
	for _, tt := range tests {
		t.Run(tt.host+":"+tt.port, func(t *testing.T) {
			h, p, err := rules.apply(tt.host, tt.port)
			got := net.JoinHostPort(h, p)
			if err != nil {
				got = err.Error()
				if !errors.Is(err, errNotFound) {
					t.Errorf("%v does not wrap errNotFound", err)
				}
			}
			if got != tt.want {
				t.Errorf("apply(%s, %s) = %s, want %s", tt.host, tt.port, got, tt.want)
			}
		})
	}
}

func TestHostRulesErrors(t *testing.T) {
	for _, tt := range []struct{ rules, want string }{
		{"MAP a", `host resolver rule "MAP a": want "MAP pattern replacement" or "EXCLUDE pattern"`},
		{"MAP a b, FOO x", `host resolver rule "FOO x"`},
		{"MAP a b:0", `host resolver rule "MAP a b:0": replacement "b:0": bad port`},
		{"MAP [a b", `host resolver rule "MAP [a b": pattern "[a"`},
	} {
		t.Run(tt.rules, func(t *testing.T) {
			_, err := newGate(Policy{}, egress{resolverRules: tt.rules})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("newGate with rules %q = %v, want an error containing %q", tt.rules, err, tt.want)
			}
		})
	}
}

// TestProxyHostRules: the proxy connects where the rules map a name, and
// checks the policy on that address.
func TestProxyHostRules(t *testing.T) {
	srv, hits := countingServer(t)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	runProxyCases(t, hits, []string{"MAP mapped.test 127.0.0.1", "MAP gone.test ~NOTFOUND"}, []proxyCase{
		{"mapped to loopback, refused", nil, http.MethodGet, "mapped.test:" + port, 403, "127.0.0.1 is a private"},
		{"mapped to loopback, allowed", []string{"127.0.0.1"}, http.MethodGet, "mapped.test:" + port, 200, ""},
		{"CONNECT mapped to loopback, refused", nil, http.MethodConnect, "mapped.test:" + port, 403, "CONNECT blocked for 'mapped.test:" + port + "'"},
		{"CONNECT mapped to loopback, allowed", []string{"127.0.0.1"}, http.MethodConnect, "mapped.test:" + port, 200, ""},
		{"not found", []string{"127.0.0.1"}, http.MethodConnect, "gone.test:80", 502, "no such host (host resolver rules)"},
	})
}

// TestPoolHostRules: Config.HostResolverRules still map names when the
// pool's browsers send their requests through the policy's proxy.
func TestPoolHostRules(t *testing.T) {
	requireChromium(t)
	count := newPathServer(t)
	_, port, _ := net.SplitHostPort(count.Listener.Addr().String())
	p, err := New(Config{Browsers: 1, Tabs: 1, StartTimeout: startTimeout, HostResolverRules: "MAP mapped.test 127.0.0.1",
		Policy: Policy{AllowNetworks: []string{count.Listener.Addr().String()}}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	dir := t.TempDir()
	page := writePage(t, dir, "index.html", fmt.Sprintf(`<p>mapped</p><img src="http://mapped.test:%s/mapped">`, port))
	if err := p.PDF(t.Context(), Request{URL: page, Dir: dir}, DefaultPDF(), filepath.Join(t.TempDir(), "out.pdf")); err != nil {
		t.Fatalf("PDF: %v", err)
	}
	if got := count.seen(); !slices.Contains(got, "/mapped") {
		t.Errorf("the server got %v, want /mapped", got)
	}
}
