package servecmd

import (
	"calq/convert/chromium"
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/internal/serve"
)

// gotenbergVar maps one of Gotenberg's environment variables onto a flag
// of calq serve, so that a docker-compose file or a manifest written for
// Gotenberg starts calq serve unchanged. The flag wins over the
// variable, as its own CALQ_ variable does.
type gotenbergVar struct {
	name string // Gotenberg's variable
	flag string // the flag it sets; "": accepted, nothing to set in calq
	// value is the flag's value for the variable's, or why it is
	// refused; "" sets nothing. nil: the value as it is.
	value func(v string) (string, error)
}

// gotenbergVars is the table of Gotenberg's settings calq serve reads.
// Those that choose one of Gotenberg's external engines are accepted with
// a value of their kind: calq has one engine for each task. Rows are
// applied in order: of two rows setting one flag to one value, the
// later wins.
var gotenbergVars = []gotenbergVar{
	{"API_TIMEOUT", "request-timeout", duration},
	{"API_ROOT_PATH", "root-path", routes(func(v string) serve.RouteOptions { return serve.RouteOptions{RootPath: v} })},
	{"API_BODY_LIMIT", "max-body", size},
	{"API_TLS_CERT_FILE", "tls-cert", nil},
	{"API_TLS_KEY_FILE", "tls-key", nil},
	{"API_ENABLE_DEBUG_ROUTE", "debug-route", boolean},
	{"API_ENABLE_OIDC_AUTH", "", refuseTrue("calq serve has no OIDC: give each client a user and a key (calq users add, calq users key)")},
	{"API_TRACE_HEADER", "", only("Gotenberg-Trace")},
	{"API_CORRELATION_ID_HEADER", "", only("Gotenberg-Trace")},
	{"API_START_TIMEOUT", "", duration},
	{"API_DISABLE_HEALTH_CHECK_LOGGING", "log-routes", unless("health")},
	{"API_DISABLE_HEALTH_CHECK_ROUTE_TELEMETRY", "log-routes", unless("health")},
	{"API_DISABLE_VERSION_ROUTE_TELEMETRY", "log-routes", unless("version")},
	{"API_DISABLE_ROOT_ROUTE_TELEMETRY", "log-routes", unless("root")},
	{"API_DISABLE_DEBUG_ROUTE_TELEMETRY", "log-routes", unless("debug")},
	{"API_DOWNLOAD_FROM_ALLOW_LIST", "webhook-allow", everyNetwork(anyURL)}, // one policy for webhooks and downloads
	{"API_DOWNLOAD_FROM_DENY_LIST", "", noPatterns},
	{"API_DOWNLOAD_FROM_DENY_PRIVATE_IPS", "webhook-allow", privateAllowed},
	{"API_DOWNLOAD_FROM_DENY_PUBLIC_IPS", "", refuseTrue(noPublicDeny)},
	{"API_DISABLE_DOWNLOAD_FROM", "no-download-from", boolean},
	{"GOTENBERG_GRACEFUL_SHUTDOWN_DURATION", "grace", duration},
	{"GOTENBERG_BUILD_DEBUG_DATA", "debug-data", boolean},
	{"LOG_LEVEL", "log-level", oneOf("debug", "info", "warn", "error")},
	{"LOG_FORMAT", "log-format", oneOf("auto", "text", "json")},
	{"LIBREOFFICE_DISABLE_ROUTES", "disable-routes", when("libreoffice")},
	{"LIBREOFFICE_RESTART_AFTER", "restart-after", count},
	{"LIBREOFFICE_START_TIMEOUT", "start-timeout", duration},
	// One bound on the files waiting, for every converter; the
	// LibreOffice variable, read after, wins when both are set.
	{"CHROMIUM_MAX_QUEUE_SIZE", "max-queued", count},
	{"LIBREOFFICE_MAX_QUEUE_SIZE", "max-queued", count},
	{"LIBREOFFICE_AUTO_START", "", boolean},
	{"LIBREOFFICE_IDLE_SHUTDOWN_TIMEOUT", "", duration},
	{"PDFENGINES_DISABLE_ROUTES", "disable-routes", when("pdfengines")},
	{"CHROMIUM_DISABLE_ROUTES", "disable-routes", when("chromium")},
	{"CHROMIUM_MAX_CONCURRENCY", "chromium-tabs", count},
	{"CHROMIUM_RESTART_AFTER", "chromium-restart-after", number},
	{"CHROMIUM_START_TIMEOUT", "chromium-start-timeout", duration},
	{"CHROMIUM_DISABLE_JAVASCRIPT", "chromium-disable-javascript", boolean},
	{"CHROMIUM_ALLOW_LIST", "chromium-allow-list", regexps},
	{"CHROMIUM_ALLOW_LIST", "chromium-allow", everyNetworkIf(matchesAll)}, // a match skips the address's check, in Gotenberg
	{"CHROMIUM_DENY_LIST", "chromium-deny-list", denyRegexps},
	{"CHROMIUM_DENY_PRIVATE_IPS", "chromium-allow", privateAllowed},
	{"CHROMIUM_DENY_PUBLIC_IPS", "chromium-deny-public", boolean},
	{"CHROMIUM_IGNORE_CERTIFICATE_ERRORS", "chromium-ignore-certificate-errors", boolean},
	{"CHROMIUM_ALLOW_INSECURE_LOCALHOST", "chromium-allow-insecure-localhost", boolean},
	{"CHROMIUM_DISABLE_WEB_SECURITY", "chromium-disable-web-security", boolean},
	{"CHROMIUM_ALLOW_FILE_ACCESS_FROM_FILES", "chromium-allow-file-access-from-files", boolean},
	{"CHROMIUM_HOST_RESOLVER_RULES", "chromium-host-resolver-rules", nil},
	{"CHROMIUM_PROXY_SERVER", "chromium-proxy-server", nil},
	{"CHROMIUM_ENABLE_ENVIRONMENT_PROXY", "", refuseTrue("calq serve does not pass HTTP_PROXY to Chromium: set CHROMIUM_PROXY_SERVER (--chromium-proxy-server)")},
	// Every page already has a fresh browser context: nothing to clear.
	{"CHROMIUM_CLEAR_CACHE", "", boolean},
	{"CHROMIUM_CLEAR_COOKIES", "", boolean},
	{"CHROMIUM_CLEAR_STORAGE", "", boolean},
	{"CHROMIUM_INCOGNITO", "", boolean},
	// The pool starts at the first page and keeps its browsers.
	{"CHROMIUM_AUTO_START", "", boolean},
	{"CHROMIUM_IDLE_SHUTDOWN_TIMEOUT", "", duration},
	{"PROMETHEUS_NAMESPACE", "metrics-namespace", routes(func(v string) serve.RouteOptions { return serve.RouteOptions{MetricsNamespace: v} })},
	{"PROMETHEUS_METRICS_PATH", "metrics-path", routes(func(v string) serve.RouteOptions { return serve.RouteOptions{MetricsPath: v} })},
	{"PROMETHEUS_DISABLE_COLLECT", "no-metrics", boolean},
	{"PROMETHEUS_DISABLE_ROUTE_TELEMETRY", "log-routes", unless("metrics")},
	{"PROMETHEUS_COLLECT_INTERVAL", "", duration},
	{"WEBHOOK_DISABLE", "no-webhooks", boolean},
	{"WEBHOOK_ENABLE_SYNC_MODE", "webhook-sync", boolean},
	{"WEBHOOK_MAX_RETRY", "webhook-attempts", func(v string) (string, error) {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 100 {
			return "", fmt.Errorf("want a number of retries from 0 to 100")
		}
		return strconv.Itoa(n + 1), nil
	}},
	{"WEBHOOK_RETRY_MIN_WAIT", "webhook-retry-min", duration},
	{"WEBHOOK_RETRY_MAX_WAIT", "webhook-retry-max", duration},
	{"WEBHOOK_CLIENT_TIMEOUT", "webhook-timeout", duration},
	{"WEBHOOK_ALLOW_LIST", "webhook-allow", everyNetwork(anyURL)},
	{"WEBHOOK_DENY_PRIVATE_IPS", "webhook-allow", privateAllowed},
	{"WEBHOOK_DENY_LIST", "", noPatterns},
	{"WEBHOOK_ERROR_ALLOW_LIST", "webhook-allow", everyNetwork(anyURL)},
	{"WEBHOOK_ERROR_DENY_LIST", "", noPatterns},
	{"WEBHOOK_DENY_PUBLIC_IPS", "", refuseTrue(noPublicDeny)},
}

