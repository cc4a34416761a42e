package servecmd

import (
	"calq/internal/cli/base"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"calq/internal/serve"
	"calq/internal/serve/users"
)

// routeFlags are the flags of the routes, the log, LibreOffice's
// restarts and the webhooks that Gotenberg's variables also set
// (gotenbergVars).
func routeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "root-path", EnvVars: []string{"CALQ_ROOT_PATH"}, Usage: "serve every route under `PATH` (/pdf/: /pdf/health, /pdf/forms/..., the pages)"},
		&cli.StringSliceFlag{Name: "disable-routes", Usage: "answer 404 on a `GROUP` of routes: libreoffice, pdfengines or chromium (repeatable)"},
		&cli.BoolFlag{Name: "debug-route", Usage: "serve GET /debug: the version, the architecture, the parts and the flags of this server"},
		&cli.BoolFlag{Name: "debug-data", Value: true, Usage: "fill GET /debug's fields (--debug-data=false leaves them empty)"},
		&cli.StringFlag{Name: "metrics-path", Value: "/prometheus/metrics", Usage: "serve the Prometheus metrics at `PATH`"},
		&cli.StringFlag{Name: "metrics-namespace", Value: "gotenberg", Usage: "begin the names of Gotenberg's metrics with `NAME` (calq's own are calq_serve_...)"},
		&cli.BoolFlag{Name: "no-metrics", Usage: "serve no Prometheus metrics (404)"},
		&cli.StringSliceFlag{Name: "log-routes", Usage: "log the requests of these quiet `ROUTE`s too: health, version, root, debug, metrics (repeatable)"},
		&cli.StringFlag{Name: "log-level", Value: "info", Usage: "log from this `LEVEL` up: debug, info, warn or error (--quiet: warn)"},
		&cli.StringFlag{Name: "log-format", Value: "auto", Usage: "log as text, json, or auto: json unless stderr is a terminal"},
		&cli.StringFlag{Name: "basic-auth-user", Usage: "make `NAME` a user whose key is $CALQ_BASIC_AUTH_PASSWORD (Gotenberg's Basic auth: any Basic user name with that password)"},
		&cli.IntFlag{Name: "restart-after", Usage: "restart a LibreOffice instance after this many conversions", DefaultText: "200"},
		&cli.DurationFlag{Name: "start-timeout", Usage: "how long a LibreOffice instance may take to start", DefaultText: "60s"},
		&cli.BoolFlag{Name: "no-webhooks", Usage: "refuse requests that ask for a webhook (400)"},
		&cli.BoolFlag{Name: "no-download-from", Usage: "refuse requests whose downloadFrom field lists URLs (400): fetch nothing for a client"},
		&cli.BoolFlag{Name: "webhook-sync", Usage: "answer a request that asks for a webhook (204) once the webhook is delivered, not at once"},
		&cli.IntFlag{Name: "webhook-attempts", Value: 4, Usage: "attempts to deliver a webhook before it is left"},
		&cli.DurationFlag{Name: "webhook-retry-min", Value: time.Second, Usage: "the wait before a webhook's first retry, doubled each retry"},
		&cli.DurationFlag{Name: "webhook-retry-max", Value: 30 * time.Second, Usage: "the longest wait between a webhook's attempts"},
		&cli.DurationFlag{Name: "webhook-timeout", Value: 30 * time.Second, Usage: "one attempt to deliver a webhook, upload included"},
	}
}

