package workercmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/urfave/cli/v2"

	"calq/convert"
	"calq/convert/chromium"
	"calq/convert/lo"
	"calq/internal/childenv"
	"calq/internal/cli/base"
	"calq/internal/cli/smscmd"
	"calq/internal/dburl"
	"calq/internal/pgdb"
	"calq/internal/proc"
	"calq/sched/pgqueue"
	"calq/sched/shell"
	"calq/sms"
	"calq/sms/store"
)

// workerKinds are the job kinds calq worker can run; shell only when named.
// convert is the group of convert.Kinds (what it has always meant) and
// convert.KindHTML, which a worker takes only when it finds Chromium; sms
// is the shared outbox: what calq sms daemon --db does, beside the other
// kinds.
var workerKinds = append([]string{convert.Kind}, append(convert.Kinds(), convert.KindHTML, sms.Kind, shell.Kind)...)

// Command is calq worker.
func Command() *cli.Command { return newCommand(runWorkerCommand) }

// workerOpts is what the flags of calq worker ask for.
type workerOpts struct {
	DB         string        // --db: the shared queue's URL
	SharedRoot string        // --shared-root: where this machine mounts the share, or ""
	Lease      time.Duration // --lease
	Status     bool          // --status: list the workers and exit
	Kinds      []string      // --kinds, convert expanded, sorted, once each; nil with --status
	Name       string        // --name, "" for the host's
	Jobs       int           // --jobs
	Instances  int           // --instances
	StateDir   string        // --state-dir
	Grace      time.Duration // --grace
	JSON       bool          // --json
	Quiet      bool          // --quiet
}

// newCommand is calq worker, whose Action reads its flags and hands them
// to runF: runWorkerCommand, or a test's capture.
func newCommand(runF func(*cli.Context, workerOpts) error) *cli.Command {
	return &cli.Command{
		Name:  "worker",
		Usage: "claim and run jobs from a shared PostgreSQL queue until interrupted",
		Description: "Claims jobs from the shared queue in the PostgreSQL database --db and runs them,\n" +
			"--jobs at a time, until SIGINT or SIGTERM; then it stops its running jobs and\n" +
			"returns them to the queue. Start one on each machine; submit from any with\n" +
			"calq convert --db postgres://... -j 0 or calq sched run --db postgres://... -j 0.\n\n" +
			"--kinds names what it runs. convert (the default) converts the files of calq\n" +
			"convert on a pool of warm LibreOffice instances kept between jobs; it stands for\n" +
			"convert-office, convert-image and convert-pdf, which may be named alone. shell runs\n" +
			"only when named: a shell job from a shared database is remote execution, as\n" +
			"any user able to write to that database can submit one. Jobs run with this\n" +
			"worker's environment, without calq's secrets. sms holds the modems of --device\n" +
			"(or [[sms.modem]] in the config file) and sends the shared outbox's messages\n" +
			"through them, as calq sms daemon --db postgres://... does.\n\n" +
			"Leases and heartbeats use the server's clock. A worker that cannot renew its\n" +
			"leases for a whole --lease (paused, cut off) kills its running jobs and records\n" +
			"nothing; another worker runs them again. --status lists the workers.\n\n" +
			"The jobs it runs record its --name (the host's by default), so history stats\n" +
			"group them by machine across restarts. With --shared-root it also claims the\n" +
			"jobs of calq convert --shared-root on that share (known by its .calq-shared/id),\n" +
			"and only a worker that mounts a job's share claims it.\n\n" +
			"A server that is down at the start, or goes away, is waited for, with one line\n" +
			"when it is lost and one when it is back; a refusal (bad password, no such\n" +
			"database) ends the worker at once.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "kinds", Value: convert.Kind, Usage: "job kinds to run, comma-separated: convert (or convert-office, convert-image, convert-pdf), sms, shell"},
			&cli.StringFlag{Name: "name", Usage: "the worker's name in the jobs it runs and in history stats", DefaultText: "the host's name"},
			&cli.IntFlag{Name: "instances", Usage: "convert: LibreOffice instances, kept warm between jobs", DefaultText: "from cores and memory"},
			&cli.StringFlag{Name: "shared-root", Usage: "convert: where this machine mounts the share of calq convert --shared-root `DIR`"},
			&cli.StringFlag{Name: "state-dir", Value: lo.DefaultStateDir(), Usage: "convert: keep LibreOffice's profiles in `DIR`"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: runtime.NumCPU(), Usage: "how many jobs run at once"},
			&cli.DurationFlag{Name: "lease", Value: pgqueue.DefaultLease, Usage: "how long a claim holds without a heartbeat (every lease/3)"},
			&cli.DurationFlag{Name: "grace", Value: 5 * time.Second, Usage: "how long a stopped job gets between SIGTERM and SIGKILL"},
			&cli.BoolFlag{Name: "status", Usage: "list the workers, their kinds, load and last heartbeat, and exit"},
			base.JSONFlag(),
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "log only failures"},
			&cli.StringFlag{Name: "db", EnvVars: []string{"CALQ_DB"}, Usage: "the shared queue: a postgres:// `URL`"},
		}, smscmd.ModemFlags()...),
		Action: func(c *cli.Context) error {
			o, err := workerOptions(c)
			if err != nil {
				return err
			}
			return runF(c, o)
		},
	}
}

