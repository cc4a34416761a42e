package servecmd

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestChromiumSettings: calq serve's Chromium flags, and Gotenberg's
// CHROMIUM_* variables that set them, give the pool's configuration.
func TestChromiumSettings(t *testing.T) {
	cases := []struct {
		name  string
		env   map[string]string
		args  []string
		check func(o chromiumOpts) any
		want  any
	}{
		{"defaults", nil, nil,
			func(o chromiumOpts) any {
				c := o.Config
				return [6]any{c.Browsers, c.Tabs, c.RestartAfter, c.StartTimeout, c.MemoryLimit, o.Disabled}
			},
			[6]any{0, 0, 100, 20 * time.Second, int64(0), false}},
		{"flags", nil, []string{"--chromium-browsers", "2", "--chromium-tabs", "3", "--chromium-restart-after", "0",
			"--chromium-memory-limit", "2GiB", "--chromium-start-timeout", "5s", "--chromium-disable-javascript", "--chromium", "/opt/chromium"},
			func(o chromiumOpts) any {
				c := o.Config
				return [7]any{c.Browsers, c.Tabs, c.RestartAfter, c.MemoryLimit, c.StartTimeout, c.DisableJavaScript, o.Binary}
			},
			[7]any{2, 3, 0, int64(2 << 30), 5 * time.Second, true, "/opt/chromium"}},
		{"Gotenberg's variables", map[string]string{"CHROMIUM_MAX_CONCURRENCY": "3", "CHROMIUM_RESTART_AFTER": "5",
			"CHROMIUM_START_TIMEOUT": "30s", "CHROMIUM_DISABLE_JAVASCRIPT": "true"}, nil,
			func(o chromiumOpts) any {
				c := o.Config
				return [4]any{c.Tabs, c.RestartAfter, c.StartTimeout, c.DisableJavaScript}
			},
			[4]any{3, 5, 30 * time.Second, true}},
		{"restart after 0 is never, as in Gotenberg", map[string]string{"CHROMIUM_RESTART_AFTER": "0"}, nil,
			func(o chromiumOpts) any { return o.Config.RestartAfter }, 0},
		{"concurrency 0 keeps calq's", map[string]string{"CHROMIUM_MAX_CONCURRENCY": "0"}, nil,
			func(o chromiumOpts) any { return o.Config.Tabs }, 0},
		{"the flag wins", map[string]string{"CHROMIUM_MAX_CONCURRENCY": "3"}, []string{"--chromium-tabs", "2"},
			func(o chromiumOpts) any { return o.Config.Tabs }, 2},
		{"switches", map[string]string{"CHROMIUM_IGNORE_CERTIFICATE_ERRORS": "true", "CHROMIUM_ALLOW_INSECURE_LOCALHOST": "1",
			"CHROMIUM_DISABLE_WEB_SECURITY": "true", "CHROMIUM_ALLOW_FILE_ACCESS_FROM_FILES": "true",
			"CHROMIUM_HOST_RESOLVER_RULES": "MAP example.com 127.0.0.1", "CHROMIUM_PROXY_SERVER": "http://proxy:3128"}, nil,
			func(o chromiumOpts) any {
				c := o.Config
				return [6]any{c.IgnoreCertificateErrors, c.AllowInsecureLocalhost, c.DisableWebSecurity, c.AllowFileAccessFromFiles, c.HostResolverRules, c.ProxyServer}
			},
			[6]any{true, true, true, true, "MAP example.com 127.0.0.1", "http://proxy:3128"}},
		{"allow list of every URL lets every network, as Gotenberg's suite runs it", map[string]string{"CHROMIUM_ALLOW_LIST": ".+"}, nil,
			func(o chromiumOpts) any {
				p := o.Config.Policy
				return [3]any{len(p.Allow), p.AllowNetworks, p.AllowAllNetworks}
			},
			[3]any{1, []string{"0.0.0.0/0", "::/0"}, true}},
		{"allow and deny lists of URL patterns", map[string]string{"CHROMIUM_ALLOW_LIST": `^file:///tmp.*,^https?://host\.example.*`, "CHROMIUM_DENY_LIST": "^http.*"}, nil,
			func(o chromiumOpts) any {
				p := o.Config.Policy
				var allow, deny []string
				for _, re := range p.Allow {
					allow = append(allow, re.String())
				}
				for _, re := range p.Deny {
					deny = append(deny, re.String())
				}
				return [3]any{allow, deny, p.AllowAllNetworks}
			},
			[3]any{[]string{`^file:///tmp.*`, `^https?://host\.example.*`}, []string{"^http.*"}, false}},
		{"Gotenberg's default deny list, which calq's file rule covers", map[string]string{"CHROMIUM_DENY_LIST": `^file:(?!//\/tmp/).*,^http://internal`}, nil,
			func(o chromiumOpts) any {
				var deny []string
				for _, re := range o.Config.Policy.Deny {
					deny = append(deny, re.String())
				}
				return deny
			}, []string{"^http://internal"}},
		{"an empty allow list", map[string]string{"CHROMIUM_ALLOW_LIST": ""}, nil,
			func(o chromiumOpts) any { return [2]any{len(o.Config.Policy.Allow), o.Config.Policy.AllowAllNetworks} }, [2]any{0, false}},
		{"private addresses, as Gotenberg's default", map[string]string{"CHROMIUM_DENY_PRIVATE_IPS": "false"}, nil,
			func(o chromiumOpts) any { return o.Config.Policy.AllowAllNetworks }, true},
		{"private addresses refused", map[string]string{"CHROMIUM_DENY_PRIVATE_IPS": "true"}, nil,
			func(o chromiumOpts) any { return o.Config.Policy.AllowAllNetworks }, false},
		{"networks", map[string]string{"CHROMIUM_DENY_PUBLIC_IPS": "true"}, []string{"--chromium-allow", "10.0.0.0/8", "--chromium-allow", "intranet:8080"},
			func(o chromiumOpts) any { return [2]any{o.Config.Policy.AllowNetworks, o.Config.Policy.DenyPublic} },
			[2]any{[]string{"10.0.0.0/8", "intranet:8080"}, true}},
		{"accepted: every page has a fresh context, the pool is lazy", map[string]string{"CHROMIUM_CLEAR_CACHE": "true", "CHROMIUM_CLEAR_COOKIES": "true",
			"CHROMIUM_CLEAR_STORAGE": "true", "CHROMIUM_AUTO_START": "true", "CHROMIUM_IDLE_SHUTDOWN_TIMEOUT": "10s", "CHROMIUM_INCOGNITO": "false",
			"CHROMIUM_ENABLE_ENVIRONMENT_PROXY": "false"}, nil,
			func(o chromiumOpts) any { return o.Config.Tabs }, 0},
		{"routes off: no pool", map[string]string{"CHROMIUM_DISABLE_ROUTES": "true"}, nil,
			func(o chromiumOpts) any { return o.Disabled }, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := parse(t, c.env, c.args...)
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if got := c.check(o.Chromium); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %#v, want %#v", got, c.want)
			}
		})
	}
}

