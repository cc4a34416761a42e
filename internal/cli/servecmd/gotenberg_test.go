package servecmd

import (
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// parse runs calq serve's flag reading on args, with Gotenberg's
// variables from env, and returns the options it gives.
func parse(t *testing.T, env map[string]string, args ...string) (opts, error) {
	t.Helper()
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	cmd := Command()
	var got opts
	cmd.Action = func(c *cli.Context) error {
		if err := applyGotenbergEnv(c, lookup); err != nil {
			return err
		}
		var err error
		got, err = readOpts(c, lookup)
		return err
	}
	app := &cli.App{Name: "calq", Commands: []*cli.Command{cmd}, Writer: io.Discard, ErrWriter: io.Discard}
	err := app.Run(append([]string{"calq", "serve"}, args...))
	return got, err
}

// TestGotenbergEnv: Gotenberg's variables set calq serve's options; a
// flag wins over its variable; a value calq cannot take is refused,
// naming the variable.
func TestGotenbergEnv(t *testing.T) {
	cases := []struct {
		name  string
		env   map[string]string
		args  []string
		check func(o opts) any // what is compared
		want  any
	}{
		{"root path", map[string]string{"API_ROOT_PATH": "/pdf/"}, nil,
			func(o opts) any { return o.Routes.RootPath }, "/pdf/"},
		{"the flag wins", map[string]string{"API_ROOT_PATH": "/pdf/"}, []string{"--root-path", "/calq/"},
			func(o opts) any { return o.Routes.RootPath }, "/calq/"},
		{"timeout", map[string]string{"API_TIMEOUT": "90s"}, nil,
			func(o opts) any { return o.RequestTimeout }, 90 * time.Second},
		{"body limit", map[string]string{"API_BODY_LIMIT": "10MiB"}, nil,
			func(o opts) any { return o.Limits.MaxBody }, int64(10 << 20)},
		{"port", map[string]string{"API_PORT": "3001"}, nil,
			func(o opts) any { return o.Listen }, "0.0.0.0:3001"},
		{"port and address", map[string]string{"API_PORT": "3001", "API_BIND_IP": "127.0.0.1"}, nil,
			func(o opts) any { return o.Listen }, "127.0.0.1:3001"},
		{"port from another variable", map[string]string{"API_PORT_FROM_ENV": "PORT", "PORT": "8080", "API_BIND_IP": "::1"}, nil,
			func(o opts) any { return o.Listen }, "[::1]:8080"},
		{"--listen wins over the port", map[string]string{"API_PORT": "3001"}, []string{"--listen", "127.0.0.1:9"},
			func(o opts) any { return o.Listen }, "127.0.0.1:9"},
		{"route groups off", map[string]string{"LIBREOFFICE_DISABLE_ROUTES": "true", "PDFENGINES_DISABLE_ROUTES": "1", "CHROMIUM_DISABLE_ROUTES": "false"}, nil,
			func(o opts) any { return o.Routes.Disabled }, []string{"libreoffice", "pdfengines"}},
		{"debug route", map[string]string{"API_ENABLE_DEBUG_ROUTE": "true"}, nil,
			func(o opts) any { return [2]bool{o.Routes.Debug, o.DebugData} }, [2]bool{true, true}},
		{"debug route without data", map[string]string{"API_ENABLE_DEBUG_ROUTE": "true", "GOTENBERG_BUILD_DEBUG_DATA": "false"}, nil,
			func(o opts) any { return [2]bool{o.Routes.Debug, o.DebugData} }, [2]bool{true, false}},
		{"metrics", map[string]string{"PROMETHEUS_NAMESPACE": "foo", "PROMETHEUS_METRICS_PATH": "/custom/metrics", "PROMETHEUS_DISABLE_COLLECT": "true"}, nil,
			func(o opts) any { return [3]any{o.Routes.MetricsNamespace, o.Routes.MetricsPath, o.Routes.NoMetrics} },
			[3]any{"foo", "/custom/metrics", true}},
		{"metrics defaults", nil, nil,
			func(o opts) any { return [3]any{o.Routes.MetricsNamespace, o.Routes.MetricsPath, o.Routes.NoMetrics} },
			[3]any{"gotenberg", "/prometheus/metrics", false}},
		{"logged routes", map[string]string{"API_DISABLE_HEALTH_CHECK_ROUTE_TELEMETRY": "false", "PROMETHEUS_DISABLE_ROUTE_TELEMETRY": "false",
			"API_DISABLE_VERSION_ROUTE_TELEMETRY": "true"}, nil,
			func(o opts) any { return o.Routes.Logged }, []string{"health", "metrics"}},
		{"basic auth", map[string]string{"API_ENABLE_BASIC_AUTH": "true", "GOTENBERG_API_BASIC_AUTH_USERNAME": "foo", "GOTENBERG_API_BASIC_AUTH_PASSWORD": "bar"}, nil,
			func(o opts) any { return [2]string{o.BasicUser, o.BasicPassword} }, [2]string{"foo", "bar"}},
		{"basic auth off", map[string]string{"API_ENABLE_BASIC_AUTH": "false", "GOTENBERG_API_BASIC_AUTH_USERNAME": "foo", "GOTENBERG_API_BASIC_AUTH_PASSWORD": "bar"}, nil,
			func(o opts) any { return o.BasicUser }, ""},
		{"log", map[string]string{"LOG_LEVEL": "debug", "LOG_FORMAT": "json"}, nil,
			func(o opts) any { return [2]string{o.LogLevel, o.LogFormat} }, [2]string{"debug", "json"}},
		{"log format auto", map[string]string{"LOG_FORMAT": "auto"}, nil,
			func(o opts) any { return o.LogFormat }, "auto"},
		{"LibreOffice", map[string]string{"LIBREOFFICE_RESTART_AFTER": "10", "LIBREOFFICE_START_TIMEOUT": "20s", "LIBREOFFICE_MAX_QUEUE_SIZE": "0"}, nil,
			func(o opts) any { return [3]any{o.RestartAfter, o.StartTimeout, o.MaxQueued} }, [3]any{10, 20 * time.Second, 2000}},
		{"webhooks", map[string]string{"WEBHOOK_MAX_RETRY": "2", "WEBHOOK_RETRY_MIN_WAIT": "2s", "WEBHOOK_RETRY_MAX_WAIT": "10s",
			"WEBHOOK_CLIENT_TIMEOUT": "5s", "WEBHOOK_ALLOW_LIST": ".+", "WEBHOOK_DENY_PRIVATE_IPS": "false"}, nil,
			func(o opts) any {
				return [4]any{o.Webhook.MaxAttempts, o.Webhook.Base, o.Webhook.Max, o.Webhook.AttemptTimeout}
			},
			[4]any{3, 2 * time.Second, 10 * time.Second, 5 * time.Second}},
		{"webhooks off", map[string]string{"WEBHOOK_DISABLE": "true"}, nil,
			func(o opts) any { return o.NoWebhooks }, true},
		{"downloads off", map[string]string{"API_DISABLE_DOWNLOAD_FROM": "true"}, nil,
			func(o opts) any { return o.NoDownloadFrom }, true},
		{"empty deny lists", map[string]string{"API_DOWNLOAD_FROM_DENY_LIST": "", "WEBHOOK_DENY_LIST": " ", "WEBHOOK_DENY_PUBLIC_IPS": "false"}, nil,
			func(o opts) any { return o.NoDownloadFrom }, false},
		{"webhooks synchronous", map[string]string{"WEBHOOK_ENABLE_SYNC_MODE": "true"}, nil,
			func(o opts) any { return o.WebhookSync }, true},
		{"engines and Chromium accepted", map[string]string{"PDFENGINES_MERGE_ENGINES": "qpdf,pdfcpu", "PDFENGINES_ENGINES": "pdftk",
			"CHROMIUM_ALLOW_LIST": ".+", "API_DOWNLOAD_FROM_ALLOW_LIST": ".+", "API_TRACE_HEADER": "Gotenberg-Trace"}, nil,
			func(o opts) any { return o.Routes.Disabled }, []string(nil)},
		{"grace", map[string]string{"GOTENBERG_GRACEFUL_SHUTDOWN_DURATION": "5s"}, nil,
			func(o opts) any { return o.Grace }, 5 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := parse(t, c.env, c.args...)
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if got := c.check(o); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %#v, want %#v", got, c.want)
			}
		})
	}
}

