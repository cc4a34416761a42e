// Package servecmd is calq serve: the warm pool over HTTP, speaking
// Gotenberg's API, with durable jobs, users and keys (package
// calq/internal/serve).
package servecmd

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"
	"unicode"

	"github.com/dustin/go-humanize"
	"github.com/urfave/cli/v2"

	"calq/convert/lo"
	"calq/convert/pdf"
	"calq/convert/pdfpool"
	"calq/internal/cli/base"
	"calq/internal/dburl"
	"calq/internal/serve"
	"calq/internal/serve/form"
	"calq/internal/serve/jobs"
	"calq/internal/serve/throttle"
	"calq/internal/serve/users"
	"calq/internal/serve/webhook"
	"calq/sched/journal"
	"calq/sched/pgqueue"
)

// opts is what the flags of calq serve ask for.
type opts struct {
	Listen         string
	TLSCert        string
	TLSKey         string
	Instances      int
	StateDir       string
	Data           string
	Grace          time.Duration
	Lease          time.Duration
	HeaderTimeout  time.Duration
	Keep           time.Duration
	KeepRecords    time.Duration // the records of jobs, for the history and the log
	Session        time.Duration // a browser's sign-in
	RequestTimeout time.Duration
	FileTimeout    time.Duration
	Limits         form.Limits
	PDFMemory      int64 // a pdf helper's memory limit
	MaxQueued      int
	MaxQueuedUser  int
	MaxConns       int // connections open at once
	MaxHashes      int // password hashes at once
	WebhookAllow   []string
	Webhook        webhook.Options
	NoWebhooks     bool
	NoDownloadFrom bool
	WebhookSync    bool
	Name           string
	Quiet          bool
	LogLevel       string
	LogFormat      string
	Routes         serve.RouteOptions
	DebugData      bool   // fill GET /debug's fields
	BasicUser      string // a user whose key is BasicPassword (Gotenberg's Basic auth)
	BasicPassword  string
	RestartAfter   int           // LibreOffice conversions before an instance restarts
	StartTimeout   time.Duration // for a LibreOffice instance to start
	Chromium       chromiumOpts
	SMS            smsOpts
}