// workerOptions reads the flags of calq worker. --status checks only what
// it uses: the address, --shared-root and --lease.
func workerOptions(c *cli.Context) (workerOpts, error) {
	o := workerOpts{DB: c.String("db"), SharedRoot: c.String("shared-root"), Lease: c.Duration("lease"), Status: c.Bool("status"),
		Name: c.String("name"), Jobs: c.Int("jobs"), Instances: c.Int("instances"), StateDir: c.String("state-dir"),
		Grace: c.Duration("grace"), JSON: c.Bool("json"), Quiet: c.Bool("quiet")}
	if c.Args().Present() {
		return workerOpts{}, base.Usagef(c, "unexpected argument %s", shell.Quote(c.Args().First()))
	}
	if err := checkWorkerDB(c, o.DB); err != nil {
		return workerOpts{}, err
	}
	if o.SharedRoot != "" {
		if fi, err := os.Stat(o.SharedRoot); err != nil || !fi.IsDir() {
			return workerOpts{}, base.Usagef(c, "--shared-root %s: not a directory", o.SharedRoot)
		}
	}
	if o.Lease < time.Second {
		return workerOpts{}, base.Usagef(c, "--lease %v: want at least 1s", o.Lease)
	}
	if o.Status {
		return o, nil
	}
	var err error
	if o.Kinds, err = parseKinds(c, c.String("kinds")); err != nil {
		return workerOpts{}, err
	}
	if err := checkWorkerName(c, o.Name); err != nil {
		return workerOpts{}, err
	}
	if o.Jobs < 1 {
		return workerOpts{}, base.Usagef(c, "--jobs: %d, want at least 1", o.Jobs)
	}
	return o, nil
}

// checkWorkerDB checks that url, --db, is a PostgreSQL address: only a
// server is shared between machines.
func checkWorkerDB(c *cli.Context, url string) error {
	if dburl.IsPostgres(url) {
		return nil
	}
	if url == "" {
		return base.Usagef(c, "--db: give the shared queue's postgres:// URL (or set CALQ_DB)")
	}
	return base.Usagef(c, "--db %s: calq worker needs a PostgreSQL address (postgres://... or host=... dbname=...); a journal file is not shared between machines", shell.Quote(dburl.Redact(url)))
}

// parseKinds reads --kinds: workerKinds, comma-separated, convert standing
// for convert.Kinds. It returns them sorted, once each.
func parseKinds(c *cli.Context, s string) ([]string, error) {
	var kinds []string
	for _, k := range strings.Split(s, ",") {
		k = strings.TrimSpace(k)
		switch {
		case !slices.Contains(workerKinds, k):
			return nil, base.Usagef(c, "--kinds: unknown kind %q (want %s)", k, strings.Join(workerKinds, ", "))
		case k == convert.Kind:
			kinds = append(kinds, append(convert.Kinds(), convert.KindHTML)...)
		default:
			kinds = append(kinds, k)
		}
	}
	slices.Sort(kinds)
	return slices.Compact(kinds), nil
}

// checkWorkerName checks --name: a name given is not empty and has no
// spaces, and any is text the database can store.
func checkWorkerName(c *cli.Context, name string) error {
	if c.IsSet("name") && (name == "" || strings.ContainsFunc(name, unicode.IsSpace)) {
		return base.Usagef(c, "--name %q: want a name without spaces", name)
	}
	if err := base.CheckText("--name", name); err != nil {
		return base.Usagef(c, "%w", err)
	}
	return nil
}

