package chromium

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"calq/internal/netpolicy"
)

// proxyLimits bound the policy's proxy; zero fields take the defaults.
type proxyLimits struct {
	MaxConns       int           // connections served at once; more wait to be accepted (256)
	HeaderTimeout  time.Duration // to read a request's header (10 s)
	MaxHeaderBytes int           // of a request's header (64 KiB)
	IdleTimeout    time.Duration // a tunnel or kept-alive connection with no traffic is closed (60 s)
	DialTimeout    time.Duration // to connect to a destination (15 s)
}

func (l proxyLimits) withDefaults() proxyLimits {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	if l.MaxConns <= 0 {
		l.MaxConns = 256
	}
	if l.MaxHeaderBytes <= 0 {
		l.MaxHeaderBytes = 64 << 10
	}
	def(&l.HeaderTimeout, 10*time.Second)
	def(&l.IdleTimeout, 60*time.Second)
	def(&l.DialTimeout, 15*time.Second)
	return l
}

// proxyConfig is what a proxy enforces and where it connects.
type proxyConfig struct {
	policy   *netpolicy.Policy
	upstream string    // host:port of Config.ProxyServer, or ""
	rules    hostRules // Config.HostResolverRules, applied when upstream is ""
	limits   proxyLimits
	log      func(msg string) // when set, told of each refusal
}

// proxy is a forward HTTP proxy on loopback through which browsers send
// their requests: plain http requests are forwarded, CONNECT (https, wss)
// tunnelled, each after the policy allowed the address it connects to.
type proxy struct {
	np       *netpolicy.Policy
	upstream string
	rules    hostRules
	lim      proxyLimits
	log      func(msg string)
	ln       *limitListener
	srv      *http.Server
	fwd      *httputil.ReverseProxy
	tr       *http.Transport

	mu      sync.Mutex
	tunnels map[net.Conn]struct{} // hijacked connections, closed by close
	closing bool
	wg      sync.WaitGroup

	refused atomic.Int64 // requests refused by the policy
}

// startProxy listens on 127.0.0.1 and serves until close.
func startProxy(ctx context.Context, c proxyConfig) (*proxy, error) {
	lim := c.limits.withDefaults()
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening on loopback: %w", err)
	}
	px := &proxy{np: c.policy, upstream: c.upstream, rules: c.rules, lim: lim, log: c.log,
		tunnels: map[net.Conn]struct{}{}, ln: newLimitListener(ln, lim.MaxConns)}
	px.tr = px.transport()
	px.fwd = &httputil.ReverseProxy{
		Rewrite:      func(pr *httputil.ProxyRequest) {}, // the request is already absolute; hop-by-hop headers are dropped
		Transport:    px.tr,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) { px.fail(w, r, err) },
	}
	px.srv = &http.Server{
		Handler:           px,
		ReadHeaderTimeout: lim.HeaderTimeout,
		ReadTimeout:       lim.IdleTimeout,
		IdleTimeout:       lim.IdleTimeout,
		MaxHeaderBytes:    lim.MaxHeaderBytes,
	}
	go px.srv.Serve(px.ln)
	return px, nil
}

// transport is the client that forwards plain http requests: through
// dialDirect, or to the upstream proxy.
func (px *proxy) transport() *http.Transport {
	tr := &http.Transport{
		DialContext:            px.dialDirect,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        px.lim.IdleTimeout,
		ResponseHeaderTimeout:  px.lim.IdleTimeout,
		MaxResponseHeaderBytes: 1 << 20,
		DisableCompression:     true, // the browser's Accept-Encoding goes as it is
	}
	if px.upstream != "" {
		tr.DialContext = (&net.Dialer{Timeout: px.lim.DialTimeout}).DialContext
		tr.Proxy = http.ProxyURL(&url.URL{Scheme: "http", Host: px.upstream})
	}
	return tr
}

// addr is the proxy's host:port.
func (px *proxy) addr() string { return px.ln.Addr().String() }

func (px *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		px.tunnel(w, r)
		return
	}
	if r.URL.Scheme != "http" || r.URL.Host == "" {
		http.Error(w, "calq's page proxy forwards absolute http:// requests and CONNECT only", http.StatusBadRequest)
		return
	}
	port := r.URL.Port()
	if port == "" {
		port = "80"
	}
	if err := px.precheck(r.Context(), r.URL.Hostname(), port); err != nil {
		px.fail(w, r, err)
		return
	}
	px.fwd.ServeHTTP(w, r)
}

