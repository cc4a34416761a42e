package smscmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"calq/internal/cli/base"
	"calq/internal/fsio"
	"calq/sched"
	"calq/sms"
	"calq/sms/pdu"
	"calq/sms/store"
)

func sendCommand() *cli.Command {
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
			"down that wait has no end but --timeout. On a postgres:// --db whose server is\n" +
			"down, send waits for it within --timeout (--no-wait: not at all); if it does\n" +
			"not answer (or goes away before the insert), the messages are spooled on\n" +
			"this machine (state spooled, exit 4), in the state directory's sms-<digest>.db\n" +
			"for that database, and the next calq sms send, sms status, sms daemon or\n" +
			"worker --kinds sms here that reaches it forwards them, once each, with their\n" +
			"options and time. A refusal (wrong password, no such database) spools nothing\n" +
			"(exit 1).\n" +
			"--at TIME (15:04, '2006-01-02 15:04', RFC 3339, +10m) holds a message until then.\n\n" +
			`--json prints a line per message, {"message_type":"sms_result","id" (null` + "\n" +
			`while spooled),"to","state","reason","modem","parts","mr" (per part, null if` + "\n" +
			`none),"earlier"}, then {"message_type":"sms_send","modems","still_queued",` + "\n" +
			`"transliterated"}. An "earlier" message (in the table, a reason starting` + "\n" +
			`"earlier run:") is one of an earlier run that --queued settled, such as parts a` + "\n" +
			"killed run left in flight, settled as unknown; the exit status covers them.",
		Flags: append(ModemFlags(),
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
			base.JSONFlag(),
			base.DBFlag()),
		Action: smsSendAction,
	}
}

func smsSendAction(c *cli.Context) error {
	o, err := smsSendOptions(c)
	if err != nil {
		return err
	}
	if sharedSMS(c) && len(o.Modems) > 0 {
		return base.Usagef(c, "--device: with a PostgreSQL --db the daemons on the modem hosts send (calq sms daemon --db URL --device DEV there)")
	}
	ss, err := openSendStore(c, &o)
	if err != nil && sharedSMS(c) && sms.Spoolable(err) {
		res, err := spoolSend(c, o, err)
		if rerr := renderSend(c, res); rerr != nil {
			return rerr
		}
		return err
	}
	if err != nil {
		return fmt.Errorf("sms send: %w; nothing was recorded", err)
	}
	defer ss.Close()
	o.Journal, o.Store = ss.Journal, ss.Store
	if !o.NoWait && !sharedSMS(c) {
		if o.Modems, err = daemonSpecs(c, ss.Journal, o.Modems); err != nil {
			return err
		}
	}
	res, err := sms.Send(c.Context, o)
	if errors.Is(err, sms.ErrUsage) {
		return &base.UsageError{Err: err, Help: base.HelpHint(c)} // nothing was recorded: nothing to show
	}
	if sharedSMS(c) && errors.Is(err, sms.ErrNotRecorded) && sms.Spoolable(err) {
		// The server went away between opening the outbox and the insert.
		res, err = spoolSend(c, o, err)
	}
	if rerr := renderSend(c, res); rerr != nil {
		return rerr
	}
	return err
}

// openSendStore opens the outbox. A shared one whose server is down (a
// restart, a failover) is waited for within --timeout, without it until
// interrupted, and not at all with --no-wait; the wait counts against
// o.Timeout. When it does not answer, the caller spools the messages
// (spoolSend), so that an alert is not lost.
func openSendStore(c *cli.Context, o *sms.SendOptions) (*sms.Stores, error) {
	if !sharedSMS(c) {
		return openSMS(c)
	}
	start, ctx := time.Now(), c.Context
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	oc := *c
	oc.Context = ctx
	ss, err := openWith(&oc, false, store.PGOptions{Wait: !o.NoWait, Link: base.DBLink(c.App.ErrWriter, "calq: ", base.JournalPath(c))})
	if err != nil {
		return nil, err
	}
	if o.Timeout > 0 {
		o.Timeout = max(o.Timeout-time.Since(start), time.Millisecond)
	}
	return ss, nil
}

// smsSendOptions reads the arguments and flags of calq sms send.
func smsSendOptions(c *cli.Context) (sms.SendOptions, error) {
	if c.Bool("queued") {
		return smsQueuedOptions(c)
	}
	to, text, err := sendRecipients(c)
	if err != nil {
		return sms.SendOptions{}, err
	}
	o, err := newMessageOptions(c, to, text)
	if err != nil {
		return o, err
	}
	o.Warn = base.WarnTo(c.App.ErrWriter)
	err = sendModems(c, &o)
	return o, err
}

// sendRecipients reads the recipients, normalized, and the text of calq
// sms send; a bad number and an empty text are told together.
func sendRecipients(c *cli.Context) (to []string, text string, err error) {
	args := c.Args().Slice()
	if len(args) == 0 {
		return nil, "", base.Usagef(c, "no recipients (or --queued, to send what earlier runs left queued)")
	}
	if to, text, err = splitText(c, args); err != nil {
		return nil, "", err
	}
	if len(to) == 0 {
		return nil, "", base.Usagef(c, "no recipients")
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
		return nil, "", base.Usagef(c, "%w", errors.Join(bad...))
	}
	return to, text, nil
}

// splitText splits args into the recipients and the text: the last
// argument, or stdin when the last is "-" (dropped) or a number (kept).
func splitText(c *cli.Context, args []string) (to []string, text string, err error) {
	last := args[len(args)-1]
	if last != "-" && !looksLikeNumber(last) {
		return args[:len(args)-1], last, nil
	}
	to = args
	if last == "-" {
		to = args[:len(args)-1]
	}
	text, err = readStdinText(c)
	return to, text, err
}