// runWorkerCommand opens the shared queue of o.DB and lists its workers
// (--status) or runs o.Kinds from it, the sms daemon beside the others
// when sms is one of them.
func runWorkerCommand(c *cli.Context, o workerOpts) error {
	log := &workerLog{w: c.App.ErrWriter, json: o.JSON, quiet: o.Quiet}
	if log.json {
		log.w = c.App.Writer
	}
	// Started at boot before the database, a worker waits for it, as it
	// does when the database goes away later; --status does not.
	link := log.link(o.DB)
	q, err := pgqueue.Open(c.Context, o.DB, pgqueue.Options{Lease: o.Lease, Wait: !o.Status, Link: link})
	if err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	defer q.Close()
	if o.Status {
		return workerStatus(c, q)
	}
	i := slices.Index(o.Kinds, sms.Kind)
	if i < 0 {
		return runWorker(c.Context, q, log, o, o.Kinds)
	}
	kinds := slices.Delete(slices.Clone(o.Kinds), i, i+1)
	so, err := workerSMSOptions(c, o.DB, link)
	if err != nil {
		return err
	}
	var run func(context.Context) error
	if len(kinds) > 0 {
		run = func(ctx context.Context) error { return runWorker(ctx, q, log, o, kinds) }
	}
	return sms.DaemonBeside(c.Context, so, run)
}

// workerSMSOptions reads the options of the sms daemon a worker of kind
// sms runs on the shared outbox at url, beside the other kinds; it reports
// outages to link, as the worker does.
func workerSMSOptions(c *cli.Context, url string, link *pgdb.Link) (sms.BesideOptions, error) {
	specs, atOpts, err := smscmd.ModemSpecs(c)
	if err != nil {
		return sms.BesideOptions{}, err
	}
	if len(specs) == 0 {
		return sms.BesideOptions{}, base.Usagef(c, "--kinds sms: no modems: give --device, or [[sms.modem]] in the config file")
	}
	w := c.App.ErrWriter
	o := sms.BesideOptions{DB: url, Name: "worker: sms",
		Open: sms.OpenOptions{StateDir: base.StateDir(), PG: store.PGOptions{Wait: true, Link: link}, Warn: base.WarnTo(w),
			Forwarded: func(f sms.Forwarded) { fmt.Fprintf(w, "calq: %s\n", f) }},
		Daemon: sms.DaemonOptions{Specs: specs, AT: atOpts, Recv: sms.RecvOptions{ReassemblyTimeout: sms.DefaultReassemblyTimeout}}}
	o.Daemon.Warn, o.Daemon.Events = base.ModemLog(w, "calq worker: sms: ")
	o.Daemon.Recv.Warn = o.Daemon.Warn
	return o, nil
}

// runWorker claims and runs jobs of kinds from q until ctx ends.
func runWorker(ctx context.Context, q *pgqueue.Queue, log *workerLog, opts workerOpts, kinds []string) error {
	o := pgqueue.WorkerOptions{Jobs: opts.Jobs, Events: log.event, Name: opts.Name}
	root, share := opts.SharedRoot, ""
	if root != "" {
		var err error
		if share, err = convert.ShareID(root); err != nil {
			return fmt.Errorf("worker: --shared-root: %w", err)
		}
		o.Shares = []string{share}
	}
	w := q.NewWorker(o)
	keeper := proc.NewKeeper() // one helper that kills every job's group should calq die
	defer keeper.Close()
	if slices.Contains(kinds, convert.KindHTML) && convert.DefaultHTMLEngine("") != convert.EngineChromium {
		// Not handled, not registered: the queue gives web pages to the
		// workers that have Chromium.
		log.event(pgqueue.WorkerEvent{Type: "not-taken", Time: time.Now(), Kind: convert.KindHTML, Err: errNoChromium})
		kinds = slices.DeleteFunc(slices.Clone(kinds), func(k string) bool { return k == convert.KindHTML })
	}
	var rw *convert.SharedWorker // one pool of LibreOffice instances for every convert kind
	for _, k := range kinds {
		if slices.Contains(convert.Kinds(), k) || k == convert.KindHTML {
			if rw == nil {
				var err error
				rw, err = convert.NewSharedWorker(ctx, q, lo.Options{Instances: opts.Instances, StateDir: opts.StateDir})
				if err != nil {
					return err
				}
				defer rw.Close()
				rw.SharedRoot, rw.ShareID = root, share
			}
			if k == convert.KindHTML {
				pages, err := chromium.New(chromium.Config{})
				if err != nil {
					return fmt.Errorf("worker: chromium: %w", err)
				}
				defer pages.Close()
				rw.Pages = pages
			}
			w.Handle(k, rw)
		}
		if k == shell.Kind {
			w.Handle(k, &shell.SharedWorker{Worker: shell.Worker{Grace: opts.Grace,
				Env: childenv.Without(os.Environ()), Output: w.Output, Keeper: keeper}})
		}
	}
	log.event(pgqueue.WorkerEvent{Type: "ready", Time: time.Now(), Key: w.ID(), Kind: strings.Join(kinds, ",")})
	if err := w.Run(ctx); err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	return nil
}