// The engines Gotenberg's PDFENGINES_*_ENGINES variables may name.
var gotenbergEngines = []string{"qpdf", "pdfcpu", "pdftk", "exiftool", "libreoffice-pdfengine"}

// applyGotenbergEnv sets, from the variables lookup finds, each flag of
// gotenbergVars that the command line and its CALQ_ variable left unset;
// it refuses a value it cannot take, naming the variable. Gotenberg's
// PDF engine choices are accepted as they are.
func applyGotenbergEnv(c *cli.Context, lookup func(string) (string, bool)) error {
	var errs base.FlagErrors
	given := map[string]bool{}
	for _, f := range c.Command.Flags {
		for _, n := range f.Names() {
			given[n] = c.IsSet(n)
		}
	}
	set := func(name, flag, v string) {
		if v == "" || flag == "" || given[flag] {
			return
		}
		if err := c.Set(flag, v); err != nil {
			errs.Add(fmt.Errorf("%s=%q: %w", name, v, err))
		}
	}
	for _, g := range gotenbergVars {
		v, _ := lookup(g.name)
		if v == "" || g.flag != "" && given[g.flag] {
			continue // unset, emptied as compose files do, or its flag wins
		}
		if g.value != nil {
			var err error
			if v, err = g.value(v); err != nil {
				errs.Add(fmt.Errorf("%s: %w", g.name, err))
				continue
			}
		}
		set(g.name, g.flag, v)
	}
	if v, err := gotenbergListen(lookup); err != nil {
		errs.Add(err)
	} else {
		set("API_PORT", "listen", v)
	}
	if v, err := gotenbergBasicAuth(lookup); err != nil {
		errs.Add(err)
	} else {
		set("API_ENABLE_BASIC_AUTH", "basic-auth-user", v)
	}
	if err := checkEngines(lookup); err != nil {
		errs.Add(err)
	}
	return errs.Err(c)
}

