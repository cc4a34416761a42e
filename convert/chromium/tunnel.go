package chromium

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// tunnel answers a CONNECT: it connects to the destination under the
// policy, then copies both ways until either side closes or stays idle.
func (px *proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		http.Error(w, fmt.Sprintf("CONNECT %q: not host:port", r.Host), http.StatusBadRequest)
		return
	}
	if err := px.precheck(r.Context(), host, port); err != nil {
		px.fail(w, r, err)
		return
	}
	up, err := px.dialTunnel(r.Context(), r.Host)
	if err != nil {
		px.fail(w, r, err)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "CONNECT needs HTTP/1", http.StatusHTTPVersionNotSupported)
		return
	}
	conn, brw, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		conn.Close()
		up.Close()
		return
	}
	px.splice(&bufferedConn{Conn: conn, r: io.MultiReader(brw.Reader, conn)}, up)
}

// dialTunnel connects to address: directly under the policy, or through
// the upstream proxy with a CONNECT of its own.
func (px *proxy) dialTunnel(ctx context.Context, address string) (net.Conn, error) {
	if px.upstream == "" {
		return px.dialDirect(ctx, "tcp", address)
	}
	ctx, cancel := context.WithTimeout(ctx, px.lim.DialTimeout)
	defer cancel()
	c, err := (&net.Dialer{}).DialContext(ctx, "tcp", px.upstream)
	if err != nil {
		return nil, fmt.Errorf("connecting to the proxy server %s: %w", px.upstream, err)
	}
	if d, ok := ctx.Deadline(); ok {
		c.SetDeadline(d)
	}
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", address, address)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("it answered %s", resp.Status)
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("CONNECT %s through the proxy server %s: %w", address, px.upstream, err)
	}
	c.SetDeadline(time.Time{})
	return &bufferedConn{Conn: c, r: br}, nil
}

// splice copies between a and b until one side ends, then closes both.
func (px *proxy) splice(a, b net.Conn) {
	px.mu.Lock()
	if px.closing {
		px.mu.Unlock()
		a.Close()
		b.Close()
		return
	}
	px.tunnels[a], px.tunnels[b] = struct{}{}, struct{}{}
	px.wg.Add(1)
	px.mu.Unlock()
	defer px.wg.Done()
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, idleReader{src, px.lim.IdleTimeout})
		done <- struct{}{}
	}
	go cp(a, b)
	go cp(b, a)
	<-done
	a.Close()
	b.Close()
	<-done
	px.mu.Lock()
	delete(px.tunnels, a)
	delete(px.tunnels, b)
	px.mu.Unlock()
}

// idleReader ends a read that waits longer than timeout for data.
type idleReader struct {
	c       net.Conn
	timeout time.Duration
}

func (r idleReader) Read(p []byte) (int, error) {
	r.c.SetReadDeadline(time.Now().Add(r.timeout))
	n, err := r.c.Read(p)
	if errors.Is(err, net.ErrClosed) {
		err = io.EOF
	}
	return n, err
}
