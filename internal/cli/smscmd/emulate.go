package smscmd

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/internal/fsio"
	"calq/sms/emu"
)

func emulateCommand() *cli.Command {
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
			"one per line, dealt round-robin to the modems and announced with +CMTI.\n\n" +
			"A PDU that asks for a status report (TP-SRR) gets one --report-delay after\n" +
			"its +CMGS: delivered (TP-ST 0), or failed (TP-ST 64, remote procedure error)\n" +
			"with probability --report-fail-rate (seeded by --seed). As AT+CNMI's <ds>\n" +
			"says, it comes as +CDS: <length> and the PDU (ds=1), or is stored in SIM\n" +
			"memory and announced with +CDSI: \"SM\",<index> (ds=2, what calq sets), or\n" +
			"stored silently (ds=0, the emulator's default); AT+CMGL and AT+CMGR list it.\n" +
			"--report-log appends a JSON line per report as it goes out:\n" +
			`{"device","mr","to","status","via","index","at","pdu"}.` + "\n\n" +
			"--pin gives each SIM a PIN: it counts wrong entries, says the tries left\n" +
			"(AT+CPINR), blocks after 3 (AT+CPIN? says SIM PUK, a PIN entry gets +CME\n" +
			`ERROR: 12) until AT+CPIN="<--puk>","<new PIN>", and answers AT+CCID. --sim-log` + "\n" +
			`appends a JSON line {"device","command","refused","state","pin_left","puk_left"}` + "\n" +
			"per AT+CPIN and AT+CPINR, without the PIN.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "modems", Aliases: []string{"n"}, Value: 1, Usage: "how many modems"},
			&cli.DurationFlag{Name: "latency", Usage: "time from a PDU's Ctrl-Z to +CMGS, e.g. 3s"},
			&cli.Float64Flag{Name: "fail-rate", Usage: "probability `P` of +CMS ERROR: 500 for a PDU"},
			&cli.StringFlag{Name: "log", Usage: "append accepted PDUs to `FILE` as JSON lines"},
			&cli.StringFlag{Name: "inbox", Usage: "plant the hex DELIVER PDUs of `FILE`, one per line"},
			&cli.Uint64Flag{Name: "seed", Usage: "seed of --fail-rate's and --report-fail-rate's random numbers; 0 picks one"},
			&cli.DurationFlag{Name: "report-delay", Value: 2 * time.Second, Usage: "time from +CMGS to the status report a PDU asks for; 0 at once"},
			&cli.Float64Flag{Name: "report-fail-rate", Usage: "probability `P` that a status report says failed"},
			&cli.StringFlag{Name: "report-log", Usage: "append each status report to `FILE` as JSON lines"},
			&cli.StringFlag{Name: "pin", Usage: "each SIM asks for `PIN` (4 to 8 digits)"},
			&cli.StringFlag{Name: "puk", Usage: "the SIMs' `PUK` (8 digits; default 12345678)"},
			&cli.StringFlag{Name: "sim-log", Usage: "append each AT+CPIN and AT+CPINR to `FILE` as JSON lines"},
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
		FailRate: c.Float64("fail-rate"), Seed: c.Uint64("seed"), PIN: c.String("pin"), PUK: c.String("puk"),
		ReportDelay: c.Duration("report-delay"), ReportFailRate: c.Float64("report-fail-rate")}
	switch {
	case c.Args().Present():
		return o, nil, base.Usagef(c, "unexpected argument %q", c.Args().First())
	case o.Modems < 1 || o.Modems > 1024:
		return o, nil, base.Usagef(c, "--modems: %d is not between 1 and 1024", o.Modems)
	case o.Latency < 0:
		return o, nil, base.Usagef(c, "--latency: %v is negative", o.Latency)
	case !(o.FailRate >= 0 && o.FailRate <= 1): // NaN too
		return o, nil, base.Usagef(c, "--fail-rate: %v is not between 0 and 1", o.FailRate)
	case o.ReportDelay < 0:
		return o, nil, base.Usagef(c, "--report-delay: %v is negative", o.ReportDelay)
	case !(o.ReportFailRate >= 0 && o.ReportFailRate <= 1):
		return o, nil, base.Usagef(c, "--report-fail-rate: %v is not between 0 and 1", o.ReportFailRate)
	case o.PIN != "" && !digits(o.PIN, 4, 8):
		return o, nil, base.Usagef(c, "--pin: want 4 to 8 digits")
	case o.PUK != "" && !digits(o.PUK, 8, 8):
		return o, nil, base.Usagef(c, "--puk: want 8 digits")
	case o.PUK != "" && o.PIN == "":
		return o, nil, base.Usagef(c, "--puk needs --pin")
	}
	if name := c.String("inbox"); name != "" {
		b, err := fsio.ReadFile(name, fsio.InboxLimit)
		if err != nil {
			return o, nil, fmt.Errorf("--inbox: %w", err)
		}
		o.Inbox, err = emu.ReadInbox(bytes.NewReader(b))
		if err != nil {
			return o, nil, fmt.Errorf("--inbox: %s: %w", name, err)
		}
	}
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	for _, l := range []struct {
		flag string
		w    *io.Writer
	}{{"log", &o.Log}, {"sim-log", &o.SIMLog}, {"report-log", &o.ReportLog}} {
		name := c.String(l.flag)
		if name == "" {
			continue
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			closeAll()
			return o, nil, fmt.Errorf("--%s: %w", l.flag, err)
		}
		files, *l.w = append(files, f), f
	}
	return o, closeAll, nil
}

// digits reports whether s is min to max decimal digits.
func digits(s string, min, max int) bool {
	return len(s) >= min && len(s) <= max && strings.Trim(s, "0123456789") == ""
}