// gotenbergListen is --listen from API_PORT (or the variable that
// API_PORT_FROM_ENV names) and API_BIND_IP: Gotenberg listens on every
// address unless bound to one; "" without them.
func gotenbergListen(lookup func(string) (string, bool)) (string, error) {
	port, _ := lookup("API_PORT")
	if from, ok := lookup("API_PORT_FROM_ENV"); ok && from != "" {
		port, _ = lookup(from)
	}
	ip, _ := lookup("API_BIND_IP")
	if port == "" && ip == "" {
		return "", nil
	}
	if port == "" {
		port = "3000"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("API_PORT %q: want a port from 1 to 65535", port)
	}
	if ip == "" {
		ip = "0.0.0.0"
	} else if net.ParseIP(ip) == nil {
		return "", fmt.Errorf("API_BIND_IP %q: want an IP address", ip)
	}
	return net.JoinHostPort(ip, port), nil
}

// checkEngines accepts the PDFENGINES_*_ENGINES variables when they name
// Gotenberg's engines: calq does each task with its one engine.
func checkEngines(lookup func(string) (string, bool)) error {
	for _, task := range []string{"", "MERGE_", "SPLIT_", "FLATTEN_", "CONVERT_", "OPTIMIZE_IMAGES_", "READ_METADATA_",
		"WRITE_METADATA_", "ENCRYPT_", "EMBED_", "EMBED_METADATA_", "READ_BOOKMARKS_", "WRITE_BOOKMARKS_",
		"WATERMARK_", "STAMP_", "ROTATE_", "FACTUR_X_"} {
		name := "PDFENGINES_" + task + "ENGINES"
		v, _ := lookup(name)
		for _, e := range strings.Split(v, ",") {
			if e = strings.TrimSpace(e); e != "" && !slices.Contains(gotenbergEngines, e) {
				return fmt.Errorf("%s: %q is not one of Gotenberg's engines (%s); calq has one engine for each task",
					name, e, strings.Join(gotenbergEngines, ", "))
			}
		}
	}
	return nil
}

