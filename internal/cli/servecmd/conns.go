package servecmd

import (
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// connLimit is a listener that keeps at most max connections open: each
// may hold a goroutine, its buffers and up to MaxHeaderBytes of headers
// for --header-timeout before anyone knows whose it is. One accepted
// beyond is answered 503 with Retry-After (in plain HTTP; closed at once
// under TLS, whose handshake has not begun) and closed, so that neither
// memory nor goroutines grow with the connections clients open.
type connLimit struct {
	net.Listener
	max   int64
	tls   bool
	open  atomic.Int64
	spurn atomic.Int64 // connections refused
}

func limitConns(l net.Listener, max int, tls bool) *connLimit {
	return &connLimit{Listener: l, max: int64(max), tls: tls}
}

// Accept returns the next connection within the limit, refusing those
// beyond it on the way.
func (l *connLimit) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) <= l.max {
			return &countedConn{Conn: c, l: l}, nil
		}
		l.open.Add(-1)
		l.spurn.Add(1)
		l.refuse(c)
	}
}

const tooManyConns = "Too many connections to calq serve at once: try again in a second.\n"

// refuse answers c 503 and closes it. A new connection's send buffer
// takes the few bytes at once; the deadline is for a peer that is gone.
func (l *connLimit) refuse(c net.Conn) {
	if !l.tls {
		c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
		io.WriteString(c, "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\n"+
			"Content-Type: text/plain; charset=utf-8\r\nContent-Length: "+strconv.Itoa(len(tooManyConns))+"\r\n\r\n"+tooManyConns)
	}
	c.Close()
}

// countedConn gives its place back when it is closed.
type countedConn struct {
	net.Conn
	l    *connLimit
	once sync.Once
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.open.Add(-1) })
	return err
}

// ReadFrom lets a response's file go by sendfile, as on the bare
// connection.
func (c *countedConn) ReadFrom(r io.Reader) (int64, error) { return io.Copy(c.Conn, r) }
