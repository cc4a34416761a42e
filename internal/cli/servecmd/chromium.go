package servecmd

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/urfave/cli/v2"

	"calq/convert/chromium"
	"calq/internal/serve/webhook"
)

// browserMemory is what one idle browser of the pool costs, said in
// --help; each page it renders costs more while it is open.
const browserMemory = "about 330 MiB" // measured: 324 MiB (Pss) after its first page, its spare tab included

// chromiumFlags are the flags of the Chromium pool, which Gotenberg's
// CHROMIUM_* variables also set (gotenbergVars).
func chromiumFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "chromium", EnvVars: []string{"CALQ_CHROMIUM"}, Usage: "the chromium `PROGRAM` of the /forms/chromium routes", DefaultText: "chromium or chromium-browser on PATH, when installed"},
		&cli.IntFlag{Name: "chromium-browsers", Usage: "Chromium browsers the pool keeps, " + browserMemory + " each idle", DefaultText: "from cores and memory"},
		&cli.IntFlag{Name: "chromium-tabs", Usage: "pages each browser renders at once", DefaultText: fmt.Sprint(chromium.DefaultTabs())},
		&cli.IntFlag{Name: "chromium-restart-after", Value: 100, Usage: "restart a browser after this many pages (0: never)"},
		&cli.StringFlag{Name: "chromium-memory-limit", Usage: "restart a browser whose processes grow over this `SIZE`, failing the pages it renders", DefaultText: humanize.IBytes(uint64(chromium.DefaultMemoryLimit()))},
		&cli.DurationFlag{Name: "chromium-start-timeout", Value: 20 * time.Second, Usage: "how long a browser may take to start"},
		&cli.BoolFlag{Name: "chromium-disable-javascript", Usage: "run no JavaScript in the pages"},
		&cli.StringSliceFlag{Name: "chromium-allow-list", Usage: "pages may load only the URLs matching one of these `REGEXP`s (Go's syntax; repeatable)"},
		&cli.StringSliceFlag{Name: "chromium-deny-list", Usage: "pages may load no URL matching one of these `REGEXP`s (Go's syntax; repeatable)"},
		&cli.StringSliceFlag{Name: "chromium-allow", Usage: "let pages reach these private or loopback `CIDR`s or host[:port]s (repeatable)"},
		&cli.BoolFlag{Name: "chromium-deny-public", Usage: "let pages reach no public address (an air-gapped network)"},
		&cli.BoolFlag{Name: "chromium-ignore-certificate-errors", Usage: "let pages load HTTPS resources whose certificate is not valid"},
		&cli.BoolFlag{Name: "chromium-allow-insecure-localhost", Usage: "let pages load https://localhost with a certificate that is not valid"},
		&cli.BoolFlag{Name: "chromium-disable-web-security", Usage: "do not enforce the same-origin policy in pages (unsafe with untrusted pages)"},
		&cli.BoolFlag{Name: "chromium-allow-file-access-from-files", Usage: "let a file:// page read other file:// URLs of its own conversion"},
		&cli.StringFlag{Name: "chromium-host-resolver-rules", Usage: "Chromium's --host-resolver-rules (`RULES`, MAP host address, ...)"},
		&cli.StringFlag{Name: "chromium-proxy-server", Usage: "send pages' HTTP and HTTPS requests through this proxy (`HOST:PORT` or URL)"},
	}
}

// chromiumOpts is what the Chromium flags ask for.
type chromiumOpts struct {
	Binary   string // "" finds it; given, it must be there
	Config   chromium.Config
	Disabled bool // the chromium route group is off: no pool
}

