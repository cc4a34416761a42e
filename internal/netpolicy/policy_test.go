package netpolicy

import (
	"errors"
	"net/netip"
	"net/url"
	"testing"
)

func TestNonPublic(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		{"8.8.8.8", false},
		{"1.1.1.1", false},
		{"2606:4700:4700::1111", false},
		{"64:ff9b::808:808", false}, // NAT64 of 8.8.8.8
		{"127.0.0.1", true},
		{"127.255.255.254", true},
		{"10.1.2.3", true},
		{"172.16.0.1", true},
		{"172.31.255.255", true},
		{"172.32.0.1", false},
		{"192.168.1.1", true},
		{"169.254.169.254", true}, // cloud metadata
		{"100.64.0.1", true},
		{"100.127.255.255", true},
		{"100.128.0.1", false},
		{"0.0.0.0", true},
		{"0.1.2.3", true},
		{"224.0.0.1", true},
		{"239.255.255.250", true},
		{"255.255.255.255", true},
		{"::", true},
		{"::1", true},
		{"::127.0.0.1", true},
		{"fe80::1", true},
		{"fc00::1", true},
		{"fd12:3456::1", true},
		{"ff02::1", true},
		{"fec0::1", true},
		{"64:ff9b::7f00:1", true},    // NAT64 of 127.0.0.1
		{"64:ff9b::a9fe:a9fe", true}, // NAT64 of 169.254.169.254
		{"2002:7f00:1::", true},      // 6to4 of 127.0.0.1
		{"2002:808:808::", false},    // 6to4 of 8.8.8.8
		{"2001:db8::1", true},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			if got := NonPublic(netip.MustParseAddr(tt.addr)); got != tt.want {
				t.Errorf("NonPublic(%s) = %v, want %v", tt.addr, got, tt.want)
			}
		})
	}
}

func FuzzPolicy(f *testing.F) {
	f.Add("10.0.0.0/8", "http://10.1.2.3:8080/x", "10.1.2.3:8080")
	f.Add("[::1]:8080", "http://[::ffff:127.0.0.1]/", "[::1]:8080")
	f.Add("localhost", "http://LOCALHOST./", "127.0.0.1:80")
	f.Fuzz(func(t *testing.T, entry, rawURL, resolved string) {
		p, err := New([]string{entry})
		if err != nil {
			return
		}
		if u, err := url.Parse(rawURL); err == nil {
			_ = p.Check(u)
		}
		_ = p.Control("host", resolved)
		// Without an allow list, nothing refused may get through.
		if ap, perr := netip.ParseAddrPort(resolved); perr == nil && NonPublic(ap.Addr().Unmap().WithZone("")) {
			if (&Policy{}).Control("host", resolved) == nil {
				t.Fatalf("the empty policy let %s through", resolved)
			}
		}
	})
}

func TestCheckAddrClasses(t *testing.T) {
	tests := []struct {
		name       string
		allow      []string
		allowAll   bool
		denyPublic bool
		addr, port string
		want       string // the refusal's message, "" when allowed
	}{
		{"public by default", nil, false, false, "8.8.8.8", "80", ""},
		{"private by default", nil, false, false, "10.1.2.3", "80", "10.1.2.3 is a private, loopback or reserved address, which pages may not reach"},
		{"metadata by default", nil, false, false, "169.254.169.254", "80", "169.254.169.254 is a private, loopback or reserved address, which pages may not reach"},
		{"metadata v6 by default", nil, false, false, "fd00:ec2::254", "80", "fd00:ec2::254 is a private, loopback or reserved address, which pages may not reach"},
		{"private with AllowAll", nil, true, false, "10.1.2.3", "80", ""},
		{"public with DenyPublic", nil, false, true, "8.8.8.8", "443", "8.8.8.8 is a public address, which pages may not reach"},
		{"public with DenyPublic, listed", []string{"8.8.8.0/24"}, false, true, "8.8.8.8", "443", ""},
		{"private with DenyPublic and AllowAll", nil, true, true, "192.168.1.1", "80", ""},
		{"public with DenyPublic and AllowAll", nil, true, true, "1.1.1.1", "80", "1.1.1.1 is a public address, which pages may not reach"},
		{"loopback by address and port", []string{"127.0.0.1:8080"}, false, false, "127.0.0.1", "8080", ""},
		{"loopback by address, other port", []string{"127.0.0.1:8080"}, false, false, "127.0.0.1", "8081", "127.0.0.1 is a private, loopback or reserved address, which pages may not reach"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.allow)
			if err != nil {
				t.Fatal(err)
			}
			p.AllowAll, p.DenyPublic, p.Reach = tt.allowAll, tt.denyPublic, "pages"
			err = p.CheckAddr(tt.addr, netip.MustParseAddr(tt.addr), tt.port)
			got := ""
			if err != nil {
				got = err.Error()
				if !errors.Is(err, ErrRefused) {
					t.Errorf("%v does not wrap ErrRefused", err)
				}
			}
			if got != tt.want {
				t.Errorf("CheckAddr(%s, %s) = %q, want %q", tt.addr, tt.port, got, tt.want)
			}
		})
	}
}

func TestNewNamesEntry(t *testing.T) {
	_, err := New([]string{"10.0.0.0/8", "host:0"})
	if got, want := err.Error(), `entry "host:0": bad port "0"`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
