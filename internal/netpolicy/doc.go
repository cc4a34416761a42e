// Package netpolicy decides which network addresses calq may connect to on
// someone else's behalf (a webhook's target, a page Chromium renders), so
// that a client cannot aim calq at its own network (SSRF).
//
// Entry points:
//
//   - [New] builds a [Policy] from an allow list (CIDRs, addresses, host
//     names, any of the last two with a port). By default every public
//     unicast address is allowed and every private, loopback, link-local,
//     multicast, unspecified or otherwise reserved one refused;
//     [Policy.AllowAll] and [Policy.DenyPublic] widen and narrow that.
//   - [Policy.Check] refuses, before any connection, a URL whose host is a
//     literal refused address or localhost (cheap, no DNS).
//   - [Policy.DialContext] connects like a net.Dialer and refuses, at
//     connect time, the address a name resolved to (a Control hook on the
//     socket), so DNS rebinding cannot get around the check.
//
// Refusals are *[RefusedError], which unwrap to [ErrRefused]. A Policy is
// safe for concurrent use once built; do not change its fields then.
package netpolicy
