package webhook

import (
	"context"
	"fmt"
	"net"
	"net/url"

	"calq/internal/netpolicy"
)

// ErrRefused is wrapped by every error of a target the policy refuses.
var ErrRefused = netpolicy.ErrRefused

// RefusedError is a target the policy refuses: Host as the URL names it, Addr the address it is or
// resolved to.
type RefusedError = netpolicy.RefusedError

// Policy decides which addresses webhooks may reach: any public unicast address, and the private or
// reserved ones its allow list names. The zero Policy allows public addresses only. It is
// [netpolicy.Policy] with refusals that name webhooks.
type Policy struct {
	np netpolicy.Policy
}

// NewPolicy reads an allow list (calq serve's --webhook-allow): each entry a CIDR ("10.0.0.0/8"), an
// address ("10.1.2.3", "::1"), a host name ("pdf-sink.internal") or any of the last two with a port
// ("pdf-sink.internal:8080", "[::1]:8080"). A name is allowed whatever it resolves to: listing one trusts
// its DNS.
func NewPolicy(allow []string) (*Policy, error) {
	np, err := netpolicy.New(allow)
	if err != nil {
		return nil, fmt.Errorf("webhook allow list: %w", err)
	}
	return &Policy{np: *np}, nil
}

// net is the policy itself, its refusals naming webhooks.
func (p *Policy) net() *netpolicy.Policy {
	np := p.np
	np.Reach = "webhooks"
	return &np
}

// Check refuses, before any connection, a URL whose host is a literal address the policy refuses, or
// localhost (or a name under .localhost). Names are only checked at connect time, by [Policy.DialContext].
func (p *Policy) Check(u *url.URL) error { return p.net().Check(u) }

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
	return p.net().DialContext(ctx, network, address)
}