// precheck refuses a literal refused address or localhost at once and,
// when another proxy makes the connection, the addresses the name
// resolves to here (the best calq can do: that proxy resolves it again).
func (px *proxy) precheck(ctx context.Context, host, port string) error {
	if px.upstream == "" {
		h, p, err := px.rules.apply(host, port)
		if err != nil {
			return err
		}
		return px.np.CheckHost(h, p) // dialDirect checks the address at connect time
	}
	if err := px.np.CheckHost(host, port); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, px.lim.DialTimeout)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("resolving %s: %w", host, err)
	}
	for _, a := range addrs {
		if err := px.np.CheckAddr(host, a, port); err != nil {
			return err
		}
	}
	return nil
}

// dialDirect connects, after the host resolver rules, under the policy,
// checked on the resolved address.
func (px *proxy) dialDirect(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", address, err)
	}
	if host, port, err = px.rules.apply(host, port); err != nil {
		return nil, fmt.Errorf("dial %s: %w", address, err)
	}
	ctx, cancel := context.WithTimeout(ctx, px.lim.DialTimeout)
	defer cancel()
	return px.np.DialContext(ctx, network, net.JoinHostPort(host, port))
}

// fail answers 403 with the reason when the policy refused r, 502 else.
// A refusal's sentence holds Gotenberg's ("CONNECT blocked for 'host:port'",
// "'URL' targets a non-public address"), for the log searches of its
// users.
func (px *proxy) fail(w http.ResponseWriter, r *http.Request, err error) {
	if !errors.Is(err, netpolicy.ErrRefused) {
		px.unreachable(w, r, err)
		return
	}
	px.refused.Add(1)
	msg := fmt.Sprintf("CONNECT blocked for '%s': %v", r.Host, err)
	if r.Method != http.MethodConnect {
		msg = addrRefusal(r.URL.String(), err).Error()
	}
	if px.log != nil {
		px.log("chromium: page proxy: " + msg)
	}
	http.Error(w, msg, http.StatusForbidden)
}

// unreachable answers a request whose destination could not be reached:
// a CONNECT with 502, which the browser reports as a failed tunnel; a
// plain request by resetting the connection, so that the browser reports
// a failed load (an answer would be taken for the destination's own).
func (px *proxy) unreachable(w http.ResponseWriter, r *http.Request, err error) {
	hj, ok := w.(http.Hijacker)
	if r.Method == http.MethodConnect || !ok {
		http.Error(w, "calq could not connect: "+err.Error(), http.StatusBadGateway)
		return
	}
	c, _, herr := hj.Hijack()
	if herr != nil {
		return
	}
	if lc, ok := c.(*limitConn); ok {
		if tc, ok := lc.Conn.(*net.TCPConn); ok {
			tc.SetLinger(0) // a reset, not an orderly close
		}
	}
	c.Close()
}

// close stops accepting, closes every connection and waits for the
// tunnels' goroutines.
func (px *proxy) close() error {
	err := px.srv.Close()
	px.mu.Lock()
	px.closing = true
	for c := range px.tunnels {
		c.Close()
	}
	px.mu.Unlock()
	px.wg.Wait()
	px.tr.CloseIdleConnections()
	return err
}

// limitListener accepts at most max connections at once: the next Accept
// waits until one of them is closed. It records the most it held.
type limitListener struct {
	net.Listener
	sem  chan struct{}
	peak atomic.Int64
	n    atomic.Int64
}

func newLimitListener(l net.Listener, max int) *limitListener {
	return &limitListener{Listener: l, sem: make(chan struct{}, max)}
}

func (l *limitListener) Accept() (net.Conn, error) {
	l.sem <- struct{}{}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	n := l.n.Add(1)
	for p := l.peak.Load(); n > p && !l.peak.CompareAndSwap(p, n); p = l.peak.Load() {
	}
	return &limitConn{Conn: c, l: l}, nil
}

type limitConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.n.Add(-1); <-c.l.sem })
	return err
}

// bufferedConn reads what a bufio.Reader already holds before the
// connection itself.
type bufferedConn struct {
	net.Conn
	r io.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