// routes checks a value as the route setting opts makes of it.
func routes(opts func(string) serve.RouteOptions) func(string) (string, error) {
	return func(v string) (string, error) { return v, opts(v).Check() }
}

func size(v string) (string, error) {
	if _, err := humanize.ParseBytes(v); err != nil {
		return "", fmt.Errorf("%q: want a size such as 100MB", v)
	}
	return v, nil
}

func duration(v string) (string, error) {
	if _, err := time.ParseDuration(v); err != nil {
		return "", fmt.Errorf("%q: want a duration such as 30s", v)
	}
	return v, nil
}

func count(v string) (string, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return "", fmt.Errorf("%q: want a number, 0 or more", v)
	}
	if n == 0 {
		return "", nil // Gotenberg's "no limit": calq keeps its own bound
	}
	return v, nil
}

func boolean(v string) (string, error) {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return "", fmt.Errorf("%q: want true or false", v)
	}
	return strconv.FormatBool(b), nil
}

// when is a variable that adds name to a list flag when true; unless,
// when false.
func when(name string) func(string) (string, error)   { return listIf("true", name) }
func unless(name string) func(string) (string, error) { return listIf("false", name) }

func listIf(on, name string) func(string) (string, error) {
	return func(v string) (string, error) {
		b, err := boolean(v)
		if err != nil || b != on {
			return "", err
		}
		return name, nil
	}
}

func refuseTrue(why string) func(string) (string, error) {
	return func(v string) (string, error) {
		b, err := boolean(v)
		if err == nil && b == "true" {
			err = fmt.Errorf("%s", why)
		}
		return "", err
	}
}

func oneOf(values ...string) func(string) (string, error) {
	return func(v string) (string, error) {
		if !slices.Contains(values, v) {
			return "", fmt.Errorf("%q: want one of %s", v, strings.Join(values, ", "))
		}
		return v, nil
	}
}

// only accepts a variable whose value is calq's one behaviour.
func only(want string) func(string) (string, error) {
	return func(v string) (string, error) {
		if !strings.EqualFold(v, want) {
			return "", fmt.Errorf("%q: calq serve uses %s only", v, want)
		}
		return "", nil
	}
}

// allNetworks is --webhook-allow's value that lets every address
// through: what an allow list matching every URL means to Gotenberg,
// whose allow list, once it matches, skips the check of the address.
const allNetworks = "0.0.0.0/0,::/0"

// everyNetwork turns an allow list that check accepts (one that matches
// every URL) into allNetworks.
func everyNetwork(check func(string) (string, error)) func(string) (string, error) {
	return func(v string) (string, error) {
		if _, err := check(v); err != nil {
			return "", err
		}
		if strings.Trim(v, " ,") == "" {
			return "", nil
		}
		return allNetworks, nil
	}
}

// privateAllowed is WEBHOOK_DENY_PRIVATE_IPS: false lets webhooks reach
// private and loopback addresses, as Gotenberg's setting does.
func privateAllowed(v string) (string, error) {
	on, err := boolean(v)
	if err != nil || on == "true" {
		return "", err
	}
	return allNetworks, nil
}

