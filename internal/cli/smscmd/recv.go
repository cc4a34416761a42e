package smscmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"calq/internal/childenv"
	"calq/internal/cli/base"
	"calq/internal/config"
	"calq/sms"
	"calq/sms/at"
)

func recvCommand() *cli.Command {
	return &cli.Command{
		Name:  "recv",
		Usage: "receive SMS and status reports from the modems",
		Description: "Lists the messages stored on each modem (AT+CMGL=4), records every PDU raw in\n" +
			"the journal (--db, created when missing) and only then deletes it from the\n" +
			"modem (AT+CMGD), so that a crash loses nothing and a re-run duplicates\n" +
			"nothing. Long messages are reassembled by modem, sender, reference and part\n" +
			"count; parts still incomplete --part-timeout after calq read the first are\n" +
			"delivered as they are, naming the missing parts. Status reports are kept\n" +
			"for calq sms status, matched to sent messages by modem and reference.\n\n" +
			"Prints the messages and reports not yet delivered, oldest first, and marks\n" +
			"them delivered. --keep changes nothing: the modems keep their messages and\n" +
			"the next run prints the same ones again (the journal still records the raw\n" +
			"PDUs once). --offline asks no modem: it delivers what the journal holds;\n" +
			"so does recv when a calq sms daemon holds the modems (the daemon polls them).\n\n" +
			"--exec CMD runs '/bin/sh -c CMD' once per message or report, like smstools'\n" +
			"eventhandler, with the text on standard input and the fields in SMS_TYPE\n" +
			"(message or report), SMS_ID, SMS_MODEM, SMS_FROM, SMS_TEXT, SMS_SENT (RFC\n" +
			"3339), SMS_RECEIVED, SMS_PARTS, SMS_TOTAL, SMS_MISSING (e.g. 2,3; empty when\n" +
			"complete), and for reports SMS_MR, SMS_STATUS, SMS_OUTCOME (delivered,\n" +
			"pending or failed) and SMS_DISCHARGED. Its output goes to calq's stderr. An\n" +
			"entry whose command fails is not marked delivered: the next run retries it.\n\n" +
			`--json prints one object per line: {"message_type": "message" or "report",` + "\n" +
			`"id", "modem", "from", "text", "sent", "received", "parts", "total",` + "\n" +
			`"missing"}, reports with "mr", "status", "outcome" and "discharged".` + "\n\n" +
			"Modems are --device (repeatable) or the config file's [[sms.modem]].\n" +
			"Exit status 3: some entries were delivered and something failed.",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "device", Aliases: []string{"d"}, Usage: "the modem at `PATH` (repeatable); default: the config file's"},
			base.ConfigFlag(),
			base.JSONFlag(),
			&cli.BoolFlag{Name: "keep", Usage: "leave the messages on the modems and undelivered"},
			&cli.BoolFlag{Name: "offline", Usage: "ask no modem: deliver what the journal holds"},
			&cli.StringFlag{Name: "exec", Usage: "run `CMD` with /bin/sh -c for each message or report"},
			&cli.DurationFlag{Name: "part-timeout", Value: sms.DefaultReassemblyTimeout,
				Usage: "deliver a long message's parts as they are `AFTER` this long"},
			base.DBFlag(),
		},
		Action: smsRecvAction,
	}
}

func smsRecvAction(c *cli.Context) error {
	o, specs, err := recvOptions(c)
	if err != nil {
		return err
	}
	if sharedSMS(c) && !c.Bool("offline") {
		return base.Usagef(c, "with a PostgreSQL --db the daemons on the modem hosts receive: read what they filed with --offline")
	}
	ss, err := openSMS(c)
	if err != nil {
		return err
	}
	if !c.Bool("offline") {
		if specs, err = daemonSpecs(c, ss.Journal, specs); err != nil {
			ss.Close()
			return err
		}
		// A daemon polls the modems it holds and files what arrives in
		// the journal; asking them here would only wait for its locks.
		held, err := sms.DaemonHolds(c.Context, ss.Journal, specs)
		if err != nil {
			ss.Close()
			return err
		}
		if held {
			specs = nil
		}
	}
	_, err = sms.ReceiveFrom(c.Context, specs, at.Options{}, ss.Store, o)
	if cerr := ss.Close(); err == nil {
		err = cerr
	}
	return err
}

