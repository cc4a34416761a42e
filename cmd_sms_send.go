package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"calq/internal/config"
	"calq/sched"
	"calq/sched/journal"
	"calq/sms"
	"calq/sms/at"
	"calq/sms/pdu"
)

func smsSendCommand() *cli.Command {
	return &cli.Command{
		Name:      "send",
		Usage:     "send an SMS to one or more numbers",
		ArgsUsage: "TO... [TEXT | -]  (or --queued)",
		Description: "Records one message per recipient in the journal's outbox (--db) before any\n" +
			"AT traffic, then opens the modems (--device, repeatable, or [[sms.modem]] in the\n" +
			"config file), sends them and waits for their outcome. Messages earlier runs left\n" +
			"queued are not sent: calq says how many there are; calq sms send --queued sends\n" +
			"them (and no new one), as does calq sms daemon. The last argument is the text;\n" +
			"'-', or no text argument at all when the last argument looks like a number,\n" +
			"reads it from stdin. An empty text is refused. Numbers may hold spaces, dashes,\n" +
			"dots, slashes and parentheses. All parts of a long message go through one modem\n" +
			"with one reference; a retry resends only the parts not yet accepted.\n\n" +
			"--no-wait records the messages, prints their ids and exits 4 (queued): a\n" +
			"running calq sms daemon sends them; without one, calq says nothing will until\n" +
			"calq sms send --queued. When a daemon holds the modems, send records the\n" +
			"messages for it and waits for their outcome; while the daemon's modems are all\n" +
			"down that wait has no end but --timeout.\n" +
			"--at TIME (15:04, '2006-01-02 15:04', RFC 3339, +10m) holds a message until then.\n\n" +
			`--json prints a line per message, {"message_type":"sms_result","id","to",` + "\n" +
			`"state","reason","modem","parts","mr" (per part, null if none),"earlier"}, then` + "\n" +
			`{"message_type":"sms_send","modems","still_queued","transliterated"}. An` + "\n" +
			`"earlier" message (in the table, a reason starting "earlier run:") is one of an` + "\n" +
			"earlier run that --queued settled, such as parts a killed run left in flight,\n" +
			"settled as unknown; the exit status covers them.",
		Flags: append(smsModemFlags(),
			&cli.BoolFlag{Name: "flash", Usage: "a flash message (class 0), shown at once and not stored"},
			&cli.BoolFlag{Name: "transliterate", Usage: "replace characters outside GSM 7-bit (“smart quotes”, é, …) when that avoids UCS-2; each change is reported"},
			&cli.BoolFlag{Name: "report", Usage: "ask the network for a status report"},
			&cli.DurationFlag{Name: "validity", Usage: "relative validity, e.g. 24h"},
			&cli.StringFlag{Name: "priority", Aliases: []string{"p"}, Value: "P2", Usage: "priority class: P0 .. P3"},
			&cli.StringFlag{Name: "at", Usage: "send no earlier than `TIME`"},
			&cli.BoolFlag{Name: "wait", Value: true, Usage: "wait for the outcome (the default)"},
			&cli.BoolFlag{Name: "no-wait", Usage: "print the message ids and return at once (exit 4: queued)"},
			&cli.BoolFlag{Name: "queued", Usage: "send the messages earlier runs left queued, and no new one"},
			&cli.DurationFlag{Name: "timeout", Usage: "give up waiting after this long (messages stay queued: exit 4)"},
			&cli.BoolFlag{Name: "allow-duplicates", Usage: "resend parts whose outcome is unknown"},
			&cli.IntFlag{Name: "retries", Value: sched.DefaultRetries, Usage: "retries of a message after transient errors"},
			jsonFlag,
			dbFlag()),
		Action: smsSendAction,
	}
}

// smsModemFlags are the flags that choose modems.
func smsModemFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "device", Aliases: []string{"d"}, Usage: "the modem's serial `DEVICE` (repeatable); default: [[sms.modem]] in the config"},
		&cli.StringFlag{Name: "config", EnvVars: []string{"CALQ_CONFIG"}, Usage: "the config `FILE`"},
		&cli.DurationFlag{Name: "prompt-timeout", Value: 10 * time.Second, Usage: "wait this long for the '>' prompt"},
		&cli.DurationFlag{Name: "result-timeout", Value: 60 * time.Second, Usage: "wait this long for +CMGS after the PDU (then the outcome is unknown)"},
	}
}

