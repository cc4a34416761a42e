package netpolicy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrRefused is wrapped by every error of an address a policy refuses.
var ErrRefused = errors.New("address refused")

// RefusedError is an address a policy refuses: Host as the URL names it,
// Addr the address it is or resolved to.
type RefusedError struct {
	Host string
	Addr netip.Addr
	// Public is set when Addr was refused for being public (DenyPublic).
	Public bool
	// Reach names who may not reach it in the message ("webhooks").
	Reach string
}

func (e *RefusedError) Error() string {
	kind := "a private, loopback or reserved address"
	if e.Public {
		kind = "a public address"
	}
	who := e.Reach
	if who == "" {
		who = "calq"
	}
	if e.Host == e.Addr.String() || e.Host == "" {
		return fmt.Sprintf("%s is %s, which %s may not reach", e.Addr, kind, who)
	}
	return fmt.Sprintf("%s is %s, %s, which %s may not reach", e.Host, e.Addr, kind, who)
}

func (e *RefusedError) Unwrap() error { return ErrRefused }

// Policy decides which addresses may be reached: any public unicast
// address, and the private or reserved ones its allow list names. The zero
// Policy allows public addresses only.
type Policy struct {
	nets  []netip.Prefix
	hosts []hostPort
	// AllowAll lets every non-public address through, as if the allow
	// list held every network.
	AllowAll bool
	// DenyPublic refuses every public address the allow list does not
	// name.
	DenyPublic bool
	// Reach names, in refusals, who may not reach an address.
	Reach string
}

// hostPort is an allowed name or address; port "" allows every port.
type hostPort struct{ host, port string }

// New reads an allow list (calq serve's --webhook-allow): each entry a
// CIDR ("10.0.0.0/8"), an address ("10.1.2.3", "::1"), a host name
// ("pdf-sink.internal") or any of the last two with a port
// ("pdf-sink.internal:8080", "[::1]:8080"). A name is allowed whatever it
// resolves to: listing one trusts its DNS. Errors name the bad entry.
func New(allow []string) (*Policy, error) {
	p := &Policy{}
	for _, entry := range allow {
		if err := p.add(strings.TrimSpace(entry)); err != nil {
			return nil, fmt.Errorf("entry %q: %w", entry, err)
		}
	}
	return p, nil
}

func (p *Policy) add(entry string) error {
	if entry == "" {
		return errors.New("empty")
	}
	if pfx, err := netip.ParsePrefix(entry); err == nil {
		p.nets = append(p.nets, pfx.Masked())
		return nil
	}
	if a, err := netip.ParseAddr(entry); err == nil {
		p.nets = append(p.nets, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
		return nil
	}
	host, port := entry, ""
	if h, pt, err := net.SplitHostPort(entry); err == nil {
		host, port = h, pt
		if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
			return fmt.Errorf("bad port %q", port)
		}
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1] // "[::1]"
	}
	host = normalHost(host)
	if host == "" || strings.ContainsAny(host, "/[]@ ") {
		return errors.New("not a CIDR, address, or host name with an optional port")
	}
	if a, err := netip.ParseAddr(host); err == nil {
		host = a.Unmap().String()
	}
	p.hosts = append(p.hosts, hostPort{host: host, port: port})
	return nil
}

// normalHost lowercases a host name and drops a final dot, so
// "LOCALHOST." and "localhost" are one name.
func normalHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// DefaultPorts are the ports of the schemes whose URLs omit them.
var DefaultPorts = map[string]string{"http": "80", "https": "443", "ws": "80", "wss": "443"}

// Check refuses, before any connection, a URL whose host is a literal
// address the policy refuses, or localhost (or a name under .localhost).
// Names are only checked at connect time, by [Policy.DialContext].
func (p *Policy) Check(u *url.URL) error {
	port := u.Port()
	if port == "" {
		port = DefaultPorts[strings.ToLower(u.Scheme)]
	}
	return p.CheckHost(u.Hostname(), port)
}

// CheckHost is [Policy.Check] on a host (a name or literal address) and a
// port.
func (p *Policy) CheckHost(host, port string) error {
	host = normalHost(host)
	if p.hostAllowed(host, port) {
		return nil
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return p.CheckAddr(host, a, port)
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		// Refused unless the allow list lets one of the loopback addresses it resolves to through.
		if p.CheckAddr(host, netip.AddrFrom4([4]byte{127, 0, 0, 1}), port) == nil {
			return nil
		}
		return p.CheckAddr(host, netip.IPv6Loopback(), port)
	}
	return nil
}

// DialContext connects to address like a net.Dialer, refusing at connect
// time every resolved address the policy refuses, unless address's host is
// on the allow list by name. It is meant for http.Transport.DialContext.
func (p *Policy) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", address, err)
	}
	if !p.hostAllowed(normalHost(host), port) {
		d.Control = func(_, resolved string, _ syscall.RawConn) error { return p.Control(host, resolved) }
	}
	return d.DialContext(ctx, network, address)
}

// Control checks the address ("ip:port") a connection to host is about to
// be made to, after name resolution.
func (p *Policy) Control(host, resolved string) error {
	ip, port, err := net.SplitHostPort(resolved)
	if err != nil {
		return fmt.Errorf("dial to %s: %w", resolved, err)
	}
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return fmt.Errorf("dial to %s: %w", resolved, err)
	}
	return p.CheckAddr(host, a, port)
}

// CheckAddr allows a public address (unless DenyPublic), or a refused one
// the allow list names by prefix or by address. host names a in errors.
func (p *Policy) CheckAddr(host string, a netip.Addr, port string) error {
	a = a.Unmap().WithZone("")
	public := !NonPublic(a)
	if public && !p.DenyPublic || !public && p.AllowAll || p.hostAllowed(a.String(), port) {
		return nil
	}
	for _, pfx := range p.nets {
		if pfx.Contains(a) {
			return nil
		}
	}
	return &RefusedError{Host: host, Addr: a, Public: public, Reach: p.Reach}
}

func (p *Policy) hostAllowed(host, port string) bool {
	for _, h := range p.hosts {
		if h.host == host && (h.port == "" || h.port == port) {
			return true
		}
	}
	return false
}
