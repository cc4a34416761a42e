package smscmd

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/internal/pgdb"
	"calq/sched"
	"calq/sms"
	"calq/sms/store"
)

func daemonCommand() *cli.Command {
	return &cli.Command{
		Name:  "daemon",
		Usage: "hold the modems: send from the outbox continuously, poll the inbox, check health",
		Description: "Holds the modems (--device, repeatable, or [[sms.modem]] in the config file)\n" +
			"and their locks until interrupted, and records in the journal (--db) that it\n" +
			"holds them: calq sms send then only records its messages and the daemon sends\n" +
			"them (send waits for the outcome unless --no-wait, which exits 4). Every\n" +
			"--send-every the daemon reads the outbox for queued messages that are due;\n" +
			"every --poll-every it polls the modems for received messages and status\n" +
			"reports, which stay new in the journal for calq sms recv --offline. A modem\n" +
			"whose device vanished is dialled again by a health check. With --metrics-file\n" +
			"it writes Prometheus metrics every 15 s and on exit.\n\n" +
			"A modem that does not answer at the start is reported and dialled again\n" +
			"like a vanished one; the daemon starts even when none answers. With a\n" +
			"postgres:// --db it waits for a server that is down at the start or goes away,\n" +
			"with one line when it is lost and one when it is back.\n\n" +
			"Exit status 130 when interrupted (SIGINT, SIGTERM), after releasing the\n" +
			"modems; 1 when it could not start, e.g. another daemon holds a modem.",
		Flags: append(ModemFlags(),
			&cli.DurationFlag{Name: "send-every", Value: time.Second, Usage: "read the outbox this often"},
			&cli.DurationFlag{Name: "poll-every", Value: 10 * time.Second, Usage: "poll the modems for received messages this often"},
			&cli.DurationFlag{Name: "part-timeout", Value: sms.DefaultReassemblyTimeout,
				Usage: "file a long message's parts as they are `AFTER` this long"},
			&cli.BoolFlag{Name: "allow-duplicates", Usage: "resend parts whose outcome is unknown"},
			&cli.IntFlag{Name: "retries", Value: sched.DefaultRetries, Usage: "retries of a message after transient errors"},
			&cli.StringFlag{Name: "metrics-file", EnvVars: []string{"CALQ_METRICS_FILE"}, Usage: "write Prometheus metrics to `FILE` (textfile collector format)"},
			base.DBFlag()),
		Action: smsDaemonAction,
	}
}

func smsDaemonAction(c *cli.Context) error {
	o, err := smsDaemonOptions(c)
	if err != nil {
		return err
	}
	// Started at boot before the database, the daemon waits for it.
	link := base.DBLink(c.App.ErrWriter, "calq: warning: ", base.JournalPath(c))
	QuietOutage(link, &o)
	jn, st, closeSMS, err := OpenWith(c, true, store.PGOptions{Wait: true, Link: link})
	if err != nil {
		return err
	}
	defer closeSMS()
	o.Journal, o.Store = jn, st
	o.Feed = SpoolFeed(c, link, jn, st)
	if err := sms.Daemon(c.Context, o); err != nil {
		return fmt.Errorf("sms daemon: %w", err)
	}
	return nil
}

// smsDaemonOptions reads the flags of calq sms daemon.
func smsDaemonOptions(c *cli.Context) (sms.DaemonOptions, error) {
	o := sms.DaemonOptions{SendEvery: c.Duration("send-every"), PollEvery: c.Duration("poll-every"),
		AllowDuplicates: c.Bool("allow-duplicates"), Retries: c.Int("retries"), MetricsFile: c.String("metrics-file"),
		Recv: sms.RecvOptions{ReassemblyTimeout: c.Duration("part-timeout")}}
	switch {
	case c.Args().Present():
		return o, base.Usagef(c, "unexpected argument %q", c.Args().First())
	case o.SendEvery <= 0 || o.PollEvery <= 0 || o.Recv.ReassemblyTimeout <= 0:
		return o, base.Usagef(c, "--send-every, --poll-every and --part-timeout must be positive")
	case o.Retries < 0:
		return o, base.Usagef(c, "--retries: %d is negative", o.Retries)
	}
	if o.Retries == 0 {
		o.Retries = -1 // the flag's 0 means none; DaemonOptions' 0 means the default
	}
	DaemonLog(c.App.ErrWriter, "calq: warning: ", &o)
	if o.MetricsFile != "" {
		if err := base.CheckFileWritable("--metrics-file", o.MetricsFile); err != nil {
			return o, base.Usagef(c, "%w", err)
		}
		o.Metrics = sched.NewMetrics()
	}
	var err error
	o.Specs, o.AT, err = ModemSpecs(c)
	if err == nil && len(o.Specs) == 0 {
		err = base.Usagef(c, "no modems: give --device, or [[sms.modem]] in the config file")
	}
	return o, err
}

// DaemonLog sends o's warnings to w, each line after prefix, and its
// modems' events as logModemEvent prints them.
func DaemonLog(w io.Writer, prefix string, o *sms.DaemonOptions) {
	warn := func(err error) { fmt.Fprintf(w, "%s%s\n", prefix, base.SafeText(err.Error())) }
	o.Warn, o.Recv.Warn = warn, warn
	o.Events = func(ev sched.Event) { logModemEvent(w, ev) }
}

// QuietOutage drops o's warnings about an outage of the database while
// link reports one (the store's reads and writes tell it): they would
// repeat its line every second.
func QuietOutage(link *pgdb.Link, o *sms.DaemonOptions) {
	quiet := func(warn func(error)) func(error) {
		return func(err error) {
			if !link.Down() || !pgdb.Transient(err) {
				warn(err)
			}
		}
	}
	o.Warn, o.Recv.Warn = quiet(o.Warn), quiet(o.Recv.Warn)
}

// logModemEvent prints what happens to a modem (down, up, taken out by the
// circuit breaker, back) on stderr, one line each, for the daemon's log.
func logModemEvent(w io.Writer, ev sched.Event) {
	if ev.Job != nil {
		return
	}
	var what string
	switch ev.Type {
	case sched.EventBackendDown:
		what = "down: " + strings.TrimPrefix(fmt.Sprint(ev.Err), "modem "+ev.Backend+": ")
	case sched.EventBackendUp:
		what = "up again"
	case sched.EventKindDisabled, sched.EventKindEnabled, sched.EventKindKept:
		what = ev.Message
	default:
		return
	}
	fmt.Fprintln(w, base.SafeText(fmt.Sprintf("calq: %s modem %s: %s", ev.Time.Format(time.DateTime), ev.Backend, what)))
}
