package smscmd

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
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
			"every --poll-every, and at once when a modem announces one (+CMTI, +CDSI)\n" +
			"or hands it out (+CMT, +CDS), it receives messages and status reports,\n" +
			"which stay new in the journal for calq sms recv --offline. A modem\n" +
			"whose device vanished is dialled again by a health check. With --metrics-file\n" +
			"it writes Prometheus metrics every 15 s and on exit.\n\n" +
			"A modem that does not answer at the start is reported and dialled again\n" +
			"like a vanished one; the daemon starts even when none answers. With a\n" +
			"postgres:// --db it waits for a server that is down at the start or goes away,\n" +
			"with one line when it is lost and one when it is back.\n\n" +
			"Exit status 130 when interrupted (SIGINT, SIGTERM), after releasing the\n" +
			"modems; 1 when it could not start, e.g. another daemon holds a modem.",
		Flags: append(append(ModemFlags(), DaemonFlags("")...),
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
	ss, err := openWith(c, true, store.PGOptions{Wait: true, Link: link})
	if err != nil {
		return err
	}
	defer ss.Close()
	if err := ss.Daemon(c.Context, o); err != nil {
		return fmt.Errorf("sms daemon: %w", err)
	}
	return nil
}

// smsDaemonOptions reads the flags of calq sms daemon.
func smsDaemonOptions(c *cli.Context) (sms.DaemonOptions, error) {
	// The arguments and the metrics file first: checking them opens no
	// device, as reading the modems' specs may.
	if c.Args().Present() {
		return sms.DaemonOptions{}, base.Usagef(c, "unexpected argument %q", c.Args().First())
	}
	metrics := c.String("metrics-file")
	if metrics != "" {
		if err := base.CheckFileWritable("--metrics-file", metrics); err != nil {
			return sms.DaemonOptions{}, base.Usagef(c, "%w", err)
		}
	}
	o, err := DaemonOptions(c)
	if err != nil {
		return o, err
	}
	if o.MetricsFile = metrics; metrics != "" {
		o.Metrics = sched.NewMetrics()
	}
	if len(o.Specs) == 0 {
		return o, base.Usagef(c, "no modems: give --device, or [[sms.modem]] in the config file")
	}
	return o, nil
}

// DaemonFlags are the flags of the daemon's work besides the modems'
// (DeviceFlags), which DaemonOptions reads: calq sms daemon's and calq
// serve's, which holds the modems too. category groups them in the
// help ("" none).
func DaemonFlags(category string) []cli.Flag {
	return []cli.Flag{
		&cli.DurationFlag{Name: "send-every", Value: time.Second, Category: category, Usage: "read the SMS outbox this often"},
		&cli.DurationFlag{Name: "poll-every", Value: 10 * time.Second, Category: category, Usage: "poll the modems for received messages this often"},
		&cli.DurationFlag{Name: "part-timeout", Value: sms.DefaultReassemblyTimeout, Category: category,
			Usage: "file a long message's parts as they are `AFTER` this long"},
		&cli.BoolFlag{Name: "allow-duplicates", Category: category, Usage: "resend SMS parts whose outcome is unknown"},
		&cli.IntFlag{Name: "retries", Value: sched.DefaultRetries, Category: category, Usage: "retries of an SMS after transient errors"},
		&cli.DurationFlag{Name: "health-every", Value: sms.DefaultHealthEvery, Category: category,
			Usage: "check the modems this often: one that vanished is taken out, its messages go to the others, and it is dialled again (free while a modem answers)"},
	}
}

// DaemonOptions reads DaemonFlags and the modems (ModemSpecs) into the
// options of sms.Daemon, whose warnings and modem events go to the
// command's stderr. No modem is no error here: the caller says whether
// it needs one.
func DaemonOptions(c *cli.Context) (sms.DaemonOptions, error) {
	o := sms.DaemonOptions{SendEvery: c.Duration("send-every"), PollEvery: c.Duration("poll-every"),
		AllowDuplicates: c.Bool("allow-duplicates"), Retries: c.Int("retries"), HealthEvery: c.Duration("health-every"),
		Recv: sms.RecvOptions{ReassemblyTimeout: c.Duration("part-timeout")}}
	switch {
	case o.SendEvery <= 0 || o.PollEvery <= 0 || o.Recv.ReassemblyTimeout <= 0 || o.HealthEvery <= 0:
		return o, base.Usagef(c, "--send-every, --poll-every, --part-timeout and --health-every must be positive")
	case o.Retries < 0:
		return o, base.Usagef(c, "--retries: %d is negative", o.Retries)
	}
	if o.Retries == 0 {
		o.Retries = -1 // the flag's 0 means none; DaemonOptions' 0 means the default
	}
	o.Warn, o.Events = base.ModemLog(c.App.ErrWriter, "calq: warning: ")
	o.Recv.Warn = o.Warn
	var err error
	o.Specs, o.AT, err = ModemSpecs(c)
	return o, err
}