// anyURL accepts an allow list that lets every URL through (Gotenberg's
// default, and its test suite's ".+"): calq filters by network, with
// --webhook-allow, and cannot honour a list of URL patterns.
func anyURL(v string) (string, error) {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" && p != ".+" && p != ".*" {
			if _, err := regexp.Compile(p); err != nil {
				return "", fmt.Errorf("%q: not a regular expression: %w", p, err)
			}
			return "", fmt.Errorf("%q: calq serve does not filter by URL pattern; it refuses private and loopback addresses unless --webhook-allow lets them", p)
		}
	}
	return "", nil
}

// noPatterns accepts an empty deny list only: calq serve filters by
// network, not by URL pattern, and starting without a deny list the
// operator wrote would let through what it was meant to stop.
func noPatterns(v string) (string, error) {
	if strings.Trim(v, " ,") != "" {
		return "", fmt.Errorf("%q: calq serve does not filter by URL pattern, so it will not start with a deny list; it refuses private, loopback and reserved addresses unless --webhook-allow lets them", v)
	}
	return "", nil
}

const noPublicDeny = "calq serve cannot refuse public addresses only; leave it false, or turn the feature off (--no-webhooks, --no-download-from)"

// gotenbergBasicAuth is --basic-auth-user from API_ENABLE_BASIC_AUTH
// and GOTENBERG_API_BASIC_AUTH_USERNAME, which needs its password.
func gotenbergBasicAuth(lookup func(string) (string, bool)) (string, error) {
	on, _ := lookup("API_ENABLE_BASIC_AUTH")
	if on == "" {
		return "", nil
	}
	b, err := boolean(on)
	if err != nil || b == "false" {
		if err != nil {
			err = fmt.Errorf("API_ENABLE_BASIC_AUTH: %w", err)
		}
		return "", err
	}
	name, _ := lookup("GOTENBERG_API_BASIC_AUTH_USERNAME")
	if pw, _ := lookup("GOTENBERG_API_BASIC_AUTH_PASSWORD"); name == "" || pw == "" {
		return "", errors.New("API_ENABLE_BASIC_AUTH=true: set GOTENBERG_API_BASIC_AUTH_USERNAME and GOTENBERG_API_BASIC_AUTH_PASSWORD")
	}
	return name, nil
}

// basicAuthPassword is the password of --basic-auth-user: from the
// environment only, where ps does not show it.
func basicAuthPassword(lookup func(string) (string, bool)) string {
	for _, name := range []string{"CALQ_BASIC_AUTH_PASSWORD", "GOTENBERG_API_BASIC_AUTH_PASSWORD"} {
		if v, ok := lookup(name); ok && v != "" {
			return v
		}
	}
	return ""
}

// number is a count where 0 means what it says (CHROMIUM_RESTART_AFTER's
// "never").
func number(v string) (string, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return "", fmt.Errorf("%q: want a number, 0 or more", v)
	}
	return strconv.Itoa(n), nil
}

// regexps checks a comma-separated list of regular expressions, as
// Gotenberg reads its lists, in its syntax (regexp2's).
func regexps(v string) (string, error) { return checkRegexps(v, "") }

// denyRegexps is regexps for a deny list, which may hold Gotenberg's
// default (gotenbergFileDeny).
func denyRegexps(v string) (string, error) { return checkRegexps(v, gotenbergFileDeny) }

// checkRegexps checks the list v, but for the entry ok.
func checkRegexps(v, ok string) (string, error) {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p == "" || p == ok {
			continue
		}
		if _, err := chromium.CompilePattern(p, false); err != nil {
			return "", err
		}
	}
	return v, nil
}

// matchesAll reports, as an error, a list of patterns some of which do
// not match every URL.
func matchesAll(v string) (string, error) {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" && !slices.Contains([]string{".+", ".*", "^.+", "^.*", "^.+$", "^.*$"}, p) {
			return "", errors.New("not every URL")
		}
	}
	return "", nil
}

// everyNetworkIf is everyNetwork when check accepts the value, else
// nothing.
func everyNetworkIf(check func(string) (string, error)) func(string) (string, error) {
	return func(v string) (string, error) {
		if _, err := check(v); err != nil {
			return "", nil
		}
		return everyNetwork(check)(v)
	}
}