// Command is calq serve.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "convert over HTTP on a warm LibreOffice pool: Gotenberg's API, durable jobs, users and keys",
		Description: "Keeps a pool of warm LibreOffice instances and serves Gotenberg's routes\n" +
			"(POST /forms/libreoffice/convert, /forms/pdfengines/...), so Gotenberg's clients\n" +
			"work unchanged, plus durable jobs: POST /jobs answers 202 with an id, GET\n" +
			"/jobs/ID gives its state, GET /jobs/ID/result its PDF, DELETE /jobs/ID cancels.\n" +
			"Every accepted request is a job in the journal (--db); a server killed and started\n" +
			"again finishes them. GET /health, GET /version and GET /prometheus/metrics.\n\n" +
			"Once a user exists (calq users add, calq users key), every route but /health needs\n" +
			"a key: Authorization: Bearer KEY, X-Api-Key: KEY, or KEY as Basic auth's password.\n" +
			"It listens on 127.0.0.1:3000; on any other address it refuses to start without\n" +
			"users. Uploads and results live under --data and are deleted after --keep; the\n" +
			"jobs' records (file names, states, errors) after --keep-records.\n\n" +
			"Pages for a browser: open http://ADDR/ and sign in with a user's password\n" +
			"(calq users add NAME --admin asks for one). They convert (with your profiles,\n" +
			"watermark, PDF/A, encryption, mail), show each job's files live, view PDFs,\n" +
			"keep your history, address book and profiles, and give administrators the\n" +
			"users, the log of every job (CSV, JSON Lines) and monitoring. A sign-in lasts\n" +
			"--session. Sign-ins are slowed down per user and per address after 3 failures\n" +
			"(each attempt is counted before its password is checked); at most\n" +
			"--max-password-checks passwords are hashed at once, 19 MiB each, and the memory\n" +
			"is given back after; beyond, 429 with Retry-After. API writes a browser sends\n" +
			"from another site are refused (403); a signed-in browser reads the API with its\n" +
			"session. At most --max-connections connections are open at once (then 503).\n\n" +
			"An uploaded PDF of more than --max-pdf-pages pages, or whose streams inflate\n" +
			"to more than --max-pdf-inflated, is refused (413). pdfcpu's work runs in\n" +
			"helper processes, stopped when a file passes --file-timeout or its helper\n" +
			"--pdf-memory-limit, and when its job is cancelled.\n\n" +
			"SIGINT or SIGTERM stops accepting, lets running conversions finish within\n" +
			"--grace, and leaves queued jobs in the journal for the next start. A job\n" +
			"that was running when calq serve died twice ends failed.\n\n" +
			"When chromium is installed (apt-get install chromium; calq doctor says), the\n" +
			"/forms/chromium routes turn HTML, Markdown and web pages into PDFs and\n" +
			"screenshots on a pool of headless browsers started at the first such request,\n" +
			"so that office documents alone cost nothing more: --chromium-browsers browsers\n" +
			"(" + browserMemory + " of memory each when idle, more for each page open, restarted\n" +
			"over --chromium-memory-limit or after --chromium-restart-after pages), each\n" +
			"rendering --chromium-tabs pages at once, every page in a fresh browser context.\n" +
			"Pages may load no private, loopback or link-local address unless --chromium-allow\n" +
			"lets it, nor a file outside their own upload, nor a URL the lists refuse.\n\n" +
			"Gotenberg's environment variables (API_ROOT_PATH, API_TIMEOUT, API_ENABLE_BASIC_AUTH with\n" +
			"GOTENBERG_API_BASIC_AUTH_USERNAME and _PASSWORD, LIBREOFFICE_DISABLE_ROUTES, CHROMIUM_*, PROMETHEUS_*,\n" +
			"WEBHOOK_*, LOG_LEVEL...) set the flags they match, so a docker-compose file written for\n" +
			"Gotenberg starts calq serve unchanged; a flag wins over its variable. Basic auth's user\n" +
			"is made at the start, its password one of its keys (README: Moving from Gotenberg).\n\n" +
			"With --db postgres://URL, the documents of libreoffice/convert are converted\n" +
			"through the shared queue in that database, by any calq worker or calq serve on\n" +
			"it; this server serves it too, with its own instances (two jobs per instance).\n" +
			"Its jobs, users, uploads and results stay on this machine, in the default\n" +
			"journal and --data: a client fetches a result from the server it sent the\n" +
			"request to. Documents opened with a password and pdfengines/convert stay on\n" +
			"this server's instances. A database that is down at the start, or goes away,\n" +
			"is waited for, with one line when it is lost and one when it is back.\n\n" +
			"SMS over HTTP, for users given the right (calq users set NAME --sms): POST /sms,\n" +
			"GET /sms, GET /sms/ID, DELETE /sms/ID, GET /sms/inbox, Kannel's /cgi-bin/sendsms,\n" +
			"the SMS page, and smsTo on a conversion (numbers or contact names, texted when\n" +
			"the job ends). Messages go to the outbox calq sms uses on --db (with postgres://,\n" +
			"the shared outbox). With --device (repeatable) or [[sms.modem]] in the config\n" +
			"file the server holds the modems, as calq sms daemon does, from its start to its\n" +
			"stop; while another calq sms daemon holds them it only queues, that daemon sends,\n" +
			"and the server takes them over once it stops. Without modems it only queues, for\n" +
			"a calq sms daemon on the same --db (or, with postgres://, on any host). A user\n" +
			"sends at most --sms-rate messages a minute and --sms-quota a day unless calq users\n" +
			"set NAME --sms-rate/--sms-quota says otherwise.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:3000", EnvVars: []string{"CALQ_LISTEN"}, Usage: "listen on `ADDR` (host:port)"},
			&cli.StringFlag{Name: "tls-cert", Usage: "serve HTTPS with the certificate in `FILE` (PEM; with --tls-key)"},
			&cli.StringFlag{Name: "tls-key", Usage: "the private key of --tls-cert, `FILE` (PEM)"},
			&cli.IntFlag{Name: "instances", Usage: "LibreOffice instances, kept warm", DefaultText: "from cores and memory"},
			&cli.StringFlag{Name: "state-dir", Value: lo.DefaultStateDir(), Usage: "keep LibreOffice's profiles in `DIR`"},
			&cli.StringFlag{Name: "data", Usage: "keep uploads and results in `DIR`", DefaultText: "serve/ beside the journal"},
			base.DBFlag(),
			base.ConfigFlag(),
			&cli.DurationFlag{Name: "grace", Value: 30 * time.Second, Usage: "how long running conversions may take to finish after SIGTERM"},
			&cli.DurationFlag{Name: "keep", Value: 24 * time.Hour, Usage: "delete jobs' uploads and results after this long"},
			&cli.DurationFlag{Name: "keep-records", Value: 30 * 24 * time.Hour, Usage: "keep jobs' records (file names, states, errors) for the history and the log this long", DefaultText: "720h (30 days; at least --keep)"},
			&cli.DurationFlag{Name: "session", Value: 12 * time.Hour, Usage: "how long a browser's sign-in lasts"},
			&cli.DurationFlag{Name: "request-timeout", Value: 30 * time.Second, Usage: "a synchronous request's time, queue wait included (then 503)"},
			&cli.DurationFlag{Name: "header-timeout", Value: 10 * time.Second, Usage: "how long a client may take to send a request's headers (slow clients are cut off)"},
			&cli.DurationFlag{Name: "file-timeout", Usage: "one file's conversion time", DefaultText: "60s + 30s per MiB, at most 10m"},
			&cli.StringFlag{Name: "max-body", Value: "512MiB", Usage: "the largest request body (then 413)"},
			&cli.StringFlag{Name: "max-file-size", Value: "100MiB", Usage: "the largest uploaded file (then 413)"},
			&cli.IntFlag{Name: "max-files", Value: 1000, Usage: "the most files in one request (then 413)"},
			&cli.IntFlag{Name: "max-pdf-pages", Value: pdf.DefaultMaxPages, Usage: "the most pages of an uploaded PDF (then 413)"},
			&cli.StringFlag{Name: "max-pdf-inflated", Value: "512MiB", Usage: "the most an uploaded PDF's streams may inflate to, images aside (then 413)"},
			&cli.StringFlag{Name: "pdf-memory-limit", Value: "1GiB", Usage: "stop pdfcpu's work on a file (PDF, image, post-processing) that grows over this, failing it"},
			&cli.IntFlag{Name: "max-queued", Value: 2000, Usage: "the most files waiting in all (then 429)"},
			&cli.IntFlag{Name: "max-queued-per-user", Usage: "the most files waiting per user (then 429)", DefaultText: "--max-queued"},
			&cli.IntFlag{Name: "max-connections", Value: 1024, Usage: "the most connections open at once (then 503)"},
			&cli.IntFlag{Name: "max-password-checks", Value: users.DefaultMaxHashes, Usage: "the most sign-ins and password changes hashed at once, 19 MiB each (then 429)"},
			&cli.DurationFlag{Name: "lease", Value: pgqueue.DefaultLease, Usage: "with a postgres:// --db: how long this server's claims on the shared queue hold without a heartbeat (every lease/3)"},
			&cli.StringSliceFlag{Name: "webhook-allow", Usage: "let webhooks reach these private or loopback `CIDR`s or host[:port]s (repeatable)"},
			&cli.StringFlag{Name: "name", Usage: "with --db postgres://: the name of this server in the shared queue's jobs it converts (calq history groups by it)", DefaultText: "the host's name"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "log only failures"},
		},
			append(append(routeFlags(), chromiumFlags()...), smsFlags()...)...),
		Action: func(c *cli.Context) error {
			if err := applyGotenbergEnv(c, os.LookupEnv); err != nil {
				return err
			}
			o, err := readOpts(c, os.LookupEnv)
			if err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

// readOpts reads and checks the flags; lookup finds the password of
// --basic-auth-user in the environment.
func readOpts(c *cli.Context, lookup func(string) (string, bool)) (opts, error) {
	o := opts{Listen: c.String("listen"), TLSCert: c.String("tls-cert"), TLSKey: c.String("tls-key"),
		Instances: c.Int("instances"), StateDir: c.String("state-dir"), Data: c.String("data"),
		Grace: c.Duration("grace"), Lease: c.Duration("lease"), HeaderTimeout: c.Duration("header-timeout"), Keep: c.Duration("keep"), KeepRecords: c.Duration("keep-records"), Session: c.Duration("session"), RequestTimeout: c.Duration("request-timeout"),
		FileTimeout: c.Duration("file-timeout"), MaxQueued: c.Int("max-queued"), MaxQueuedUser: c.Int("max-queued-per-user"),
		MaxConns: c.Int("max-connections"), MaxHashes: c.Int("max-password-checks"),
		WebhookAllow: c.StringSlice("webhook-allow"), Name: c.String("name"), Quiet: c.Bool("quiet")}
	var errs base.FlagErrors
	if _, _, err := net.SplitHostPort(o.Listen); err != nil {
		errs.Add(fmt.Errorf("--listen %q: want host:port (%v)", o.Listen, err))
	}
	if o.Lease < time.Second {
		errs.Add(fmt.Errorf("--lease %v: want at least 1s", o.Lease))
	}
	if (o.TLSCert == "") != (o.TLSKey == "") {
		errs.Add(errors.New("--tls-cert and --tls-key go together"))
	}
	if o.Instances < 0 {
		errs.Add(fmt.Errorf("--instances %d: want 1 or more", o.Instances))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"grace", o.Grace}, {"header-timeout", o.HeaderTimeout}, {"keep", o.Keep}, {"keep-records", o.KeepRecords}, {"session", o.Session}, {"request-timeout", o.RequestTimeout}, {"file-timeout", o.FileTimeout}} {
		if d.v < 0 || (d.v == 0 && d.name != "file-timeout" && d.name != "grace") {
			errs.Add(fmt.Errorf("--%s %v: want a positive duration", d.name, d.v))
		}
	}
	for _, sz := range []struct {
		name string
		dst  *int64
	}{{"max-body", &o.Limits.MaxBody}, {"max-file-size", &o.Limits.MaxFile}, {"max-pdf-inflated", &o.Limits.PDF.MaxInflated},
		{"pdf-memory-limit", &o.PDFMemory}} {
		n, err := humanize.ParseBytes(c.String(sz.name))
		if err != nil || n == 0 || n > 1<<50 {
			errs.Add(fmt.Errorf("--%s %q: want a size such as 100MiB", sz.name, c.String(sz.name)))
		}
		*sz.dst = int64(min(n, 1<<50))
	}
	o.Limits.MaxFiles, o.Limits.PDF.MaxPages = c.Int("max-files"), c.Int("max-pdf-pages")
	if o.Limits.MaxFiles <= 0 || o.MaxQueued <= 0 || o.MaxQueuedUser < 0 {
		errs.Add(errors.New("--max-files, --max-queued and --max-queued-per-user: want positive numbers"))
	}
	for _, n := range []struct {
		name string
		v    int
	}{{"max-connections", o.MaxConns}, {"max-password-checks", o.MaxHashes}, {"max-pdf-pages", o.Limits.PDF.MaxPages}} {
		if n.v <= 0 {
			errs.Add(fmt.Errorf("--%s %d: want 1 or more", n.name, n.v))
		}
	}
	if _, err := webhook.NewPolicy(o.WebhookAllow); err != nil {
		errs.Add(fmt.Errorf("--webhook-allow: %w", err))
	}
	if c.IsSet("name") && (o.Name == "" || strings.ContainsFunc(o.Name, unicode.IsSpace)) {
		errs.Add(fmt.Errorf("--name %q: want a name without spaces", o.Name))
	} else if err := base.CheckText("--name", o.Name); err != nil {
		errs.Add(err)
	}
	errs.Add(readRouteOpts(c, &o, lookup)...)
	var chromeErrs []error
	o.Chromium, chromeErrs = readChromiumOpts(c, o.Routes.Disabled)
	errs.Add(chromeErrs...)
	if c.Args().Present() {
		errs.Add(fmt.Errorf("unexpected argument %q", c.Args().First()))
	}
	if err := errs.Err(c); err != nil {
		return o, err
	}
	var err error
	o.SMS, err = readSMSOpts(c)
	return o, err
}