// TestChromiumQueueSize: CHROMIUM_MAX_QUEUE_SIZE sets calq's one bound on
// the files waiting, unless LIBREOFFICE_MAX_QUEUE_SIZE sets it.
func TestChromiumQueueSize(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want int
	}{
		{map[string]string{"CHROMIUM_MAX_QUEUE_SIZE": "10"}, 10},
		{map[string]string{"CHROMIUM_MAX_QUEUE_SIZE": "10", "LIBREOFFICE_MAX_QUEUE_SIZE": "20"}, 20},
		{map[string]string{"CHROMIUM_MAX_QUEUE_SIZE": "0"}, 2000},
	} {
		o, err := parse(t, tc.env)
		if err != nil || o.MaxQueued != tc.want {
			t.Errorf("%v: got %d, %v, want %d", tc.env, o.MaxQueued, err, tc.want)
		}
	}
}

// TestChromiumSettingsRefused: a bad value stops the start, naming the
// variable or the flag.
func TestChromiumSettingsRefused(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"concurrency", map[string]string{"CHROMIUM_MAX_CONCURRENCY": "six"}, nil, `CHROMIUM_MAX_CONCURRENCY: "six": want a number`},
		{"restart after", map[string]string{"CHROMIUM_RESTART_AFTER": "-1"}, nil, `CHROMIUM_RESTART_AFTER: "-1": want a number, 0 or more`},
		{"start timeout", map[string]string{"CHROMIUM_START_TIMEOUT": "20"}, nil, `CHROMIUM_START_TIMEOUT: "20": want a duration`},
		{"a boolean", map[string]string{"CHROMIUM_CLEAR_STORAGE": "yes"}, nil, `CHROMIUM_CLEAR_STORAGE: "yes": want true or false`},
		{"an unclosed group", map[string]string{"CHROMIUM_ALLOW_LIST": `^file:(?!//`}, nil, `CHROMIUM_ALLOW_LIST: "^file:(?!//": not a regular expression`},
		{"deny list", map[string]string{"CHROMIUM_DENY_LIST": "(("}, nil, `CHROMIUM_DENY_LIST: "((": not a regular expression`},
		{"allow list flag", nil, []string{"--chromium-allow-list", "a(b"}, `--chromium-allow-list: "a(b": not a regular expression`},
		{"environment proxy", map[string]string{"CHROMIUM_ENABLE_ENVIRONMENT_PROXY": "true"}, nil, "CHROMIUM_ENABLE_ENVIRONMENT_PROXY: calq serve does not pass HTTP_PROXY"},
		{"idle shutdown", map[string]string{"CHROMIUM_IDLE_SHUTDOWN_TIMEOUT": "soon"}, nil, `CHROMIUM_IDLE_SHUTDOWN_TIMEOUT: "soon": want a duration`},
		{"queue size", map[string]string{"CHROMIUM_MAX_QUEUE_SIZE": "-1"}, nil, `CHROMIUM_MAX_QUEUE_SIZE: "-1"`},
		{"a network", nil, []string{"--chromium-allow", "10.0.0.0/33"}, `--chromium-allow "10.0.0.0/33": entry "10.0.0.0/33": not a CIDR`},
		{"memory limit", nil, []string{"--chromium-memory-limit", "1MB"}, `--chromium-memory-limit "1MB": want a size such as 2GiB, at least 64MiB`},
		{"browsers", nil, []string{"--chromium-browsers", "-1"}, "--chromium-browsers -1: want 0 (the default) or more"},
		{"start timeout flag", nil, []string{"--chromium-start-timeout", "0s"}, "--chromium-start-timeout 0s: want a positive duration"},
		{"proxy on two lines", map[string]string{"CHROMIUM_PROXY_SERVER": "a\nb"}, nil, "--chromium-proxy-server: want one line"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse(t, c.env, c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got error %v, want one holding %q", err, c.want)
			}
		})
	}
}
