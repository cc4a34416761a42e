package chromium

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// jobDirs makes two conversions' directories under one root, as calq
// serve lays them out, with a file in each, and a symbolic link in the
// first pointing into the second.
func jobDirs(t *testing.T) (mine, other string) {
	t.Helper()
	root := t.TempDir()
	mine, other = filepath.Join(root, "job1"), filepath.Join(root, "job2")
	for _, d := range []string{mine, other, filepath.Join(mine, "assets")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(mine, "index.html"), filepath.Join(mine, "assets", "a.css"), filepath.Join(other, "secret.txt")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(other, filepath.Join(mine, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(mine, "passwd")); err != nil {
		t.Fatal(err)
	}
	return mine, other
}

func TestAllowURL(t *testing.T) {
	mine, other := jobDirs(t)
	res := func(ss ...string) []Pattern {
		var out []Pattern
		for _, s := range ss {
			out = append(out, regexp.MustCompile(s))
		}
		return out
	}
	tests := []struct {
		name   string
		policy Policy
		url    string
		dir    string
		why    string // part of the refusal, "" when allowed
	}{
		{"own page", Policy{}, "file://" + mine + "/index.html", mine, ""},
		{"own asset", Policy{}, "file://" + mine + "/assets/a.css", mine, ""},
		{"own missing file", Policy{}, "file://" + mine + "/assets/none.png", mine, ""},
		{"own file, host localhost", Policy{}, "file://localhost" + mine + "/index.html", mine, ""},
		{"own directory", Policy{}, "file://" + mine, mine, ""},
		{"escaped name", Policy{}, "file://" + mine + "/assets/a%2Ecss", mine, ""},
		{"etc/passwd", Policy{}, "file:///etc/passwd", mine, "is outside the conversion's directory"},
		{"other job's file", Policy{}, "file://" + other + "/secret.txt", mine, "is outside the conversion's directory"},
		{"other job's dir, same prefix", Policy{}, "file://" + mine + "x/secret.txt", mine, "is outside the conversion's directory"},
		{"dot dot", Policy{}, "file://" + mine + "/../job2/secret.txt", mine, "climbs out of its directory with .."},
		{"escaped dot dot", Policy{}, "file://" + mine + "/%2E%2E/job2/secret.txt", mine, "climbs out of its directory with .."},
		{"symlink to other job", Policy{}, "file://" + mine + "/escape/secret.txt", mine, "is outside the conversion's directory"},
		{"symlink to other job, missing file", Policy{}, "file://" + mine + "/escape/none", mine, "is outside the conversion's directory"},
		{"symlink to /etc/passwd", Policy{}, "file://" + mine + "/passwd", mine, "is outside the conversion's directory"},
		{"no directory", Policy{}, "file://" + mine + "/index.html", "", "is a file, and this conversion may load none"},
		{"remote file host", Policy{}, "file://server/share/x", mine, "names a remote file host"},
		{"public http", Policy{}, "http://example.com/a.png", mine, ""},
		{"public https", Policy{}, "https://example.com/a.png", mine, ""},
		{"wss", Policy{}, "wss://example.com/socket", mine, ""},
		{"loopback literal", Policy{}, "http://127.0.0.1:8080/", mine, "targets a non-public address: "},
		{"localhost", Policy{}, "http://localhost:8080/", mine, "targets a non-public address: "},
		{"metadata", Policy{}, "http://169.254.169.254/latest/meta-data/", mine, "targets a non-public address: "},
		{"metadata v6", Policy{}, "http://[fd00:ec2::254]/", mine, "targets a non-public address: "},
		{"decimal loopback", Policy{}, "http://2130706433/", mine, "targets a non-public address: 127.0.0.1 is a private"},
		{"hex loopback", Policy{}, "http://0x7f.1:8080/", mine, "targets a non-public address: 127.0.0.1 is a private"},
		{"octal loopback", Policy{}, "http://0177.0.0.1/", mine, "targets a non-public address"},
		{"dotted hex metadata", Policy{}, "http://0xa9.0xfe.0xa9.0xfe/", mine, "targets a non-public address: 169.254.169.254 is a private"},
		{"numeric-looking name", Policy{}, "http://1.2.3.4.5/", mine, ""},
		{"public decimal", Policy{}, "http://134744072/", mine, ""},
		{"ws to loopback", Policy{}, "ws://127.0.0.1:9/", mine, "targets a non-public address: "},
		{"loopback allowed by network", Policy{AllowNetworks: []string{"127.0.0.0/8"}}, "http://127.0.0.1:8080/", mine, ""},
		{"loopback allowed by host:port", Policy{AllowNetworks: []string{"127.0.0.1:8080"}}, "http://127.0.0.1:8080/", mine, ""},
		{"loopback, other port", Policy{AllowNetworks: []string{"127.0.0.1:8080"}}, "http://127.0.0.1:9/", mine, "targets a non-public address: "},
		{"loopback with AllowAllNetworks", Policy{AllowAllNetworks: true}, "http://127.0.0.1:8080/", mine, ""},
		{"public with DenyPublic", Policy{DenyPublic: true}, "http://8.8.8.8/", mine, "targets a public address: 8.8.8.8 is a public address"},
		{"data", Policy{Allow: res(`^https://`)}, "data:text/html,<p>x</p>", mine, ""},
		{"blob", Policy{}, "blob:null/6f1e", mine, ""},
		{"about:blank", Policy{}, "about:blank", mine, ""},
		{"about:srcdoc", Policy{}, "about:srcdoc", mine, ""},
		{"about:config", Policy{}, "about:config", mine, "is not about:blank or about:srcdoc"},
		{"ftp", Policy{}, "ftp://example.com/x", mine, "uses the ftp: scheme, which pages may not load"},
		{"chrome", Policy{}, "chrome://settings", mine, "uses the chrome: scheme"},
		{"filesystem", Policy{}, "filesystem:http://example.com/x", mine, "uses the filesystem: scheme"},
		{"javascript", Policy{}, "javascript:alert(1)", mine, "uses the javascript: scheme"},
		{"has no host", Policy{}, "http:///x", mine, "has no host"},
		{"allow list match", Policy{Allow: res(`^https://example\.com/`)}, "https://example.com/x", mine, ""},
		{"allow list, host lowercased", Policy{Allow: res(`^https://example\.com/`)}, "HTTPS://EXAMPLE.COM/x", mine, ""},
		{"allow list miss", Policy{Allow: res(`^https://example\.com/`)}, "https://example.org/x", mine, "does not match any expression from the allowed list"},
		{"Gotenberg's syntax: lookahead, allowed", Policy{Allow: gotenbergRes(t, `^https://(?!internal\.)`)}, "https://example.com/x", mine, ""},
		{"Gotenberg's syntax: lookahead, refused", Policy{Allow: gotenbergRes(t, `^https://(?!internal\.)`)}, "https://internal.example.com/x", mine, "does not match any expression from the allowed list"},
		{"Gotenberg's syntax: backreference in a deny list", Policy{Deny: gotenbergDeny(t, `^https://(\w+)\.\1\.`)}, "https://abc.abc.example/", mine, "matches the expression from the denied list"},
		{"allow list applies to files", Policy{Allow: res(`^https://`)}, "file://" + mine + "/index.html", mine, "does not match any expression from the allowed list"},
		{"allow list does not open other dirs", Policy{Allow: res(`.+`)}, "file:///etc/passwd", mine, "is outside the conversion's directory"},
		{"allow list does not open loopback", Policy{Allow: res(`.+`)}, "http://127.0.0.1/", mine, "targets a non-public address: "},
		{"matches the expression from the denied list", Policy{Deny: res(`\.evil\.com/`)}, "https://a.evil.com/x", mine, `matches the expression from the denied list (\.evil\.com/)`},
		{"deny wins over allow", Policy{Allow: res(`.+`), Deny: res(`tracker`)}, "https://tracker.example/x", mine, "matches the expression from the denied list"},
		{"deny list on files", Policy{Deny: res(`\.js$`)}, "file://" + mine + "/assets/a.js", mine, "matches the expression from the denied list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := newGate(tt.policy)
			if err != nil {
				t.Fatal(err)
			}
			defer g.close()
			err = g.allowURL(tt.url, tt.dir)
			switch {
			case tt.why == "" && err != nil:
				t.Errorf("allowURL(%s) = %v, want allowed", tt.url, err)
			case tt.why != "" && err == nil:
				t.Errorf("allowURL(%s) = nil, want refused (%s)", tt.url, tt.why)
			case tt.why != "" && (!errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "'"+tt.url+"' "+tt.why)):
				t.Errorf("allowURL(%s) = %v, want ErrRefused saying '%s' %s", tt.url, err, tt.url, tt.why)
			}
		})
	}
}

