package chromium

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestProxySlowClient: a client that never finishes its request's header
// is disconnected once the header timeout passes, and a header over the
// limit is answered 431 without being forwarded.
func TestProxySlowClient(t *testing.T) {
	srv, hits := countingServer(t)
	px := testProxy(t, []string{"127.0.0.1"}, "", proxyLimits{HeaderTimeout: 50 * time.Millisecond, MaxHeaderBytes: 4 << 10})
	t.Run("slow header", func(t *testing.T) {
		c, err := net.Dial("tcp", px.addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "GET %s/ HTTP/1.1\r\nHost: x\r\n", srv.URL) // and never the empty line
		// The read ends when the proxy closes the connection; the test's
		// own deadline bounds it should the proxy never do so.
		if d, ok := t.Deadline(); ok {
			c.SetReadDeadline(d)
		}
		b, err := io.ReadAll(c)
		if err != nil {
			t.Fatalf("reading until the proxy closes: %v (got %q)", err, b)
		}
		if hits.Load() != 0 {
			t.Errorf("the server got %d requests, want 0", hits.Load())
		}
	})
	t.Run("huge header", func(t *testing.T) {
		c, err := net.Dial("tcp", px.addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "GET %s/ HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n", srv.URL, strings.Repeat("a", 64<<10))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge || hits.Load() != 0 {
			t.Errorf("got %d and %d requests at the server, want 431 and 0", resp.StatusCode, hits.Load())
		}
	})
}

// TestProxyConnectionCap: with MaxConns connections open, the next waits
// to be served until one closes; the proxy never holds more.
func TestProxyConnectionCap(t *testing.T) {
	const max = 4
	srv, _ := countingServer(t)
	px := testProxy(t, []string{"127.0.0.1"}, "", proxyLimits{MaxConns: max})
	var idle []net.Conn
	for range max + 3 {
		c, err := net.Dial("tcp", px.addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		idle = append(idle, c)
	}
	waitFor(t, "the proxy to hold its connections", func() bool { return px.ln.n.Load() == max })
	last, err := net.Dial("tcp", px.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer last.Close()
	fmt.Fprintf(last, "GET %s/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", srv.URL)
	answered := make(chan error, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(last), nil)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
		answered <- err
	}()
	for _, c := range idle { // free the slots, the waiting connections first
		c.Close()
	}
	if err := <-answered; err != nil {
		t.Fatalf("the last connection: %v", err)
	}
	if got := px.ln.peak.Load(); got != max {
		t.Errorf("the proxy held at most %d connections, want %d", got, max)
	}
}

// TestProxyCloseEndsTunnels: closing the proxy closes the tunnels it
// holds, and returns once their goroutines are done.
func TestProxyCloseEndsTunnels(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // a destination that accepts and never writes
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	px := testProxy(t, []string{"127.0.0.1"}, "", proxyLimits{})
	c, err := net.Dial("tcp", px.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: x\r\n\r\n", ln.Addr())
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	waitFor(t, "the tunnel", func() bool { px.mu.Lock(); defer px.mu.Unlock(); return len(px.tunnels) == 2 })
	if err := px.close(); err != nil {
		t.Fatal(err)
	}
	if d, ok := t.Deadline(); ok {
		c.SetReadDeadline(d)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("reading the tunnel after close: %v, want EOF", err)
	}
}
