package servecmd

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestConnLimit: calq serve's HTTP side keeps at most --max-connections
// open; one beyond is answered 503 with Retry-After at once, and a
// connection closed makes room.
func TestConnLimit(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	entered := make(chan struct{}, 2)
	srv := newHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			entered <- struct{}{}
			<-release
		}
	}), time.Minute, slog.New(slog.DiscardHandler))
	limited := limitConns(ln, 2, false)
	go srv.Serve(limited)
	defer srv.Close()
	addr := ln.Addr().String()

	ask := func(path string) (net.Conn, *bufio.Reader) {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n")
		return c, bufio.NewReader(c)
	}
	var held []net.Conn
	for range 2 {
		c, _ := ask("/hold")
		held = append(held, c)
		<-entered
	}
	c, br := ask("/")
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	c.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" || !strings.Contains(string(b), "Too many connections") {
		t.Errorf("a third connection: %d (Retry-After %q) %q, want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}
	if limited.spurn.Load() != 1 {
		t.Errorf("refused %d connections, want 1", limited.spurn.Load())
	}
	close(release)
	for _, c := range held {
		c.Close()
	}
	// The server closes its side when it reads the end of each: retry
	// until there is room.
	for {
		c, br := ask("/")
		resp, err := http.ReadResponse(br, nil)
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == http.StatusOK {
			break
		}
	}
}

// TestHTTPServerBounds: what a client can hold of calq serve's HTTP side
// before it is known whose the request is.
func TestHTTPServerBounds(t *testing.T) {
	srv := newHTTPServer(http.NotFoundHandler(), 10*time.Second, slog.New(slog.DiscardHandler))
	got := []any{srv.ReadHeaderTimeout, srv.MaxHeaderBytes, srv.IdleTimeout, srv.HTTP2 != nil && srv.HTTP2.MaxConcurrentStreams == maxStreamsPerConn}
	want := []any{10 * time.Second, 64 << 10, 2 * time.Minute, true}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("http.Server bounds: %v, want %v", got, want)
			break
		}
	}
}
