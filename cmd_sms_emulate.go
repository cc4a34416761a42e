package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"calq/sms/emu"
)

func smsEmulateCommand() *cli.Command {
	return &cli.Command{
		Name:  "emulate",
		Usage: "serve virtual GSM modems on pseudo-terminals, for tests",
		Description: "Creates --modems virtual GSM modems on pseudo-terminals, prints their device\n" +
			"paths one per line, and serves them until SIGINT or SIGTERM (exit status 130).\n" +
			"Each speaks the AT subset SMS software uses (gammu works with them): echo,\n" +
			"CMEE, CPIN, CMGF (PDU mode), CSCA, CPMS, CNMI, CREG/CEREG, CSQ, CGMI/CGMM/CGSN,\n" +
			"CMGS with the \"> \" prompt, CMGL/CMGR/CMGD.\n\n" +
			"Every PDU accepted with +CMGS: <mr> is appended to --log as a JSON line\n" +
			`{"device","mr","pdu"}. --inbox holds hex DELIVER PDUs (SMSC field first),` + "\n" +
			"one per line, dealt round-robin to the modems and announced with +CMTI.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "modems", Aliases: []string{"n"}, Value: 1, Usage: "how many modems"},
			&cli.DurationFlag{Name: "latency", Usage: "time from a PDU's Ctrl-Z to +CMGS, e.g. 3s"},
			&cli.Float64Flag{Name: "fail-rate", Usage: "probability `P` of +CMS ERROR: 500 for a PDU"},
			&cli.StringFlag{Name: "log", Usage: "append accepted PDUs to `FILE` as JSON lines"},
			&cli.StringFlag{Name: "inbox", Usage: "plant the hex DELIVER PDUs of `FILE`, one per line"},
			&cli.Uint64Flag{Name: "seed", Usage: "seed of --fail-rate's random numbers; 0 picks one"},
		},
		Action: func(c *cli.Context) error {
			o, closeLog, err := emulateOptions(c)
			if err != nil {
				return err
			}
			defer closeLog()
			e, err := emu.Start(c.Context, o)
			if err != nil {
				return err
			}
			for _, d := range e.Devices() {
				fmt.Fprintln(c.App.Writer, d)
			}
			<-c.Context.Done()
			return e.Close()
		},
	}
}

// emulateOptions reads and checks the flags of calq sms emulate and opens
// the files they name.
func emulateOptions(c *cli.Context) (emu.Options, func(), error) {
	o := emu.Options{Modems: c.Int("modems"), Latency: c.Duration("latency"),
		FailRate: c.Float64("fail-rate"), Seed: c.Uint64("seed")}
	switch {
	case c.Args().Present():
		return o, nil, usageErrorf(c, "unexpected argument %q", c.Args().First())
	case o.Modems < 1 || o.Modems > 1024:
		return o, nil, usageErrorf(c, "--modems: %d is not between 1 and 1024", o.Modems)
	case o.Latency < 0:
		return o, nil, usageErrorf(c, "--latency: %v is negative", o.Latency)
	case o.FailRate < 0 || o.FailRate > 1:
		return o, nil, usageErrorf(c, "--fail-rate: %v is not between 0 and 1", o.FailRate)
	}
	if name := c.String("inbox"); name != "" {
		f, err := os.Open(name)
		if err != nil {
			return o, nil, fmt.Errorf("--inbox: %w", err)
		}
		o.Inbox, err = emu.ReadInbox(f)
		f.Close()
		if err != nil {
			return o, nil, fmt.Errorf("--inbox: %s: %w", name, err)
		}
	}
	if name := c.String("log"); name != "" {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return o, nil, fmt.Errorf("--log: %w", err)
		}
		o.Log = f
		return o, func() { f.Close() }, nil
	}
	return o, func() {}, nil
}