// readRouteOpts reads routeFlags into o and says what is wrong with them.
func readRouteOpts(c *cli.Context, o *opts, lookup func(string) (string, bool)) []error {
	o.Routes = serve.RouteOptions{RootPath: c.String("root-path"), Disabled: c.StringSlice("disable-routes"),
		Debug: c.Bool("debug-route"), MetricsPath: c.String("metrics-path"), MetricsNamespace: c.String("metrics-namespace"),
		NoMetrics: c.Bool("no-metrics"), Logged: c.StringSlice("log-routes")}
	o.DebugData, o.LogLevel, o.LogFormat = c.Bool("debug-data"), c.String("log-level"), c.String("log-format")
	o.BasicUser, o.RestartAfter, o.StartTimeout = c.String("basic-auth-user"), c.Int("restart-after"), c.Duration("start-timeout")
	o.NoWebhooks, o.WebhookSync, o.NoDownloadFrom = c.Bool("no-webhooks"), c.Bool("webhook-sync"), c.Bool("no-download-from")
	o.Webhook.MaxAttempts, o.Webhook.Base = c.Int("webhook-attempts"), c.Duration("webhook-retry-min")
	o.Webhook.Max, o.Webhook.AttemptTimeout = c.Duration("webhook-retry-max"), c.Duration("webhook-timeout")
	var errs []error
	if err := o.Routes.Check(); err != nil {
		errs = append(errs, err)
	}
	if !slices.Contains([]string{"debug", "info", "warn", "error"}, o.LogLevel) {
		errs = append(errs, fmt.Errorf("--log-level %q: want debug, info, warn or error", o.LogLevel))
	}
	if !slices.Contains([]string{"auto", "text", "json"}, o.LogFormat) {
		errs = append(errs, fmt.Errorf("--log-format %q: want auto, text or json", o.LogFormat))
	}
	if o.RestartAfter < 0 || o.StartTimeout < 0 {
		errs = append(errs, errors.New("--restart-after and --start-timeout: want 0 (the default) or more"))
	}
	if o.Webhook.MaxAttempts < 1 || o.Webhook.Base <= 0 || o.Webhook.Max < o.Webhook.Base || o.Webhook.AttemptTimeout <= 0 {
		errs = append(errs, errors.New("--webhook-attempts: want 1 or more; --webhook-retry-min, --webhook-retry-max (at least the min) and --webhook-timeout: positive durations"))
	}
	if o.BasicUser != "" {
		if o.BasicPassword = basicAuthPassword(lookup); o.BasicPassword == "" {
			errs = append(errs, fmt.Errorf("--basic-auth-user %s: set its password in CALQ_BASIC_AUTH_PASSWORD (or GOTENBERG_API_BASIC_AUTH_PASSWORD)", o.BasicUser))
		}
	}
	return errs
}

// newLogger is calq serve's log on stderr, as --log-level, --log-format
// and --quiet ask.
func newLogger(w io.Writer, o opts) *slog.Logger {
	var level slog.Level
	level.UnmarshalText([]byte(o.LogLevel))
	if o.Quiet {
		level = max(level, slog.LevelWarn)
	}
	ho := &slog.HandlerOptions{Level: level}
	if o.LogFormat == "json" || o.LogFormat == "auto" && !base.IsTerminal(w) {
		return slog.New(slog.NewJSONHandler(w, ho))
	}
	return slog.New(slog.NewTextHandler(w, ho))
}

// basicAuth makes name (when given) a user whose key is password: the
// user is added when missing, and the key put before from the same
// setting is replaced, so a changed password takes effect at the start.
func basicAuth(ctx context.Context, us *users.Store, name, password string) error {
	if name == "" {
		return nil
	}
	if _, err := us.Get(ctx, name); errors.Is(err, users.ErrNoUser) {
		if _, err := us.Add(ctx, users.User{Name: name}); err != nil {
			return fmt.Errorf("--basic-auth-user: %w", err)
		}
	} else if err != nil {
		return fmt.Errorf("--basic-auth-user: %w", err)
	}
	if err := us.PutKey(ctx, name, password, "basic-auth-password"); err != nil {
		return fmt.Errorf("--basic-auth-user: %w", err)
	}
	return nil
}

// debugData is what GET /debug shows of this server: its version, time
// zone and architecture, its parts, and every flag's value (a password
// is never a flag).
func debugData(c *cli.Context, disabled []string, hasChromium bool) serve.DebugData {
	d := serve.DebugData{Version: version(), Timezone: timezone(), Architecture: runtime.GOARCH,
		ModulesData: map[string]map[string]string{}, Flags: map[string]string{}}
	for _, m := range []string{"api", "chromium", "jobs", "libreoffice", "pages", "pdfengines", "prometheus", "users", "webhook"} {
		if !slices.Contains(disabled, m) && (m != "chromium" || hasChromium) {
			d.Modules = append(d.Modules, m)
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, kv := range bi.Settings {
			if kv.Key == "vcs.revision" || kv.Key == "vcs.time" || kv.Key == "vcs.modified" {
				if d.ModulesData["calq"] == nil {
					d.ModulesData["calq"] = map[string]string{}
				}
				d.ModulesData["calq"][strings.TrimPrefix(kv.Key, "vcs.")] = kv.Value
			}
		}
		for _, dep := range bi.Deps {
			if dep.Path == "github.com/pdfcpu/pdfcpu" {
				d.ModulesData["pdfengines"] = map[string]string{"pdfcpu": dep.Version}
			}
		}
	}
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		v := c.Value(name)
		if s, ok := v.(cli.StringSlice); ok {
			v = "[" + strings.Join(s.Value(), ",") + "]"
		}
		d.Flags[name] = fmt.Sprint(v)
	}
	return d
}

// timezone is the name of the local time zone: TZ's, else UTC when the
// local time is UTC's.
func timezone() string {
	if tz := os.Getenv("TZ"); tz != "" {
		return tz
	}
	if name, off := time.Now().Zone(); off == 0 && name == "UTC" {
		return "UTC"
	}
	return time.Local.String()
}
