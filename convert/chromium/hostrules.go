package chromium

import (
	"errors"
	"fmt"
	"net"
	"path"
	"strconv"
	"strings"
)

// hostRules are Chromium's --host-resolver-rules (Config.HostResolverRules)
// as the policy's proxy applies them: the browser resolves no name of the
// requests it sends to a proxy, so without the proxy applying them the
// rules would map nothing. Rules are separated by commas; each is
// "MAP pattern replacement" (replacement a host, host:port, or ~NOTFOUND
// to fail the lookup) or "EXCLUDE pattern", the first matching rule
// winning; a pattern matches the host name with * and ? wildcards, or
// host:port when it has a port.
type hostRules []hostRule

type hostRule struct {
	exclude     bool
	pattern     string
	host, port  string // replacement; port "" keeps the request's
	notFound    bool
	withPortPat bool
}

// errNotFound is a name that a ~NOTFOUND rule makes unresolvable.
var errNotFound = errors.New("no such host (host resolver rules)")

func parseHostRules(s string) (hostRules, error) {
	var rules hostRules
	for _, r := range strings.Split(s, ",") {
		f := strings.Fields(r)
		if len(f) == 0 {
			continue
		}
		rule, err := parseHostRule(f)
		if err != nil {
			return nil, fmt.Errorf("host resolver rule %q: %w", strings.TrimSpace(r), err)
		}
		rules = append(rules, rule)
	}
	return rules, nil
}

func parseHostRule(f []string) (hostRule, error) {
	switch {
	case strings.EqualFold(f[0], "EXCLUDE") && len(f) == 2:
		return hostRule{exclude: true, pattern: strings.ToLower(f[1])}, nil
	case strings.EqualFold(f[0], "MAP") && len(f) == 3:
	default:
		return hostRule{}, errors.New(`want "MAP pattern replacement" or "EXCLUDE pattern"`)
	}
	r := hostRule{pattern: strings.ToLower(f[1]), withPortPat: strings.Contains(strings.TrimPrefix(f[1], "["), ":")}
	if _, err := path.Match(r.pattern, ""); err != nil {
		return hostRule{}, fmt.Errorf("pattern %q: %w", f[1], err)
	}
	if f[2] == "~NOTFOUND" {
		r.notFound = true
		return r, nil
	}
	r.host = f[2]
	if h, p, err := net.SplitHostPort(f[2]); err == nil {
		if n, err := strconv.ParseUint(p, 10, 16); err != nil || n == 0 {
			return hostRule{}, fmt.Errorf("replacement %q: bad port", f[2])
		}
		r.host, r.port = h, p
	}
	r.host = strings.Trim(r.host, "[]")
	return r, nil
}

// apply returns the host and port a connection to host:port goes to.
func (rs hostRules) apply(host, port string) (string, string, error) {
	lh := strings.ToLower(host)
	for _, r := range rs {
		subject := lh
		if r.withPortPat {
			subject = net.JoinHostPort(lh, port)
		}
		if ok, _ := path.Match(r.pattern, subject); !ok {
			continue
		}
		switch {
		case r.exclude:
			return host, port, nil
		case r.notFound:
			return "", "", fmt.Errorf("%s: %w", host, errNotFound)
		case r.port != "":
			return r.host, r.port, nil
		default:
			return r.host, port, nil
		}
	}
	return host, port, nil
}
