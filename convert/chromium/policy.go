package chromium

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"calq/internal/netpolicy"
)

// What a page may load
//
// Every URL a page asks for, its main document included, goes through one
// policy (Config.Policy), checked twice:
//
//  1. When the browser asks for it (allowURL, on each intercepted request):
//     - file:// only for a path inside the conversion's own directory
//     (Request.Dir), after cleaning it and resolving the symbolic links
//     of the part that exists; ".." segments, other conversions'
//     directories and every file:// when Dir is "" are refused;
//     - Policy.Allow and Policy.Deny, Gotenberg's CHROMIUM_ALLOW_LIST and
//     CHROMIUM_DENY_LIST, are matched against the whole URL, its scheme
//     and host lowercased, for http, https, ws, wss and file URLs: with
//     an allow list the URL must match one of its expressions, and it
//     must match no deny expression;
//     - data:, blob:, about:blank and about:srcdoc never leave the
//     browser and are allowed; every other scheme (ftp:, chrome:,
//     filesystem:, ...) is refused;
//     - an http(s) or ws(s) URL whose host is a literal refused address
//     (in any spelling chromium reads as one: 2130706433, 0x7f.1, ...)
//     or localhost is refused at once. Unlike Gotenberg's, a URL the
//     allow list matches is not exempted from the address checks:
//     AllowNetworks and AllowAllNetworks open networks.
//  2. When the browser connects (a forward proxy calq runs on loopback,
//     through which the browser sends every request but file://: launch
//     switches --proxy-server=http://127.0.0.1:PORT and
//     --proxy-bypass-list=<-loopback>, the latter so that loopback and
//     link-local destinations are not exempted as Chromium does by
//     default). The proxy resolves names itself and checks the address
//     it is about to connect to (internal/netpolicy, as webhooks do), so a
//     name cannot be made to point at a refused address, and there is no
//     window between check and connect. Loopback, private, link-local
//     (cloud metadata: 169.254.169.254, fd00:ec2::254), unspecified,
//     multicast and every other non-public address are refused unless
//     Policy.AllowNetworks names them (a CIDR, an address or a host name,
//     with an optional port, as calq serve's --webhook-allow) or
//     Policy.AllowAllNetworks is set; Policy.DenyPublic refuses public
//     addresses. WebSocket handshakes, which the browser does not show to
//     request interception, are checked here only: the address policy
//     holds for them, the allow and deny lists cannot.
//
// With AllowAllNetworks and without DenyPublic no proxy runs. With
// Config.ProxyServer set, the proxy forwards every request to that proxy,
// which then makes the connection: calq checks the addresses the name
// resolves to when it forwards, but cannot check the one the other proxy
// finally connects to (its DNS may answer differently). The browser
// resolves no name of a request it sends to a proxy, so the proxy applies
// Config.HostResolverRules itself (MAP and EXCLUDE, see hostRules) and the
// policy checks the mapped address. Each refusal goes to Config.Log, in
// sentences that hold Gotenberg's ("'URL' matches the expression from
// the denied list", "'URL' does not match any expression from the allowed
// list", "'URL' targets a non-public address", "CONNECT blocked for
// 'host:port'").
//
// The browser is also started with --disable-quic (HTTP/3 and WebTransport
// would go around the proxy, over UDP) and
// --webrtc-ip-handling-policy=disable_non_proxied_udp (WebRTC gathers no
// UDP candidate and may only use the proxy, which offers it no UDP). A
// browser with a fixed proxy resolves no names of its own for the
// requests it proxies; DNS prefetching only looks names up, it connects
// nowhere.

// gate is a compiled Policy: what the pool's browsers may load.
type gate struct {
	allow, deny []Pattern
	net         *netpolicy.Policy
	upstream    string    // Config.ProxyServer's host:port
	rules       hostRules // Config.HostResolverRules
	// log, when set before the first allowURL or browserArgs, is told of
	// each refusal, the proxy's included.
	log func(msg string)

	mu     sync.Mutex
	proxy  *proxy // started by the first browserArgs that needs it
	closed bool
}

// egress is how the browser's connections leave calq: Config.ProxyServer
// and Config.HostResolverRules.
type egress struct {
	proxyServer, resolverRules string
}

// newGate compiles p, with e (at most one) how connections leave calq.
// Errors name the bad entry.
func newGate(p Policy, e ...egress) (*gate, error) {
	np, err := netpolicy.New(p.AllowNetworks)
	if err != nil {
		return nil, fmt.Errorf("chromium allowed networks: %w", err)
	}
	np.AllowAll, np.DenyPublic, np.Reach = p.AllowAllNetworks, p.DenyPublic, "pages"
	g := &gate{allow: p.Allow, deny: p.Deny, net: np}
	if len(e) > 1 {
		return nil, errors.New("chromium gate: more than one egress")
	}
	if len(e) == 0 {
		return g, nil
	}
	if e[0].proxyServer != "" {
		u, err := url.Parse(e[0].proxyServer)
		if err != nil || u.Host == "" || u.Scheme != "http" {
			return nil, fmt.Errorf("chromium proxy server %q: not an http://host:port address", e[0].proxyServer)
		}
		g.upstream = u.Host
	}
	if g.rules, err = parseHostRules(e[0].resolverRules); err != nil {
		return nil, fmt.Errorf("chromium %w", err)
	}
	return g, nil
}