// readStdinText reads the text of a message from stdin, without its
// final newline.
func readStdinText(c *cli.Context) (string, error) {
	if isTerminalReader(c.App.Reader) {
		fmt.Fprintln(c.App.ErrWriter, "calq: reading the text from standard input, end with Ctrl-D")
	}
	b, err := fsio.ReadAll(c.App.Reader, "standard input", fsio.TextLimit)
	var tl *fsio.TooLargeError
	if errors.As(err, &tl) {
		return "", base.Usagef(c, "the text on %w (an SMS of 255 parts holds less)", err)
	}
	if err != nil {
		return "", fmt.Errorf("read the text from stdin: %w", err)
	}
	return strings.TrimSuffix(string(b), "\n"), nil
}

// newMessageOptions reads the flags that compose and time the messages
// of text to the recipients to: priority, validity, retries and --at.
func newMessageOptions(c *cli.Context, to []string, text string) (sms.SendOptions, error) {
	class, err := sched.ParseClass(c.String("priority"))
	if err != nil {
		return sms.SendOptions{}, base.Usagef(c, "--priority: %w", err)
	}
	o := sms.SendOptions{To: to, Text: text, Flash: c.Bool("flash"), Transliterate: c.Bool("transliterate"), Report: c.Bool("report"),
		Validity: c.Duration("validity"), Priority: class, NoWait: noWait(c),
		Timeout: c.Duration("timeout"), AllowDuplicates: c.Bool("allow-duplicates"), Retries: c.Int("retries")}
	if o.Validity < 0 {
		return o, base.Usagef(c, "--validity: %v is negative", o.Validity)
	}
	if o.Retries < 0 {
		return o, base.Usagef(c, "--retries: %d is negative", o.Retries)
	}
	if o.Retries == 0 {
		o.Retries = -1 // the flag's 0 means none; SendOptions' 0 means the default
	}
	if s := c.String("at"); s != "" {
		if o.At, err = base.ParseAt(s, time.Now()); err != nil {
			return o, base.Usagef(c, "--at %w", err)
		}
	}
	return o, nil
}

// sendModems reads into o the modems a send goes through; with --no-wait
// none, as a daemon sends, and --device is refused.
func sendModems(c *cli.Context, o *sms.SendOptions) error {
	if o.NoWait {
		if c.IsSet("device") {
			return base.Usagef(c, "--device: not with --no-wait (a calq sms daemon, or calq sms send --queued, sends the message through its own modems)")
		}
		return nil
	}
	return readModems(c, o)
}

// readModems reads into o the modems of --device or the config file, and
// checks there is one.
func readModems(c *cli.Context, o *sms.SendOptions) error {
	var err error
	if o.Modems, o.AT, err = ModemSpecs(c); err != nil {
		return err
	}
	return checkSomeModem(c, o.Modems)
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
		return o, base.Usagef(c, "%w", errors.Join(bad...))
	}
	if o.Retries == 0 {
		o.Retries = -1
	}
	o.Warn = base.WarnTo(c.App.ErrWriter)
	err := readModems(c, &o)
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
	ID      *int64 `json:"id"` // null while spooled: the shared outbox has given none yet
	To      string `json:"to"`
	State   string `json:"state"`
	Reason  string `json:"reason,omitempty"`
	Modem   string `json:"modem,omitempty"`
	Parts   int    `json:"parts"`
	MR      []*int `json:"mr"` // per part, null where the network gave none
	Earlier bool   `json:"earlier"`
}

func toSendLine(m sms.MessageResult, earlier bool) sendLine {
	l := sendLine{To: m.To, State: m.State, Reason: m.Reason, Modem: m.Modem, Parts: m.Parts,
		MR: []*int{}, Earlier: earlier}
	if m.State != store.SMSSpooled {
		l.ID = &m.ID
	}
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
			if err := base.WriteJSONLine(w, "sms_result", toSendLine(m, false)); err != nil {
				return err
			}
		}
		for _, m := range res.Earlier {
			if err := base.WriteJSONLine(w, "sms_result", toSendLine(m, true)); err != nil {
				return err
			}
		}
		return base.WriteJSONLine(w, "sms_send", struct {
			Modems         []string     `json:"modems,omitempty"`
			StillQueued    int          `json:"still_queued"`
			Transliterated []pdu.Change `json:"transliterated,omitempty"`
		}{res.Modems, res.StillQueued, res.Transliterated})
	}
	if res.StillQueued > 0 && !c.Bool("queued") {
		fmt.Fprintf(c.App.ErrWriter, "calq: %s of earlier runs still queued: calq sms send --queued sends them (or calq sms daemon)\n",
			base.Plural(res.StillQueued, "message"))
	}
	if noWait(c) {
		for _, m := range res.Messages {
			if m.State != store.SMSSpooled { // no id yet: stderr says where it is
				fmt.Fprintln(w, m.ID)
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTO\tSTATE\tMODEM\tPARTS\tMR\tREASON")
	for _, m := range res.Messages {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", idText(m.ID), base.SafeText(m.To), m.State, base.OrDash(base.SafeText(m.Modem)), m.Parts, mrText(m.MR), base.SafeText(m.Reason))
	}
	for _, m := range res.Earlier {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%s\n", m.ID, base.SafeText(m.To), m.State, base.OrDash(base.SafeText(m.Modem)), m.Parts, mrText(m.MR),
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

// idText is an outbox id, "-" for none (a spooled message).
func idText(id int64) string {
	if id == 0 {
		return "-"
	}
	return fmt.Sprint(id)
}