// smsModemSpecs reads the modems of --device, else of the config file;
// none is no error: the journal may name a daemon's (daemonSpecs).
func smsModemSpecs(c *cli.Context) ([]sms.ModemSpec, at.Options, error) {
	o := at.Options{PromptTimeout: c.Duration("prompt-timeout"), ResultTimeout: c.Duration("result-timeout")}
	devices := c.StringSlice("device")
	if len(devices) > 0 {
		specs, err := sms.Specs(config.SMS{}, devices, os.Getenv)
		return specs, o, err
	}
	conf, err := loadConfig(c)
	if err != nil {
		return nil, o, err
	}
	if len(conf.SMS.Modems) == 0 {
		return nil, o, nil
	}
	specs, err := sms.Specs(conf.SMS, nil, os.Getenv)
	if err != nil {
		return nil, o, usageErrorf(c, "%w", err)
	}
	return specs, o, nil
}

// errNoModems is the usage error of a command that found no modem at all.
func errNoModems(c *cli.Context) error {
	return usageErrorf(c, "no modems: give --device, or [[sms.modem]] in the config file, or start calq sms daemon --device DEV")
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

func smsSendAction(c *cli.Context) error {
	o, err := smsSendOptions(c)
	if err != nil {
		return err
	}
	jn, err := journal.Open(c.Context, journalPath(c), journal.Options{})
	if err != nil {
		return err
	}
	defer jn.Close()
	o.Journal = jn
	if !o.NoWait {
		if o.Modems, err = daemonSpecs(c, jn, o.Modems); err != nil {
			return err
		}
	}
	res, err := sms.Send(c.Context, o)
	if errors.Is(err, sms.ErrUsage) {
		return &usageError{err: err, hint: helpHint(c)} // nothing was recorded: nothing to show
	}
	if rerr := renderSend(c, res); rerr != nil {
		return rerr
	}
	return err
}

// smsSendOptions reads the arguments and flags of calq sms send.
func smsSendOptions(c *cli.Context) (sms.SendOptions, error) {
	args := c.Args().Slice()
	var o sms.SendOptions
	if c.Bool("queued") {
		return smsQueuedOptions(c)
	}
	if len(args) == 0 {
		return o, usageErrorf(c, "no recipients (or --queued, to send what earlier runs left queued)")
	}
	text, to := "", args
	switch last := args[len(args)-1]; {
	case last == "-" || looksLikeNumber(last):
		if last == "-" {
			to = args[:len(args)-1]
		}
		if isTerminalReader(c.App.Reader) {
			fmt.Fprintln(c.App.ErrWriter, "calq: reading the text from standard input, end with Ctrl-D")
		}
		b, err := io.ReadAll(c.App.Reader)
		if err != nil {
			return o, fmt.Errorf("read the text from stdin: %w", err)
		}
		text = strings.TrimSuffix(string(b), "\n")
	default:
		text, to = last, args[:len(args)-1]
	}
	if len(to) == 0 {
		return o, usageErrorf(c, "no recipients")
	}
	var bad []error
	for i, r := range to {
		n, err := sms.NormalizeNumber(r)
		if err != nil {
			bad = append(bad, fmt.Errorf("recipient %w", err))
		}
		to[i] = n
	}
	if strings.TrimSpace(text) == "" {
		bad = append(bad, errors.New("the text is empty: nothing to send (give TEXT, or pipe it in)"))
	}
	if len(bad) > 0 {
		return o, usageErrorf(c, "%w", errors.Join(bad...))
	}
	class, err := sched.ParseClass(c.String("priority"))
	if err != nil {
		return o, usageErrorf(c, "--priority: %w", err)
	}
	o = sms.SendOptions{To: to, Text: text, Flash: c.Bool("flash"), Transliterate: c.Bool("transliterate"), Report: c.Bool("report"),
		Validity: c.Duration("validity"), Priority: class, NoWait: noWait(c),
		Timeout: c.Duration("timeout"), AllowDuplicates: c.Bool("allow-duplicates"), Retries: c.Int("retries")}
	if o.Validity < 0 {
		return o, usageErrorf(c, "--validity: %v is negative", o.Validity)
	}
	if o.Retries < 0 {
		return o, usageErrorf(c, "--retries: %d is negative", o.Retries)
	}
	if o.Retries == 0 {
		o.Retries = -1 // the flag's 0 means none; SendOptions' 0 means the default
	}
	if s := c.String("at"); s != "" {
		if o.At, err = parseAt(s, time.Now()); err != nil {
			return o, usageErrorf(c, "--at %w", err)
		}
	}
	o.Warn = func(err error) { fmt.Fprintf(c.App.ErrWriter, "calq: warning: %v\n", err) }
	if o.NoWait {
		return o, nil
	}
	o.Modems, o.AT, err = smsModemSpecs(c)
	return o, err
}

func noWait(c *cli.Context) bool { return c.Bool("no-wait") || !c.Bool("wait") }

// smsQueuedOptions reads calq sms send --queued: no recipients nor text,
// and options that apply to sending, not composing.
func smsQueuedOptions(c *cli.Context) (sms.SendOptions, error) {
	var bad []error
	if c.Args().Present() {
		bad = append(bad, fmt.Errorf("--queued sends the queued messages: no TO or TEXT (got %q)", c.Args().First()))
	}
	for _, f := range []string{"flash", "transliterate", "report", "validity", "priority", "at", "no-wait", "wait"} {
		if c.IsSet(f) {
			bad = append(bad, fmt.Errorf("--%s: not with --queued (it applies to new messages)", f))
		}
	}
	o := sms.SendOptions{Queued: true, Timeout: c.Duration("timeout"), AllowDuplicates: c.Bool("allow-duplicates"),
		Retries: c.Int("retries")}
	if o.Retries < 0 {
		bad = append(bad, fmt.Errorf("--retries: %d is negative", o.Retries))
	}
	if len(bad) > 0 {
		return o, usageErrorf(c, "%w", errors.Join(bad...))
	}
	if o.Retries == 0 {
		o.Retries = -1
	}
	o.Warn = func(err error) { fmt.Fprintf(c.App.ErrWriter, "calq: warning: %v\n", err) }
	var err error
	o.Modems, o.AT, err = smsModemSpecs(c)
	return o, err
}

// looksLikeNumber says whether s reads as a phone number (separators
// such as spaces and dashes allowed), so that it is a recipient, not
// the text.
func looksLikeNumber(s string) bool {
	_, err := sms.NormalizeNumber(s)
	return err == nil
}

// isTerminalReader says whether r is a terminal: a person typing
// (/dev/null is a character device, not a terminal).
func isTerminalReader(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// sendLine is --json's line for a message a send settled or queued.
type sendLine struct {
	ID      int64  `json:"id"`
	To      string `json:"to"`
	State   string `json:"state"`
	Reason  string `json:"reason,omitempty"`
	Modem   string `json:"modem,omitempty"`
	Parts   int    `json:"parts"`
	MR      []*int `json:"mr"` // per part, null where the network gave none
	Earlier bool   `json:"earlier"`
}

func toSendLine(m sms.MessageResult, earlier bool) sendLine {
	l := sendLine{ID: m.ID, To: m.To, State: m.State, Reason: m.Reason, Modem: m.Modem, Parts: m.Parts,
		MR: []*int{}, Earlier: earlier}
	for _, mr := range m.MR {
		if mr < 0 {
			l.MR = append(l.MR, nil)
		} else {
			l.MR = append(l.MR, &mr)
		}
	}
	return l
}

func renderSend(c *cli.Context, res sms.Result) error {
	w := c.App.Writer
	if c.Bool("json") {
		for _, m := range res.Messages {
			if err := writeJSONLine(w, "sms_result", toSendLine(m, false)); err != nil {
				return err
			}
		}
		for _, m := range res.Earlier {
			if err := writeJSONLine(w, "sms_result", toSendLine(m, true)); err != nil {
				return err
			}
		}
		return writeJSONLine(w, "sms_send", struct {
			Modems         []string     `json:"modems,omitempty"`
			StillQueued    int          `json:"still_queued"`
			Transliterated []pdu.Change `json:"transliterated,omitempty"`
		}{res.Modems, res.StillQueued, res.Transliterated})
	}
	if res.StillQueued > 0 && !c.Bool("queued") {
		fmt.Fprintf(c.App.ErrWriter, "calq: %s of earlier runs still queued: calq sms send --queued sends them (or calq sms daemon)\n",
			plural(res.StillQueued, "message"))
	}
	if noWait(c) {
		for _, m := range res.Messages {
			fmt.Fprintln(w, m.ID)
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTO\tSTATE\tMODEM\tPARTS\tMR\tREASON")
	for _, m := range res.Messages {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%s\n", m.ID, m.To, m.State, dash(m.Modem), m.Parts, mrText(m.MR), m.Reason)
	}
	for _, m := range res.Earlier {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%s\n", m.ID, m.To, m.State, dash(m.Modem), m.Parts, mrText(m.MR),
			"earlier run: "+m.Reason)
	}
	return tw.Flush()
}

func mrText(mr []int) string {
	s := make([]string, len(mr))
	for i, v := range mr {
		s[i] = "-"
		if v >= 0 {
			s[i] = fmt.Sprint(v)
		}
	}
	return strings.Join(s, ",")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func smsStatusCommand() *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show the outbox: one message with its parts, or the latest messages",
		ArgsUsage: "[ID]",
		Description: "Without ID, lists the --limit latest messages of the outbox (or those in\n" +
			"--state: queued, sent, failed, unknown). With ID, shows that message and its\n" +
			"parts. calq history --kind sms shows the send jobs and their attempts.\n" +
			`--json prints a line per message, {"message_type":"sms","id","created","to",` + "\n" +
			`"text","options":{...},"state","reason","modem","updated","parts":[{"seq",` + "\n" +
			`"total","ref","tpdu_length","state","mr" (null until accepted),"modem","reason"}]};` + "\n" +
			`with ID, then a line per status report, {"message_type":"sms_report","seq",` + "\n" +
			`"report_id","status","outcome","discharged"}: the reports calq sms recv or the` + "\n" +
			"daemon received for its parts, matched by modem, message reference and recipient.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "state", Usage: "only messages in `STATE`: queued, sent, failed or unknown"},
			&cli.IntFlag{Name: "limit", Value: 20, Usage: "list at most `N` messages"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			dbFlag(),
		},
		Action: func(c *cli.Context) error {
			var id int64
			if c.NArg() > 1 {
				return usageErrorf(c, "want at most one ID")
			}
			if st := c.String("state"); st != "" && !slices.Contains(smsStates, st) {
				return usageErrorf(c, "--state: unknown state %q (valid: %s)", st, strings.Join(smsStates, ", "))
			}
			if c.Int("limit") < 0 {
				return usageErrorf(c, "--limit: %d is negative", c.Int("limit"))
			}
			if c.NArg() == 1 {
				if _, err := fmt.Sscan(c.Args().First(), &id); err != nil || id <= 0 {
					return usageErrorf(c, "ID %q is not a message id", c.Args().First())
				}
			}
			return withJournal(c, func(jn *journal.Journal) error {
				var ms []journal.SMSMessage
				var err error
				if id > 0 {
					var m journal.SMSMessage
					m, err = jn.SMS(c.Context, id)
					ms = append(ms, m)
				} else {
					ms, err = jn.ListSMS(c.Context, journal.SMSFilter{State: c.String("state"), Limit: c.Int("limit")})
				}
				if err != nil {
					return err
				}
				var reports []sms.PartReport
				if id > 0 {
					if reports, err = sms.Reports(c.Context, jn, ms[0]); err != nil {
						return err
					}
				}
				return renderStatus(c, ms, id > 0, reports)
			})
		},
	}
}

// smsStates are the states a message of the outbox can be in.
var smsStates = []string{journal.SMSQueued, journal.SMSSent, journal.SMSFailed, journal.SMSUnknown}

// smsJSON is a message of the outbox in --json: its options as an object,
// not JSON in a string; the PDUs stay in the journal (status is about
// outcomes).
type smsJSON struct {
	ID        int64           `json:"id"`
	Created   time.Time       `json:"created"`
	To        string          `json:"to"`
	Text      string          `json:"text"`
	Options   json.RawMessage `json:"options,omitempty"`
	NotBefore time.Time       `json:"not_before,omitzero"`
	State     string          `json:"state"`
	Reason    string          `json:"reason,omitempty"`
	Modem     string          `json:"modem,omitempty"`
	Updated   time.Time       `json:"updated"`
	Parts     []smsPartJSON   `json:"parts"`
}

type smsPartJSON struct {
	Seq     int       `json:"seq"`
	Total   int       `json:"total"`
	Ref     int       `json:"ref"`
	TPDULen int       `json:"tpdu_length"`
	State   string    `json:"state"`
	MR      *int      `json:"mr"` // null until accepted
	Modem   string    `json:"modem,omitempty"`
	Reason  string    `json:"reason,omitempty"`
	Updated time.Time `json:"updated"`
}

func toSMSJSON(m journal.SMSMessage) smsJSON {
	j := smsJSON{ID: m.ID, Created: m.Created, To: m.To, Text: m.Text, NotBefore: m.NotBefore, State: m.State,
		Reason: m.Reason, Modem: m.Modem, Updated: m.Updated, Parts: []smsPartJSON{}}
	if json.Valid([]byte(m.Options)) {
		j.Options = json.RawMessage(m.Options)
	}
	for _, p := range m.Parts {
		pj := smsPartJSON{Seq: p.Seq, Total: p.Total, Ref: p.Ref, TPDULen: p.TPDULen, State: p.State,
			Modem: p.Modem, Reason: p.Reason, Updated: p.Updated}
		if p.MR >= 0 {
			mr := p.MR
			pj.MR = &mr
		}
		j.Parts = append(j.Parts, pj)
	}
	return j
}

func renderStatus(c *cli.Context, ms []journal.SMSMessage, one bool, reports []sms.PartReport) error {
	w := c.App.Writer
	if c.Bool("json") {
		for _, m := range ms {
			if err := writeJSONLine(w, "sms", toSMSJSON(m)); err != nil {
				return err
			}
		}
		for _, r := range reports {
			if err := writeJSONLine(w, "sms_report", r); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCREATED\tTO\tSTATE\tMODEM\tPARTS\tREASON")
	for _, m := range ms {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%s\n", m.ID, m.Created.Local().Format("2006-01-02 15:04:05"),
			m.To, m.State, dash(m.Modem), len(m.Parts), m.Reason)
	}
	if one && len(ms) == 1 {
		fmt.Fprintln(tw, "\nPART\tREF\tSTATE\tMR\tMODEM\tREPORT\tREASON")
		for _, p := range ms[0].Parts {
			report := "-"
			for _, r := range reports {
				if r.Seq == p.Seq {
					report = fmt.Sprintf("%s (status %d)", r.Outcome, r.Status)
				}
			}
			fmt.Fprintf(tw, "%d/%d\t%d\t%s\t%s\t%s\t%s\t%s\n", p.Seq, p.Total, p.Ref, p.State, mrText([]int{p.MR}), dash(p.Modem), report, p.Reason)
		}
	}
	return tw.Flush()
}

func smsBenchCommand() *cli.Command {
	return &cli.Command{
		Name:  "bench",
		Usage: "measure sending throughput through 1..16 emulated modems, and calq's own time per message",
		Description: "Sends one-part messages through emulated modems that take --latency per part,\n" +
			"for each pool size of --modems, and prints messages per second and the ratio to\n" +
			"one modem's (goal: at least 0.9·n); then calq's own time per message (codec,\n" +
			"journal, dispatch) from a zero-latency run on one modem (goal: under 1 ms).\n" +
			`--json prints {"message_type":"sms_bench","latency_ns","rows":[{"modems",` + "\n" +
			`"messages","seconds","per_second","ratio","goal","ok"}],"own_per_message_ns",` + "\n" +
			`"own_goal_ns","own_ok"}.`,
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "latency", Value: 100 * time.Millisecond, Usage: "the emulator's time per part (real modems take 3-10 s)"},
			&cli.IntSliceFlag{Name: "modems", Value: cli.NewIntSlice(1, 2, 4, 8, 16), Usage: "pool sizes"},
			&cli.IntFlag{Name: "per-modem", Value: 25, Usage: "messages per modem in each run"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
		},
		Action: func(c *cli.Context) error {
			switch {
			case c.Args().Present():
				return usageErrorf(c, "unexpected argument %q", c.Args().First())
			case c.Duration("latency") <= 0:
				return usageErrorf(c, "--latency: %v is not positive", c.Duration("latency"))
			case c.Int("per-modem") < 1 || c.Int("per-modem") > 10000:
				return usageErrorf(c, "--per-modem: %d is not between 1 and 10000", c.Int("per-modem"))
			}
			for _, n := range c.IntSlice("modems") {
				if n < 1 || n > 256 {
					return usageErrorf(c, "--modems: %d is not between 1 and 256", n)
				}
			}
			dir, err := os.MkdirTemp("", "calq-sms-bench-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			res, err := sms.Bench(c.Context, sms.BenchOptions{Dir: dir, Latency: c.Duration("latency"),
				Modems: c.IntSlice("modems"), PerModem: c.Int("per-modem")})
			if err != nil {
				return err
			}
			return renderSMSBench(c, res)
		},
	}
}

func renderSMSBench(c *cli.Context, res sms.BenchResult) error {
	w := c.App.Writer
	if c.Bool("json") {
		return json.NewEncoder(w).Encode(struct {
			Type string `json:"message_type"`
			sms.BenchResult
		}{"sms_bench", res})
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "latency per part: %v\n", res.Latency)
	fmt.Fprintln(tw, "MODEMS\tMESSAGES\tSECONDS\tMSG/S\tRATIO\tGOAL\tOK")
	for _, r := range res.Rows {
		fmt.Fprintf(tw, "%d\t%d\t%.3f\t%.1f\t%.2f\t%.1f\t%v\n", r.Modems, r.Messages, r.Seconds, r.PerSecond, r.Ratio, r.Goal, r.OK)
	}
	fmt.Fprintf(tw, "calq's own time per message: %v (goal < %v, ok %v)\n", res.OwnPerMessage.Round(time.Microsecond), res.OwnGoal, res.OwnOK)
	return tw.Flush()
}
