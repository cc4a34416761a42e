package webhook

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

// ErrRefused is wrapped by every error of a target the policy refuses.
var ErrRefused = errors.New("webhook target refused")

// RefusedError is a target the policy refuses: Host as the URL names it, Addr the address it is or
// resolved to.
type RefusedError struct {
	Host string
	Addr netip.Addr
}

func (e *RefusedError) Error() string {
	if e.Host == e.Addr.String() || e.Host == "" {
		return fmt.Sprintf("%s is a private, loopback or reserved address, which webhooks may not reach", e.Addr)
	}
	return fmt.Sprintf("%s is %s, a private, loopback or reserved address, which webhooks may not reach", e.Host, e.Addr)
}

func (e *RefusedError) Unwrap() error { return ErrRefused }

// Policy decides which addresses webhooks may reach: any public unicast address, and the private or
// reserved ones its allow list names. The zero Policy allows public addresses only.
type Policy struct {
	nets  []netip.Prefix
	hosts []hostPort
}

// hostPort is an allowed name or address; port "" allows every port.
type hostPort struct{ host, port string }

// NewPolicy reads an allow list (calq serve's --webhook-allow): each entry a CIDR ("10.0.0.0/8"), an
// address ("10.1.2.3", "::1"), a host name ("pdf-sink.internal") or any of the last two with a port
// ("pdf-sink.internal:8080", "[::1]:8080"). A name is allowed whatever it resolves to: listing one trusts
// its DNS.
func NewPolicy(allow []string) (*Policy, error) {
	p := &Policy{}
	for _, entry := range allow {
		if err := p.add(strings.TrimSpace(entry)); err != nil {
			return nil, fmt.Errorf("webhook allow list: entry %q: %w", entry, err)
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

// normalHost lowercases a host name and drops a final dot, so "LOCALHOST." and "localhost" are one name.
func normalHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// Check refuses, before any connection, a URL whose host is a literal address the policy refuses, or
// localhost (or a name under .localhost). Names are only checked at connect time, by [Policy.DialContext].
func (p *Policy) Check(u *url.URL) error {
	host, port := normalHost(u.Hostname()), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if p.hostAllowed(host, port) {
		return nil
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return p.checkAddr(host, a, port)
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		// Refused unless the allow list lets one of the loopback addresses it resolves to through.
		if p.checkAddr(host, netip.AddrFrom4([4]byte{127, 0, 0, 1}), port) == nil {
			return nil
		}
		return p.checkAddr(host, netip.IPv6Loopback(), port)
	}
	return nil
}

// CheckRequest runs [Policy.Check] on each of r's URLs; its errors are *HeaderError naming the header.
func (p *Policy) CheckRequest(r *Request) error {
	for _, t := range []struct{ header, raw string }{{HeaderURL, r.URL}, {HeaderEventsURL, r.EventsURL}, {HeaderErrorURL, r.ErrorURL}} {
		if t.raw == "" {
			continue
		}
		u, err := url.Parse(t.raw)
		if err != nil {
			return &HeaderError{Header: t.header, Reason: "it is not a URL"}
		}
		if err := p.Check(u); err != nil {
			return &HeaderError{Header: t.header, Reason: err.Error(), Err: err}
		}
	}
	return nil
}

// DialContext connects to address like a net.Dialer, refusing at connect time every resolved address
// the policy refuses, unless address's host is on the allow list by name. It is meant for
// http.Transport.DialContext.
func (p *Policy) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", address, err)
	}
	if !p.hostAllowed(normalHost(host), port) {
		d.Control = func(_, resolved string, _ syscall.RawConn) error { return p.control(host, resolved) }
	}
	return d.DialContext(ctx, network, address)
}

// control checks the address a connection is about to be made to, after name resolution.
func (p *Policy) control(host, resolved string) error {
	ip, port, err := net.SplitHostPort(resolved)
	if err != nil {
		return fmt.Errorf("webhook dial to %s: %w", resolved, err)
	}
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return fmt.Errorf("webhook dial to %s: %w", resolved, err)
	}
	return p.checkAddr(host, a, port)
}

// checkAddr allows a public address, or a refused one the allow list names by prefix or by address.
func (p *Policy) checkAddr(host string, a netip.Addr, port string) error {
	a = a.Unmap().WithZone("")
	if !refused(a) || p.hostAllowed(a.String(), port) {
		return nil
	}
	for _, pfx := range p.nets {
		if pfx.Contains(a) {
			return nil
		}
	}
	return &RefusedError{Host: host, Addr: a}
}

func (p *Policy) hostAllowed(host, port string) bool {
	for _, h := range p.hosts {
		if h.host == host && (h.port == "" || h.port == port) {
			return true
		}
	}
	return false
}