// allowURL says whether a conversion whose own directory is dir may load
// raw: nil, or an error wrapping ErrRefused that names raw and the reason.
// Its sentences hold Gotenberg's ("'URL' matches the expression from the
// denied list", "... targets a non-public address"), which its users'
// log searches and its test suite look for.
// Each refusal also goes to the gate's log.
func (g *gate) allowURL(raw, dir string) error {
	err := g.check(raw, dir)
	if err != nil && g.log != nil {
		g.log("chromium: " + err.Error())
	}
	return err
}

// check is allowURL without the log.
func (g *gate) check(raw, dir string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return refusal(raw, "is not a URL")
	}
	n := *u
	n.Scheme, n.Host = strings.ToLower(n.Scheme), strings.ToLower(n.Host)
	norm := n.String()
	switch n.Scheme {
	case "data", "blob":
		return nil
	case "about":
		if u.Opaque == "blank" || u.Opaque == "srcdoc" {
			return nil
		}
		return refusal(norm, "is not about:blank or about:srcdoc")
	case "http", "https", "ws", "wss", "file":
	default:
		return refusal(norm, fmt.Sprintf("uses the %s: scheme, which pages may not load", n.Scheme))
	}
	if why := g.lists(norm); why != "" {
		return refusal(norm, why)
	}
	if n.Scheme == "file" {
		if why := insideDir(u, dir); why != "" {
			return refusal(norm, why)
		}
		return nil
	}
	if u.Hostname() == "" {
		return refusal(norm, "has no host")
	}
	host := u.Hostname()
	if a, ok := browserIPv4(host); ok {
		host = a.String() // as chromium will connect to it
	}
	port := u.Port()
	if port == "" {
		port = netpolicy.DefaultPorts[n.Scheme]
	}
	if err := g.net.CheckHost(host, port); err != nil {
		return addrRefusal(norm, err)
	}
	return nil
}

// lists applies the allow and deny lists to a URL, its scheme and host
// lowercased as Gotenberg matches them: why it is refused, or "".
func (g *gate) lists(norm string) string {
	if len(g.allow) > 0 && !anyMatch(g.allow, norm) {
		return "does not match any expression from the allowed list"
	}
	for _, re := range g.deny {
		if re.MatchString(norm) {
			return fmt.Sprintf("matches the expression from the denied list (%s)", re)
		}
	}
	return ""
}

func anyMatch(res []Pattern, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// refusal is ErrRefused for a URL (cut to a readable length) and why.
func refusal(u, why string) error {
	if len(u) > 200 {
		u = u[:200] + "..."
	}
	return fmt.Errorf("%w: '%s' %s", ErrRefused, u, why)
}

// addrRefusal is the refusal of a URL whose address the policy refuses.
func addrRefusal(u string, err error) error {
	class := "non-public"
	if re := (*netpolicy.RefusedError)(nil); errors.As(err, &re) && re.Public {
		class = "public"
	}
	return refusal(u, fmt.Sprintf("targets a %s address: %v", class, err))
}

// browserArgs are the switches a browser needs to follow the policy; the
// first call that needs the proxy starts it. nil when nothing is needed.
func (g *gate) browserArgs(ctx context.Context) ([]string, error) {
	if g.net.AllowAll && !g.net.DenyPublic {
		if g.upstream != "" {
			return []string{"--proxy-server=http://" + g.upstream}, nil
		}
		return nil, nil
	}
	px, err := g.startProxy(ctx)
	if err != nil {
		return nil, err
	}
	return []string{
		"--proxy-server=http://" + px.addr(),
		"--proxy-bypass-list=<-loopback>",
		"--disable-quic",
		"--webrtc-ip-handling-policy=disable_non_proxied_udp",
	}, nil
}

func (g *gate) startProxy(ctx context.Context) (*proxy, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil, ErrClosed
	}
	if g.proxy == nil {
		px, err := startProxy(ctx, proxyConfig{policy: g.net, upstream: g.upstream, rules: g.rules, log: g.log})
		if err != nil {
			return nil, fmt.Errorf("starting the policy's proxy: %w", err)
		}
		g.proxy = px
	}
	return g.proxy, nil
}

// close stops the proxy, if it runs, and its connections.
func (g *gate) close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	if g.proxy == nil {
		return nil
	}
	err := g.proxy.close()
	g.proxy = nil
	return err
}