func TestNewGateErrors(t *testing.T) {
	tests := []struct {
		name     string
		policy   Policy
		upstream string
		want     string
	}{
		{"bad network", Policy{AllowNetworks: []string{"10.0.0.0/8", "10.0.0.0/33"}}, "", `chromium allowed networks: entry "10.0.0.0/33"`},
		{"bad port", Policy{AllowNetworks: []string{"host:0"}}, "", `entry "host:0": bad port "0"`},
		{"bad proxy server", Policy{}, "socks5://proxy:1080", `chromium proxy server "socks5://proxy:1080"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newGate(tt.policy, egress{proxyServer: tt.upstream})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("newGate = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestAllowURLLogs: each refusal is logged once, with the URL and why.
func TestAllowURLLogs(t *testing.T) {
	g, err := newGate(Policy{Deny: []Pattern{regexp.MustCompile(`^file:///etc/`)}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	g.log = func(msg string) { got = append(got, msg) }
	g.allowURL("https://example.com/", "")
	g.allowURL("file:///etc/passwd", "/tmp/job")
	want := []string{"chromium: the policy refuses this URL: 'file:///etc/passwd' matches the expression from the denied list (^file:///etc/)"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got logs %q, want %q", got, want)
	}
}

// gotenbergRes compiles an allow list in Gotenberg's syntax.
func gotenbergRes(t *testing.T, exprs ...string) []Pattern { return compileAll(t, false, exprs) }

// gotenbergDeny compiles a deny list in Gotenberg's syntax.
func gotenbergDeny(t *testing.T, exprs ...string) []Pattern { return compileAll(t, true, exprs) }

func compileAll(t *testing.T, deny bool, exprs []string) []Pattern {
	t.Helper()
	var out []Pattern
	for _, e := range exprs {
		p, err := CompilePattern(e, deny)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// TestPatternTimeout: a match that runs out of time refuses the URL,
// whether the pattern allows or denies.
func TestPatternTimeout(t *testing.T) {
	slow := `^(a+)+$`
	input := strings.Repeat("a", 40) + "!"
	allow, _ := CompilePattern(slow, false)
	deny, _ := CompilePattern(slow, true)
	if allow.MatchString(input) {
		t.Errorf("allow list: a match out of time matched, want no match")
	}
	if !deny.MatchString(input) {
		t.Errorf("deny list: a match out of time did not match, want a match")
	}
}
