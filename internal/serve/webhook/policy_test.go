package webhook

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

func TestPolicyCheck(t *testing.T) {
	tests := []struct {
		name    string
		allow   []string
		url     string
		refused bool
	}{
		{"public name", nil, "https://example.com/x", false},
		{"public address", nil, "http://8.8.8.8/x", false},
		{"name not resolved up front", nil, "http://internal.example/x", false},
		{"loopback", nil, "http://127.0.0.1:8080/x", true},
		{"loopback v6", nil, "http://[::1]:8080/x", true},
		{"mapped loopback", nil, "http://[::ffff:127.0.0.1]/x", true},
		{"zoned link-local", nil, "http://[fe80::1%25eth0]/x", true},
		{"metadata", nil, "http://169.254.169.254/latest/meta-data", true},
		{"localhost", nil, "http://localhost:3000/x", true},
		{"LOCALHOST.", nil, "http://LOCALHOST.:3000/x", true},
		{"sub.localhost", nil, "http://a.localhost/x", true},
		{"private allowed by CIDR", []string{"10.0.0.0/8"}, "http://10.9.8.7/x", false},
		{"other private still refused", []string{"10.0.0.0/8"}, "http://192.168.0.1/x", true},
		{"address allowed", []string{"192.168.0.1"}, "http://192.168.0.1:9/x", false},
		{"address with port, other port", []string{"192.168.0.1:8080"}, "http://192.168.0.1:9/x", true},
		{"address with port, that port", []string{"192.168.0.1:8080"}, "http://192.168.0.1:8080/x", false},
		{"v6 address with port", []string{"[::1]:8080"}, "http://[::1]:8080/x", false},
		{"bracketed v6 address", []string{"[::1]"}, "http://[::1]:9/x", false},
		{"localhost by CIDR", []string{"127.0.0.0/8"}, "http://localhost:3000/x", false},
		{"localhost by name", []string{"localhost"}, "http://localhost:3000/x", false},
		{"name with port, default port", []string{"localhost:80"}, "http://localhost/x", false},
		{"name with port, https default", []string{"localhost:80"}, "https://localhost/x", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewPolicy(tt.allow)
			if err != nil {
				t.Fatal(err)
			}
			u, err := url.Parse(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			err = p.Check(u)
			if got := errors.Is(err, ErrRefused); got != tt.refused {
				t.Errorf("Check(%s) = %v, want refused %v", tt.url, err, tt.refused)
			}
		})
	}
}

func TestNewPolicyErrors(t *testing.T) {
	for _, entry := range []string{"", "10.0.0.0/33", "host:notaport", "host:http", "host:0", "host:70000", "http://host/", "a b", "[::1"} {
		t.Run(entry, func(t *testing.T) {
			if _, err := NewPolicy([]string{entry}); err == nil || !strings.Contains(err.Error(), "webhook allow list") {
				t.Errorf("NewPolicy(%q) = %v, want an error naming the allow list", entry, err)
			}
		})
	}
}

func TestCheckRequestNamesHeader(t *testing.T) {
	r := &Request{URL: "https://example.com/x", Method: "POST", EventsURL: "http://127.0.0.1:9/e"}
	err := (&Policy{}).CheckRequest(r)
	var he *HeaderError
	if !errors.As(err, &he) || he.Header != HeaderEventsURL || !errors.Is(err, ErrRefused) {
		t.Fatalf("got %v, want a refusal naming %s", err, HeaderEventsURL)
	}
	if got, want := err.Error(), "Invalid 'Gotenberg-Webhook-Events-Url' header: 127.0.0.1 is a private, loopback or reserved address, which webhooks may not reach."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// countingServer is a loopback HTTP server counting the requests it got.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { n.Add(1) }))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestDialRefusesResolvedAddress dials a name that Check lets through and that resolves to loopback:
// the refusal must come at connect time, from the resolved address.
func TestDialRefusesResolvedAddress(t *testing.T) {
	srv, hits := countingServer(t)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	tests := []struct {
		name    string
		allow   []string
		refused bool
	}{
		{"no allow list", nil, true},
		{"other network allowed", []string{"10.0.0.0/8"}, true},
		{"loopback allowed", []string{"127.0.0.0/8"}, false},
		{"name allowed", []string{"localhost"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewPolicy(tt.allow)
			if err != nil {
				t.Fatal(err)
			}
			before := hits.Load()
			// Through the Sender's own client, bypassing Check: only the dialer stands in the way.
			s := NewSender(p, Options{})
			defer s.Close()
			resp, err := s.client.Get("http://localhost:" + strconv.Itoa(port) + "/")
			if err == nil {
				resp.Body.Close()
			}
			if got := errors.Is(err, ErrRefused); got != tt.refused {
				t.Fatalf("GET via localhost: %v, want refused %v", err, tt.refused)
			}
			if got, want := hits.Load()-before, map[bool]int32{true: 0, false: 1}[tt.refused]; got != want {
				t.Errorf("server got %d requests, want %d", got, want)
			}
		})
	}
}

func TestDialContextRefusesLiteral(t *testing.T) {
	srv, _ := countingServer(t)
	conn, err := (&Policy{}).DialContext(context.Background(), "tcp", srv.Listener.Addr().String())
	if err == nil {
		conn.Close()
		t.Fatal("dial to loopback succeeded without an allow list")
	}
	var re *RefusedError
	if !errors.As(err, &re) || re.Addr != netip.MustParseAddr("127.0.0.1") {
		t.Errorf("got %v, want a *RefusedError for 127.0.0.1", err)
	}
}