// readChromiumOpts reads chromiumFlags and says what is wrong with them.
func readChromiumOpts(c *cli.Context, disabled []string) (chromiumOpts, []error) {
	o := chromiumOpts{Binary: c.String("chromium"), Disabled: slices.Contains(disabled, "chromium")}
	cfg := &o.Config
	cfg.Binary, cfg.Browsers, cfg.Tabs, cfg.RestartAfter = o.Binary, c.Int("chromium-browsers"), c.Int("chromium-tabs"), c.Int("chromium-restart-after")
	cfg.StartTimeout, cfg.DisableJavaScript = c.Duration("chromium-start-timeout"), c.Bool("chromium-disable-javascript")
	cfg.IgnoreCertificateErrors, cfg.AllowInsecureLocalhost = c.Bool("chromium-ignore-certificate-errors"), c.Bool("chromium-allow-insecure-localhost")
	cfg.DisableWebSecurity, cfg.AllowFileAccessFromFiles = c.Bool("chromium-disable-web-security"), c.Bool("chromium-allow-file-access-from-files")
	cfg.HostResolverRules, cfg.ProxyServer = c.String("chromium-host-resolver-rules"), c.String("chromium-proxy-server")
	cfg.Policy.DenyPublic = c.Bool("chromium-deny-public")
	var errs []error
	for _, n := range []struct {
		name string
		v    int
	}{{"chromium-browsers", cfg.Browsers}, {"chromium-tabs", cfg.Tabs}, {"chromium-restart-after", cfg.RestartAfter}} {
		if n.v < 0 {
			errs = append(errs, fmt.Errorf("--%s %d: want 0 (the default) or more", n.name, n.v))
		}
	}
	if cfg.StartTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--chromium-start-timeout %v: want a positive duration", cfg.StartTimeout))
	}
	if v := c.String("chromium-memory-limit"); v != "" {
		n, err := humanize.ParseBytes(v)
		if err != nil || n < 64<<20 || n > 1<<50 {
			errs = append(errs, fmt.Errorf("--chromium-memory-limit %q: want a size such as 2GiB, at least 64MiB", v))
		}
		cfg.MemoryLimit = int64(min(n, 1<<50))
	}
	for _, name := range []string{"chromium-host-resolver-rules", "chromium-proxy-server"} {
		if strings.ContainsFunc(c.String(name), func(r rune) bool { return r < ' ' || r == 0x7f }) {
			errs = append(errs, fmt.Errorf("--%s: want one line without control characters", name))
		}
	}
	var err error
	if cfg.Policy.Allow, err = patterns("chromium-allow-list", c.StringSlice("chromium-allow-list")); err != nil {
		errs = append(errs, err)
	}
	if cfg.Policy.Deny, err = patterns("chromium-deny-list", c.StringSlice("chromium-deny-list")); err != nil {
		errs = append(errs, err)
	}
	cfg.Policy.AllowNetworks, cfg.Policy.AllowAllNetworks, err = networks(c.StringSlice("chromium-allow"))
	return o, append(errs, err)
}

// gotenbergFileDeny is Gotenberg's default deny list: file:// URLs
// outside /tmp. calq's own rule is stricter (a page reads files of its
// own upload only, wherever --data is), so calq's deny list takes it as
// said already.
const gotenbergFileDeny = `^file:(?!//\/tmp/).*`

// patterns compiles the regular expressions of flag name, in Gotenberg's
// syntax (chromium.CompilePattern).
func patterns(name string, list []string) ([]chromium.Pattern, error) {
	var res []chromium.Pattern
	deny := name == "chromium-deny-list"
	for _, p := range list {
		if p = strings.TrimSpace(p); p == "" || deny && p == gotenbergFileDeny {
			continue
		}
		re, err := chromium.CompilePattern(p, deny)
		if err != nil {
			return nil, fmt.Errorf("--%s: %w", name, err)
		}
		res = append(res, re)
	}
	return res, nil
}

// networks checks --chromium-allow's entries as --webhook-allow's are
// checked; all says they let every address (0.0.0.0/0 and ::/0).
func networks(list []string) (nets []string, all bool, err error) {
	for _, e := range list {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		if _, err := webhook.NewPolicy([]string{e}); err != nil {
			return nil, false, fmt.Errorf("--chromium-allow %q: %w", e, errors.Unwrap(err))
		}
		nets = append(nets, e)
	}
	return nets, slices.Contains(nets, "0.0.0.0/0") && slices.Contains(nets, "::/0"), nil
}

// newChromium is the pool of the /forms/chromium routes: nil when the
// routes are off, or when no chromium is installed and none was named
// (the routes then answer 503, saying so).
func newChromium(o chromiumOpts, stderr io.Writer, log *slog.Logger) (*chromium.Pool, error) {
	if o.Disabled {
		return nil, nil
	}
	path, version, err := chromium.Find(o.Binary)
	if errors.Is(err, chromium.ErrNotFound) && o.Binary == "" {
		fmt.Fprintf(stderr, "calq serve: no chromium installed: the /forms/chromium routes answer 503 (apt-get install chromium)\n")
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("--chromium: %w", err)
	}
	cfg := o.Config
	cfg.Binary = path
	cfg.Log = func(msg string) { log.Info("chromium: " + msg) }
	fmt.Fprintf(stderr, "calq serve: %s at %s, started at the first page\n", version, path)
	return chromium.New(cfg)
}