// errNoChromium is why a worker takes no web pages.
var errNoChromium = errors.New("chromium is not installed: web pages are left to the workers that have it")

// workerLog prints a worker's events: a line each on stderr, or JSON
// lines with message_type "worker_event" on stdout.
type workerLog struct {
	mu    sync.Mutex
	w     interface{ Write([]byte) (int, error) }
	json  bool
	quiet bool
}

func (l *workerLog) event(ev pgqueue.WorkerEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.json {
		base.WriteJSONLine(l.w, "worker_event", workerEventLine{Event: ev.Type, Time: ev.Time.Format(time.RFC3339Nano),
			Key: ev.Key, Kind: ev.Kind, Attempt: ev.Attempt, N: ev.N, Error: errText(ev.Err)})
		return
	}
	bad := ev.Type == "failed" || ev.Type == "timed_out" || ev.Type == "lost" || ev.Type == "outage" || ev.Type == "error" ||
		ev.Type == "disabled"
	if l.quiet && !bad || ev.Type == "started" {
		return
	}
	var s string
	switch ev.Type {
	case "ready":
		s = fmt.Sprintf("calq worker: %s ready for %s", ev.Key, ev.Kind)
	case "requeued":
		s = fmt.Sprintf("calq worker: requeued %d jobs whose lease expired", ev.N)
	case "disabled", "enabled":
		s = fmt.Sprintf("calq worker: kind %s %s", ev.Kind, ev.Type)
	case "not-taken":
		s = fmt.Sprintf("calq worker: kind %s not taken: %s", ev.Kind, errText(ev.Err))
	case "error":
		s = "calq worker: database: " + errText(ev.Err)
	default:
		s = fmt.Sprintf("calq worker: %s %s (attempt %d)", strings.ReplaceAll(ev.Type, "_", " "), ev.Key, ev.Attempt)
		if ev.Err != nil {
			s += ": " + errText(ev.Err)
		}
	}
	// Keys, kinds, worker names and errors come from submitters and the
	// database: a newline or an escape in them must not forge a line.
	fmt.Fprintln(l.w, base.SafeText(s))
}

// workerEventLine is a worker_event of --json, after its message_type.
type workerEventLine struct {
	Event   string   `json:"event"`
	Time    string   `json:"time"`
	Key     string   `json:"key,omitempty"`
	Kind    string   `json:"kind,omitempty"`
	Attempt int      `json:"attempt,omitempty"`
	N       int      `json:"n,omitempty"`
	Error   string   `json:"error,omitempty"`
	DB      string   `json:"db,omitempty"`
	Down    *float64 `json:"down_seconds,omitempty"`
}

// link reports the outages of the database at url: a line each when one
// begins and ends, or worker_event lines "disconnected" (with db and its
// error) and "reconnected" (with db and down_seconds, how long it lasted).
func (l *workerLog) link(url string) *pgdb.Link {
	if !l.json {
		return base.DBLink(l.w, "calq worker: ", url)
	}
	say := func(line workerEventLine) {
		line.Time = time.Now().Format(time.RFC3339Nano)
		line.DB = dburl.Redact(url)
		l.mu.Lock()
		defer l.mu.Unlock()
		base.WriteJSONLine(l.w, "worker_event", line)
	}
	return &pgdb.Link{
		Lost: func(err error) {
			say(workerEventLine{Event: "disconnected", Error: dburl.Scrub(pgdb.Reason(err), url)})
		},
		Back: func(d time.Duration) { secs := d.Seconds(); say(workerEventLine{Event: "reconnected", Down: &secs}) },
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// workerStatus prints the workers' table, or JSON lines of message_type
// "worker".
func workerStatus(c *cli.Context, q *pgqueue.Queue) error {
	ws, err := q.Workers(c.Context)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return base.WriteJSONLines(c.App.Writer, "worker", ws)
	}
	if len(ws) == 0 {
		fmt.Fprintln(c.App.ErrWriter, "calq worker: no workers in the last hour")
		return nil
	}
	tw := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKER\tKINDS\tSTATE\tLOAD\tDONE\tFAILED\tHEARTBEAT")
	for _, w := range ws {
		state := "alive"
		switch {
		case w.Stopped:
			state = "stopped"
		case !w.Alive:
			state = "silent"
		}
		kinds := strings.Join(w.Kinds, ",")
		if len(w.Disabled) > 0 {
			kinds += " (off: " + strings.Join(w.Disabled, ",") + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%d\t%d\t%.1fs ago\n", base.SafeText(w.ID), base.SafeText(kinds), state, w.Running, w.Slots, w.Done, w.Failed, w.Age)
	}
	return errors.Join(tw.Flush())
}
