package netpolicy

import "net/netip"

// reserved are the ranges refused beside what netip.Addr's predicates name: IANA's special-purpose
// IPv4 and IPv6 registries, less the globally reachable entries.
var reserved = mustPrefixes(
	"0.0.0.0/8",       // "this network"
	"100.64.0.0/10",   // CGNAT shared address space
	"192.0.0.0/24",    // IETF protocol assignments
	"192.0.2.0/24",    // TEST-NET-1
	"198.18.0.0/15",   // benchmarking
	"198.51.100.0/24", // TEST-NET-2
	"203.0.113.0/24",  // TEST-NET-3
	"240.0.0.0/4",     // reserved, and 255.255.255.255
	"::/96",           // unspecified and IPv4-compatible
	"100::/64",        // discard-only
	"2001:db8::/32",   // documentation
	"fec0::/10",       // deprecated site-local
	"64:ff9b:1::/48",  // local-use NAT64
)

// Well-known prefixes that embed an IPv4 address, which is checked in their place.
var (
	nat64  = netip.MustParsePrefix("64:ff9b::/96")
	sixTo4 = netip.MustParsePrefix("2002::/16")
)

func mustPrefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// NonPublic reports whether a (already unmapped, without zone) is not a public unicast address:
// private (RFC 1918, IPv6 ULA), loopback, link-local, multicast, unspecified, CGNAT and the other
// special-purpose ranges, and public-looking IPv6 addresses that embed a refused IPv4 one.
func NonPublic(a netip.Addr) bool {
	if !a.IsValid() || a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsMulticast() ||
		a.IsUnspecified() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() {
		return true
	}
	for _, pfx := range reserved {
		if pfx.Contains(a) {
			return true
		}
	}
	if v4, ok := embeddedIPv4(a); ok {
		return NonPublic(v4)
	}
	return false
}

// embeddedIPv4 returns the IPv4 address inside a NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address.
func embeddedIPv4(a netip.Addr) (netip.Addr, bool) {
	b := a.As16()
	switch {
	case nat64.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixTo4.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return netip.Addr{}, false
}
