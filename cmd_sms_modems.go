package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"calq/sched/journal"
	"calq/sms"
)

func smsModemsCommand() *cli.Command {
	return &cli.Command{
		Name:  "modems",
		Usage: "open each modem and show its maker, model, IMEI, registration, signal and SMSC",
		Description: "Modems come from --device (repeatable) or [[sms.modem]] in the config file.\n\n" +
			"A SIM that refuses its PIN (pin_file or pin_env) is recorded in the journal\n" +
			"(--db) by its ICCID, else by its device, with a salted slow hash of the PIN,\n" +
			"never the PIN itself, and its modem shows as 'pin rejected': calq sms send,\n" +
			"the daemon and this command do not enter that PIN into that SIM again, so a\n" +
			"wrong PIN costs the SIM one try, not three (which would need its PUK). A\n" +
			"changed PIN is tried once; --retry-pin NAME enters the same PIN once more.\n" +
			"Neither ever spends a SIM's last try: enter that PIN by hand.\n\n" +
			`--json prints {"message_type":"sms_modems","modems":[{"name","device","state",` + "\n" +
			`"maker","model","imei","registered","registration","signal","smsc","error"}]},` + "\n" +
			`state being "ready", "pin rejected" or "error".` + "\n" +
			"Exit status 1 when a modem could not be opened.",
		Flags: append(smsModemFlags(),
			&cli.StringFlag{Name: "retry-pin", Usage: "enter the PIN into modem `NAME`'s SIM once more, even one it refused"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			dbFlag()),
		Action: smsModemsAction,
	}
}

func smsModemsAction(c *cli.Context) error {
	if c.Args().Present() {
		return usageErrorf(c, "unexpected argument %q", c.Args().First())
	}
	specs, o, err := smsModemSpecs(c)
	if err != nil {
		return err
	}
	jn, err := journal.Open(c.Context, journalPath(c), journal.Options{})
	if err != nil {
		return err
	}
	defer jn.Close()
	st, err := sms.Survey(c.Context, specs, sms.SurveyOptions{AT: o, Journal: jn, RetryPIN: c.String("retry-pin")})
	if err != nil {
		return usageErrorf(c, "%w", err)
	}
	if err := renderModems(c, st); err != nil {
		return err
	}
	var errs []error
	for _, s := range st {
		if s.Err != nil {
			errs = append(errs, s.Err)
		}
	}
	return errors.Join(errs...)
}

func renderModems(c *cli.Context, st []sms.ModemStatus) error {
	w := c.App.Writer
	if c.Bool("json") {
		return json.NewEncoder(w).Encode(struct {
			Type   string            `json:"message_type"`
			Modems []sms.ModemStatus `json:"modems"`
		}{"sms_modems", st})
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tDEVICE\tSTATE\tMAKER\tMODEL\tIMEI\tREGISTRATION\tSIGNAL\tSMSC")
	for _, s := range st {
		if s.Err != nil {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%v\n", s.Name, s.Device, s.State, s.Err)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", s.Name, s.Device, s.State, dash(s.Maker), dash(s.Model),
			dash(s.IMEI), s.Registration, s.Signal, dash(s.SMSC))
	}
	return tw.Flush()
}
