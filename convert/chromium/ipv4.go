package chromium

import (
	"math"
	"net/netip"
	"strconv"
	"strings"
)

// browserIPv4 reads host as a browser reads a URL's host (the WHATWG URL
// standard's IPv4 parser): one to four dot-separated numbers, each
// decimal, hexadecimal (0x) or octal (leading 0), the last filling the
// remaining bytes. "2130706433", "0x7f.1" and "0177.0.0.1" are all
// 127.0.0.1 to chromium, and must be to the policy too.
func browserIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(strings.TrimSuffix(host, "."), ".")
	if len(parts) > 4 || host == "" {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := ipv4Number(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	last := len(nums) - 1
	for _, n := range nums[:last] {
		if n > 255 {
			return netip.Addr{}, false
		}
	}
	if nums[last] >= uint64(math.Pow(256, float64(4-last))) {
		return netip.Addr{}, false
	}
	v := nums[last]
	for i, n := range nums[:last] {
		v += n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// ipv4Number parses one part of a browser's IPv4 address.
func ipv4Number(p string) (uint64, bool) {
	base := 10
	switch {
	case p == "":
		return 0, false
	case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
		p, base = p[2:], 16
		if p == "" {
			return 0, true
		}
	case len(p) >= 2 && p[0] == '0':
		p, base = p[1:], 8
	}
	n, err := strconv.ParseUint(p, base, 64)
	return n, err == nil
}
