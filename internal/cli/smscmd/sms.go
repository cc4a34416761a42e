package smscmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/internal/config"
	"calq/internal/dburl"
	"calq/sched/journal"
	"calq/sms"
	"calq/sms/at"
	"calq/sms/store"
)

// Command is calq sms.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "sms",
		Usage: "SMS through GSM modems: send, receive, decode and encode PDUs, emulate modems",
		Subcommands: []*cli.Command{
			sendCommand(),
			statusCommand(),
			recvCommand(),
			daemonCommand(),
			modemsCommand(),
			benchCommand(),
			decodeCommand(),
			encodeCommand(),
			emulateCommand(),
		},
	}
}

// ModemFlags are the flags that choose modems: DeviceFlags and --config.
func ModemFlags() []cli.Flag {
	return append(DeviceFlags(""), base.ConfigFlag())
}

// DeviceFlags are ModemFlags without --config, for a command that has
// its own (calq serve); category groups them in the help ("" none).
func DeviceFlags(category string) []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "device", Aliases: []string{"d"}, Category: category,
			Usage: "the modem's serial `DEVICE` (repeatable); default: [[sms.modem]] in the config"},
		&cli.DurationFlag{Name: "prompt-timeout", Value: 10 * time.Second, Category: category, Usage: "wait this long for the modem's '>' prompt"},
		&cli.DurationFlag{Name: "result-timeout", Value: 60 * time.Second, Category: category,
			Usage: "wait this long for +CMGS after the PDU (then the outcome is unknown)"},
	}
}

// ModemSpecs reads the modems of --device, else of the config file;
// none is no error: the journal may name a daemon's (daemonSpecs).
func ModemSpecs(c *cli.Context) ([]sms.ModemSpec, at.Options, error) {
	o := at.Options{PromptTimeout: c.Duration("prompt-timeout"), ResultTimeout: c.Duration("result-timeout")}
	devices := c.StringSlice("device")
	if len(devices) > 0 {
		// A device that is not there is a typo: checked before anything
		// is recorded for it.
		var errs base.FlagErrors
		for _, d := range devices {
			if err := base.CheckDevice("--device", d); err != nil {
				errs.Add(err)
			}
		}
		if err := errs.Err(c); err != nil {
			return nil, o, err
		}
		specs, err := sms.Specs(config.SMS{}, devices, os.Getenv)
		return specs, o, err
	}
	conf, err := base.LoadConfig(c)
	if err != nil {
		return nil, o, err
	}
	if len(conf.SMS.Modems) == 0 {
		return nil, o, nil
	}
	specs, err := sms.Specs(conf.SMS, nil, os.Getenv)
	if err != nil {
		return nil, o, base.Usagef(c, "%w", err)
	}
	return specs, o, nil
}

// checkSomeModem refuses modems of the config file none of which is
// there (each a typo, or all unplugged): a message recorded for them
// would go out only days later, with the next --queued. One missing
// modem of a pool is no error: the others send.
func checkSomeModem(c *cli.Context, specs []sms.ModemSpec) error {
	if c.IsSet("device") || len(specs) == 0 {
		return nil // --device was checked, each one
	}
	var errs []error
	for _, s := range specs {
		err := base.CheckDevice("[[sms.modem]] device", s.Device)
		if err == nil {
			return nil
		}
		errs = append(errs, err)
	}
	return base.Usagef(c, "no modem of the config file is there: %w", errors.Join(errs...))
}

// errNoModems is the usage error of a command that found no modem at all.
func errNoModems(c *cli.Context) error {
	return base.Usagef(c, "no modems: give --device, or [[sms.modem]] in the config file, or start calq sms daemon --device DEV")
}

// daemonSpecs returns specs, or when there are none the modems a live
// calq sms daemon holds, from the journal: a daemon started with
// --device serves send and recv without their own --device.
func daemonSpecs(c *cli.Context, jn *journal.Journal, specs []sms.ModemSpec) ([]sms.ModemSpec, error) {
	if len(specs) > 0 {
		return specs, nil
	}
	specs, err := sms.SpecsOfDaemon(c.Context, jn)
	if err != nil {
		return nil, err
	}
	if len(specs) == 0 {
		return nil, errNoModems(c)
	}
	return specs, nil
}

// openSMS opens what calq sms keeps at --db (sms.Open), forwarding what
// calq sms send spooled on this machine while a shared database was
// down. It does not wait for a server that is down: see openWith.
func openSMS(c *cli.Context) (*sms.Stores, error) {
	return openWith(c, false, store.PGOptions{})
}

// openWith is openSMS with o for a postgres:// --db: whether to wait for
// the server, and who hears of its outages; engine also opens this
// machine's journal for it, for a daemon that sends.
func openWith(c *cli.Context, engine bool, o store.PGOptions) (*sms.Stores, error) {
	return sms.Open(c.Context, base.JournalPath(c), openOptions(c.App.ErrWriter, engine, o))
}

// openOptions are sms.Open's options for a command whose messages go to w.
func openOptions(w io.Writer, engine bool, o store.PGOptions) sms.OpenOptions {
	return sms.OpenOptions{StateDir: base.StateDir(), Engine: engine, PG: o, Warn: base.WarnTo(w),
		Forwarded: func(f sms.Forwarded) { fmt.Fprintf(w, "calq: %s\n", f) }}
}

// sharedSMS reports whether --db is a shared outbox (PostgreSQL).
func sharedSMS(c *cli.Context) bool { return dburl.IsPostgres(base.JournalPath(c)) }