// run serves until the context ends (SIGINT, SIGTERM), then stops as
// the description says.
func run(c *cli.Context, o opts) (err error) {
	ctx := c.Context
	stderr := c.App.ErrWriter
	log := newLogger(stderr, o)
	db, sharedURL := base.JournalPath(c), ""
	if dburl.IsPostgres(db) {
		// As calq convert --db postgres://: this machine's own records
		// stay in its journal; the conversions go to the shared queue.
		db, sharedURL = base.DefaultJournalPath(), db
	}
	j, err := journal.Open(ctx, db, journal.Options{})
	if err != nil {
		return err
	}
	defer j.Close()
	us, err := users.Open(ctx, j)
	if err != nil {
		return err
	}
	js, err := jobs.Open(ctx, j)
	if err != nil {
		return err
	}
	if err := basicAuth(ctx, us, o.BasicUser, o.BasicPassword); err != nil {
		return err
	}
	if err := checkListen(ctx, o.Listen, us); err != nil {
		return err
	}
	if o.Data == "" {
		o.Data = filepath.Join(filepath.Dir(db), "serve")
	}
	cfg, err := base.LoadConfig(c)
	if err != nil {
		return err
	}
	policy, err := webhook.NewPolicy(o.WebhookAllow)
	if err != nil {
		return err
	}
	chrome, err := newChromium(o.Chromium, stderr, log)
	if err != nil {
		return err
	}
	if chrome != nil {
		defer chrome.Close()
	}
	fmt.Fprintf(stderr, "calq serve: starting LibreOffice\n")
	// The pool outlives the signal that stops the server: running
	// conversions finish within --grace, then it is closed.
	pool, err := lo.New(context.WithoutCancel(ctx), lo.Options{Instances: o.Instances, StateDir: o.StateDir,
		MaxConversions: o.RestartAfter, StartTimeout: o.StartTimeout})
	if err != nil {
		return err
	}
	defer pool.Close()
	var shared *pgqueue.Queue
	if sharedURL != "" {
		// Started before the database, it waits, as calq worker does;
		// so do its jobs and its worker when the database goes away.
		shared, err = pgqueue.Open(ctx, sharedURL, pgqueue.Options{Lease: o.Lease, Wait: true, Link: base.DBLink(stderr, "calq serve: ", sharedURL),
			MaxConns: int32(serve.SharedConns(len(pool.Instances()), 0))})
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		defer shared.Close()
	}
	host, _, _ := net.SplitHostPort(o.Listen)
	// Helpers for pdfcpu's work, killed with their jobs: its calls
	// cannot be interrupted, nor its memory bounded, in this process.
	pdfs := pdfpool.New(pdfpool.Options{MemoryLimit: o.PDFMemory})
	defer pdfs.Close()
	guesses := throttle.New(throttle.Options{}) // wrong passwords, on the sign-in page and sendsms
	so := serve.Options{Data: o.Data, Jobs: js, Pool: pool, Chromium: chrome, PDF: pdfs, Users: us, RequireUsers: !isLoopback(host),
		Profile: configProfiles(cfg), Mail: mailer(ctx, cfg, j),
		Limits: o.Limits, RequestTimeout: o.RequestTimeout, FileTimeout: o.FileTimeout, Keep: o.Keep,
		MaxQueued: o.MaxQueued, MaxQueuedUser: o.MaxQueuedUser,
		Webhooks: webhook.NewSender(policy, o.Webhook), WebhookPolicy: policy,
		WebhookSync: o.WebhookSync,
		Version:     version(), Log: log, Routes: o.Routes,
		Accounts: us, Throttle: guesses, SessionTTL: o.Session,
		Journal: j, History: j, KeepRecords: o.KeepRecords}
	if o.NoWebhooks {
		so.Webhooks, so.WebhookPolicy = nil, nil
	}
	so.NoDownloadFrom = o.NoDownloadFrom
	if o.DebugData {
		so.Routes.DebugData = debugData(c, o.Routes.Disabled, chrome != nil)
	}
	book, profiles, err := pageStores(ctx, j, o.Data)
	if err != nil {
		return err
	}
	so.Contacts, so.Profiles = serve.BookContacts{Book: book}, profiles
	texts, err := openSMS(ctx, base.JournalPath(c), o.SMS, stderr, log)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, texts.stop()) }()
	if err := texts.service(ctx, j, us, book, policy, o.Webhook, o.NoWebhooks); err != nil {
		return err
	}
	texts.options(&so, us, guesses)
	if shared != nil {
		so.Shared, so.SharedName, so.SharedEvents = shared, o.Name, workerLog(log)
		so.History = shared
	}
	s, err := serve.New(so)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", o.Listen, err)
	}
	ln = limitConns(ln, o.MaxConns, o.TLSCert != "")
	users.Hashes.SetMax(o.MaxHashes)
	srv := newHTTPServer(s.Handler(), o.HeaderTimeout, log)
	if err := s.Start(ctx); err != nil {
		ln.Close()
		return err
	}
	scheme := "http"
	if o.TLSCert != "" {
		scheme = "https"
	}
	fmt.Fprintf(stderr, "calq serve: listening on %s://%s (%d LibreOffice instances, data in %s)\n",
		scheme, ln.Addr(), len(pool.Instances()), o.Data)
	if shared != nil {
		fmt.Fprintf(stderr, "calq serve: converting through the shared queue %s, and serving it\n", shared)
	}
	texts.start(ctx)
	errc := make(chan error, 1)
	go func() {
		if o.TLSCert != "" {
			errc <- srv.ServeTLS(ln, o.TLSCert, o.TLSKey)
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	select {
	case err = <-errc:
	case <-ctx.Done():
	case <-s.Failed():
		err = s.Err()
	case err = <-texts.Failed():
	}
	fmt.Fprintf(stderr, "calq serve: stopping; running conversions get %v\n", o.Grace)
	// The jobs stop (within the grace) while the HTTP side waits for
	// its requests, which wait for their jobs; a request still open after
	// that is cut.
	stopped := make(chan struct{})
	go func() {
		s.Stop(o.Grace)
		close(stopped)
	}()
	sctx, cancel := context.WithTimeout(context.Background(), o.Grace+5*time.Second)
	defer cancel()
	srv.Shutdown(sctx)
	<-stopped
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// workerLog logs what the server's worker on the shared queue does:
// failures as warnings, the rest at debug level.
func workerLog(log *slog.Logger) func(pgqueue.WorkerEvent) {
	return func(ev pgqueue.WorkerEvent) {
		level := slog.LevelDebug
		switch ev.Type {
		case "failed", "timed_out", "lost", "error", "disabled":
			level = slog.LevelWarn
		}
		args := []any{"event", ev.Type, "key", ev.Key, "kind", ev.Kind, "attempt", ev.Attempt}
		if ev.Err != nil {
			args = append(args, "err", ev.Err)
		}
		log.Log(context.Background(), level, "shared queue", args...)
	}
}

// maxStreamsPerConn is how many requests an HTTP/2 connection may have
// in flight at once (Go's default is 100 or more).
const maxStreamsPerConn = 16

// newHTTPServer bounds what a client can hold: the headers' time (slow
// clients), their size, idle connections, and an HTTP/2 connection's
// requests at once; connLimit bounds the connections. Bodies are bounded
// by the request time and sizes in the handlers.
func newHTTPServer(h http.Handler, headerTimeout time.Duration, log *slog.Logger) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: headerTimeout, IdleTimeout: 2 * time.Minute,
		MaxHeaderBytes: 64 << 10, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug),
		TLSConfig: &tls.Config{MinVersion: tls.VersionTLS12},
		HTTP2:     &http.HTTP2Config{MaxConcurrentStreams: maxStreamsPerConn}}
}

// checkListen refuses an address other than loopback while no user can
// authenticate.
func checkListen(ctx context.Context, addr string, us *users.Store) error {
	host, _, _ := net.SplitHostPort(addr)
	if isLoopback(host) {
		return nil
	}
	n, err := us.Count(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	return &base.Hinted{Err: fmt.Errorf("refusing to listen on %s without authentication: anyone who reaches it could convert and read results", addr),
		Help: "add a user and a key first (calq users add NAME; calq users key NAME), or listen on 127.0.0.1"}
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// version is calq's module version, as calq version prints it, for GET
// /version; its VCS revision is in GET /debug.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Version == "" {
		return "(devel)"
	}
	return bi.Main.Version
}