// recvOptions reads and checks the flags of calq sms recv.
func recvOptions(c *cli.Context) (sms.RecvOptions, []sms.ModemSpec, error) {
	o := sms.RecvOptions{Keep: c.Bool("keep"), ReassemblyTimeout: c.Duration("part-timeout")}
	switch {
	case c.Args().Present():
		return o, nil, base.Usagef(c, "unexpected argument %q", c.Args().First())
	case o.ReassemblyTimeout <= 0:
		return o, nil, base.Usagef(c, "--part-timeout: %v is not positive", o.ReassemblyTimeout)
	case c.Bool("offline") && len(c.StringSlice("device")) > 0:
		return o, nil, base.Usagef(c, "--offline and --device exclude each other")
	}
	o.Warn = base.WarnTo(c.App.ErrWriter)
	o.Handle = recvHandler(c.App.Writer, c.Bool("json"), sms.ExecOptions{Command: c.String("exec"),
		Env: childenv.Without(os.Environ()), Stdout: c.App.ErrWriter, Stderr: c.App.ErrWriter})
	if c.Bool("offline") {
		return o, nil, nil
	}
	devices := c.StringSlice("device")
	var conf config.Config
	if len(devices) == 0 {
		var err error
		if conf, err = base.LoadConfig(c); err != nil {
			return o, nil, err
		}
	}
	if len(devices) == 0 && len(conf.SMS.Modems) == 0 {
		return o, nil, nil // the journal may name a daemon's
	}
	specs, err := sms.Specs(conf.SMS, devices, os.Getenv)
	if err != nil {
		return o, nil, base.Usagef(c, "%w", err)
	}
	return o, specs, nil
}

// recvHandler prints each entry, then runs the --exec command if any.
func recvHandler(w io.Writer, asJSON bool, x sms.ExecOptions) func(context.Context, sms.Inbound) error {
	return func(ctx context.Context, in sms.Inbound) error {
		if err := writeInbound(w, in, asJSON); err != nil {
			return err
		}
		if x.Command == "" {
			return nil
		}
		return sms.RunExec(ctx, x, in)
	}
}

// writeInbound prints one entry: a JSON line, or a header line and the
// text indented by a tab.
func writeInbound(w io.Writer, in sms.Inbound, asJSON bool) error {
	if asJSON {
		return base.WriteJSONLine(w, in.Kind, in)
	}
	sent := "unknown"
	if !in.Sent.IsZero() {
		sent = in.Sent.Format(time.RFC3339)
	}
	if in.Kind == "report" {
		_, err := fmt.Fprintf(w, "#%d report via %s: message %d to %s %s (status %d), sent %s\n",
			in.ID, base.SafeText(in.Modem), in.MR, base.SafeText(in.From), in.Outcome, in.Status, sent)
		return err
	}
	parts := ""
	if in.Total > 1 {
		parts = fmt.Sprintf(", %d parts", in.Total)
	}
	if !in.Complete() {
		parts = fmt.Sprintf(", %d of %d parts, missing %s", in.Parts, in.Total, strings.Trim(fmt.Sprint(in.Missing), "[]"))
	}
	// The sender chose the text: its lines are kept, each indented, and
	// control characters in them escaped, so that it cannot forge a header
	// or drive the terminal.
	lines := strings.Split(in.Text, "\n")
	for i, l := range lines {
		lines[i] = "\t" + base.SafeText(l)
	}
	_, err := fmt.Fprintf(w, "#%d message from %s via %s, sent %s%s\n%s\n", in.ID, base.SafeText(in.From), base.SafeText(in.Modem),
		sent, parts, strings.Join(lines, "\n"))
	return err
}