// TestGotenbergEnvRefused: a value calq serve cannot take is refused,
// the error naming the variable and the reason.
func TestGotenbergEnvRefused(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"timeout", map[string]string{"API_TIMEOUT": "soon"}, nil, `API_TIMEOUT: "soon": want a duration`},
		{"boolean", map[string]string{"LIBREOFFICE_DISABLE_ROUTES": "yes please"}, nil, `LIBREOFFICE_DISABLE_ROUTES: "yes please": want true or false`},
		{"port", map[string]string{"API_PORT": "70000"}, nil, `API_PORT "70000"`},
		{"bind address", map[string]string{"API_BIND_IP": "localhost"}, nil, `API_BIND_IP "localhost"`},
		{"root path", map[string]string{"API_ROOT_PATH": "pdf"}, nil, `API_ROOT_PATH: root path "pdf"`},
		{"namespace", map[string]string{"PROMETHEUS_NAMESPACE": "my-ns"}, nil, `PROMETHEUS_NAMESPACE: metrics namespace "my-ns"`},
		{"metrics path", map[string]string{"PROMETHEUS_METRICS_PATH": "/a b"}, nil, `PROMETHEUS_METRICS_PATH: metrics path "/a b"`},
		{"body limit", map[string]string{"API_BODY_LIMIT": "lots"}, nil, `API_BODY_LIMIT: "lots": want a size`},
		{"basic auth without its password", map[string]string{"API_ENABLE_BASIC_AUTH": "true", "GOTENBERG_API_BASIC_AUTH_USERNAME": "foo"}, nil,
			"GOTENBERG_API_BASIC_AUTH_PASSWORD"},
		{"--basic-auth-user without a password", nil, []string{"--basic-auth-user", "foo"}, "CALQ_BASIC_AUTH_PASSWORD"},
		{"OIDC", map[string]string{"API_ENABLE_OIDC_AUTH": "true"}, nil, "API_ENABLE_OIDC_AUTH: calq serve has no OIDC"},
		{"trace header", map[string]string{"API_TRACE_HEADER": "X-Request-Id"}, nil, `API_TRACE_HEADER: "X-Request-Id": calq serve uses Gotenberg-Trace only`},
		{"an engine", map[string]string{"PDFENGINES_MERGE_ENGINES": "ghostscript"}, nil, `PDFENGINES_MERGE_ENGINES: "ghostscript" is not one of Gotenberg's engines`},
		{"a URL pattern", map[string]string{"WEBHOOK_ALLOW_LIST": `^https://hooks\.example\.com/`}, nil, "WEBHOOK_ALLOW_LIST: "},
		{"log level", map[string]string{"LOG_LEVEL": "loud"}, nil, `LOG_LEVEL: "loud": want one of debug, info, warn, error`},
		{"queue size", map[string]string{"LIBREOFFICE_MAX_QUEUE_SIZE": "-1"}, nil, `LIBREOFFICE_MAX_QUEUE_SIZE: "-1"`},
		{"retries", map[string]string{"WEBHOOK_MAX_RETRY": "many"}, nil, "WEBHOOK_MAX_RETRY: want a number of retries"},
		{"a deny list", map[string]string{"WEBHOOK_DENY_LIST": `^https://internal\.`}, nil, "WEBHOOK_DENY_LIST: "},
		{"a download deny list", map[string]string{"API_DOWNLOAD_FROM_DENY_LIST": `.*\.local`}, nil, "does not filter by URL pattern"},
		{"public addresses denied", map[string]string{"API_DOWNLOAD_FROM_DENY_PUBLIC_IPS": "true"}, nil, "cannot refuse public addresses only"},
		{"route group flag", nil, []string{"--disable-routes", "office"}, `route group "office"`},
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
