package smscmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/sched/journal"
	"calq/sms"
	"calq/sms/store"
)

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show the outbox: one message with its parts, or the latest messages",
		ArgsUsage: "[ID]",
		Description: "Without ID, lists the --limit latest messages of the outbox (or those in\n" +
			"--state: spooled, queued, sent, failed, unknown). With ID, shows that message\n" +
			"and its parts. On a postgres:// --db it first forwards what calq sms send\n" +
			"spooled on this machine while the server was down; what is still spooled is\n" +
			"listed first, state spooled, with no id (also when the server is down, which\n" +
			"then fails: exit 1). calq history --kind sms shows the send jobs and attempts.\n" +
			`--json prints a line per message, {"message_type":"sms","id" (null while` + "\n" +
			`spooled),"created","to","text","options":{...},"state","reason","modem",` + "\n" +
			`"updated","parts":[{"seq","total","ref","tpdu_length","state","mr" (null` + "\n" +
			`until accepted),"modem","reason"}]};` + "\n" +
			`with ID, then a line per status report, {"message_type":"sms_report","seq",` + "\n" +
			`"report_id","status","outcome","discharged"}: the reports calq sms recv or the` + "\n" +
			"daemon received for its parts, matched by modem, message reference and recipient.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "state", Usage: "only messages in `STATE`: spooled, queued, sent, failed or unknown"},
			&cli.IntFlag{Name: "limit", Value: 20, Usage: "list at most `N` messages"},
			base.JSONFlag(),
			base.DBFlag(),
		},
		Action: func(c *cli.Context) error {
			var id int64
			if c.NArg() > 1 {
				return base.Usagef(c, "want at most one ID")
			}
			if st := c.String("state"); st != "" && !slices.Contains(smsStates, st) {
				return base.Usagef(c, "--state: unknown state %q (valid: %s)", st, strings.Join(smsStates, ", "))
			}
			if c.Int("limit") < 0 {
				return base.Usagef(c, "--limit: %d is negative", c.Int("limit"))
			}
			if c.NArg() == 1 {
				if _, err := fmt.Sscan(c.Args().First(), &id); err != nil || id <= 0 {
					return base.Usagef(c, "ID %q is not a message id", c.Args().First())
				}
			}
			show := func(st *store.Store, spooled []store.SMSMessage) error {
				if c.String("state") == store.SMSSpooled {
					return renderStatus(c, spooled, false, nil)
				}
				ms, reports, err := sms.Status(c.Context, st, id, store.SMSFilter{State: c.String("state"), Limit: c.Int("limit")})
				if err != nil {
					return err
				}
				return renderStatus(c, append(spooled, ms...), id > 0, reports)
			}
			if sharedSMS(c) {
				return sharedStatus(c, id, show)
			}
			return base.WithJournal(c, func(jn *journal.Journal) error {
				st, err := store.Open(c.Context, jn)
				if err != nil {
					return err
				}
				return show(st, nil)
			})
		},
	}
}

// smsStates are the states a message of the outbox can be in, and
// spooled: kept on this machine for a shared outbox that did not answer.
var smsStates = []string{store.SMSSpooled, store.SMSQueued, store.SMSSent, store.SMSFailed, store.SMSUnknown}

// sharedStatus shows the shared outbox at --db, after forwarding to it
// what calq sms send spooled on this machine; what is still spooled is
// listed first, also when the server does not answer.
func sharedStatus(c *cli.Context, id int64, show func(*store.Store, []store.SMSMessage) error) error {
	ss, err := openSMS(c)
	var spooled []store.SMSMessage
	if id == 0 && (c.String("state") == "" || c.String("state") == store.SMSSpooled) {
		var serr error
		if spooled, serr = spooledSMS(c); serr != nil {
			err = errors.Join(err, fmt.Errorf("list the spooled sms: %w", serr))
		}
	}
	if err != nil {
		if len(spooled) > 0 {
			if rerr := renderStatus(c, spooled, false, nil); rerr != nil {
				return rerr
			}
		}
		return err
	}
	defer ss.Close()
	return show(ss.Store, spooled)
}

// smsJSON is a message of the outbox in --json: its options as an object,
// not JSON in a string; the PDUs stay in the journal (status is about
// outcomes).
type smsJSON struct {
	ID        *int64          `json:"id"` // null while spooled
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
	Seq        int       `json:"seq"`
	Total      int       `json:"total"`
	Ref        int       `json:"ref"`
	TPDULength int       `json:"tpdu_length"`
	State      string    `json:"state"`
	MR         *int      `json:"mr"` // null until accepted
	Modem      string    `json:"modem,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	Updated    time.Time `json:"updated"`
}

func toSMSJSON(m store.SMSMessage) smsJSON {
	j := smsJSON{Created: m.Created, To: m.To, Text: m.Text, NotBefore: m.NotBefore, State: m.State,
		Reason: m.Reason, Modem: m.Modem, Updated: m.Updated, Parts: []smsPartJSON{}}
	if m.ID != 0 {
		j.ID = &m.ID
	}
	if json.Valid([]byte(m.Options)) {
		j.Options = json.RawMessage(m.Options)
	}
	for _, p := range m.Parts {
		pj := smsPartJSON{Seq: p.Seq, Total: p.Total, Ref: p.Ref, TPDULength: p.TPDULength, State: p.State,
			Modem: p.Modem, Reason: p.Reason, Updated: p.Updated}
		if p.MR >= 0 {
			mr := p.MR
			pj.MR = &mr
		}
		j.Parts = append(j.Parts, pj)
	}
	return j
}

func renderStatus(c *cli.Context, ms []store.SMSMessage, one bool, reports []sms.PartReport) error {
	w := c.App.Writer
	if c.Bool("json") {
		for _, m := range ms {
			if err := base.WriteJSONLine(w, "sms", toSMSJSON(m)); err != nil {
				return err
			}
		}
		if err := base.WriteJSONLines(w, "sms_report", reports); err != nil {
			return err
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCREATED\tTO\tSTATE\tMODEM\tPARTS\tREASON")
	for _, m := range ms {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", idText(m.ID), m.Created.Local().Format("2006-01-02 15:04:05"),
			base.SafeText(m.To), m.State, base.OrDash(base.SafeText(m.Modem)), len(m.Parts), base.SafeText(m.Reason))
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
			fmt.Fprintf(tw, "%d/%d\t%d\t%s\t%s\t%s\t%s\t%s\n", p.Seq, p.Total, p.Ref, p.State, mrText([]int{p.MR}), base.OrDash(base.SafeText(p.Modem)), report, base.SafeText(p.Reason))
		}
	}
	return tw.Flush()
}
