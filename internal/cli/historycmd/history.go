package historycmd

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"calq/internal/bytestr"
	"calq/internal/cli/base"
	"calq/sched"
	"calq/sched/history"
	"calq/sched/journal"
	"calq/sched/pgqueue"
	"calq/sched/shell"
)

// Command is calq history.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "history",
		Usage: "list the jobs in the journal; summarise or prune them",
		Description: "Lists the jobs that calq sched run --journal recorded, newest first, as a\n" +
			"table (ID, KEY, KIND, STATE, ATTEMPTS, BACKEND, ENQUEUED, WAIT, RUN, ERROR;\n" +
			"BACKEND is where the last attempt ran). With --json, prints one JSON object\n" +
			`per line and job, with "message_type": "job" and the journal's columns.` + "\n" +
			"The journal is --db; a missing journal is an error, never created.\n\n" + base.WhenHelp,
		Flags: append(filterFlags(),
			&cli.IntFlag{Name: "limit", Value: 50, Usage: "list at most `N` jobs; 0 for all"},
			base.JSONFlag(),
			base.DBFlag()),
		Action:      historyAction(true, listJobs, writeHistory),
		Subcommands: []*cli.Command{statsCommand(), pruneCommand()},
	}
}

// historyAction is the Action of calq history and calq history stats: it
// reads the filter flags (and --limit if the command has it), asks the
// store (--db) with query and renders the answer.
func historyAction[T any](limit bool, query func(history.Store, context.Context, history.Filter) (T, error),
	render func(w io.Writer, v T, asJSON bool) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		f, err := historyFilter(c, limit)
		if err != nil {
			return err
		}
		return base.WithHistory(c, func(s history.Store) error {
			v, err := query(s, c.Context, f)
			if err != nil {
				return err
			}
			return render(c.App.Writer, v, c.Bool("json"))
		})
	}
}

func filterFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "kind", Usage: "only jobs of this `KIND` (shell, convert, sms, ...)"},
		&cli.StringFlag{Name: "state", Usage: "only jobs in this `STATE`: " + strings.Join(stateNames(), ", ")},
		&cli.StringFlag{Name: "backend", Usage: "only jobs whose last attempt ran on `BACKEND`"},
		&cli.StringFlag{Name: "label", Usage: "only jobs whose label contains `TEXT`"},
		&cli.StringFlag{Name: "since", Usage: "only jobs enqueued at or after `TIME`"},
		&cli.StringFlag{Name: "until", Usage: "only jobs enqueued before `TIME`"},
	}
}

var historyStates = []sched.State{sched.StateQueued, sched.StateRunning, sched.StateDone,
	sched.StateFailed, sched.StateTimedOut, sched.StateCancelled}

func stateNames() []string {
	names := make([]string, len(historyStates))
	for i, s := range historyStates {
		names[i] = string(s)
	}
	return names
}

// historyFilter reads and checks the filter flags, and --limit when the
// command has it.
func historyFilter(c *cli.Context, limit bool) (journal.Filter, error) {
	f := journal.Filter{Kind: c.String("kind"), State: sched.State(c.String("state")),
		Backend: c.String("backend"), Label: c.String("label")}
	var errs base.FlagErrors
	for _, v := range [][2]string{{"--label", f.Label}, {"--backend", f.Backend}} {
		if err := base.CheckText(v[0], v[1]); err != nil {
			errs.Add(err)
		}
	}
	if f.State != "" && !slices.Contains(historyStates, f.State) {
		errs.Errorf("--state: unknown state %q (valid: %s)", f.State, strings.Join(stateNames(), ", "))
	}
	now := time.Now()
	for _, w := range []struct {
		flag string
		dst  *time.Time
	}{{"since", &f.Since}, {"until", &f.Until}} {
		var err error
		if *w.dst, err = base.ParseWhen(w.flag, c.String(w.flag), now); err != nil {
			errs.Add(err)
		}
	}
	if limit {
		if f.Limit = c.Int("limit"); f.Limit < 0 {
			errs.Errorf("--limit: %d is negative", f.Limit)
		}
	}
	if c.Args().Present() {
		errs.Errorf("unknown command %q", c.Args().First())
	}
	if err := errs.Err(c); err != nil {
		return f, err
	}
	return f, nil
}

// historyJob is a job in calq history --json: the record, with what ran
// and its payload as text (a JSON payload as itself), never base64.
type historyJob struct {
	journal.Record
	What    string `json:"what"`
	Payload any    `json:"payload,omitempty"`
}

// jobList is what calq history lists: the records, and whether they come
// from the shared queue, whose shell jobs carry JSON (the command and its
// shell) where the journal's carry the command line itself.
type jobList struct {
	recs   []journal.Record
	shared bool
}

func listJobs(s history.Store, ctx context.Context, f history.Filter) (jobList, error) {
	recs, err := s.List(ctx, f)
	_, shared := s.(*pgqueue.Queue)
	return jobList{recs: recs, shared: shared}, err
}

// shellText says whether a job's payload is its command line as text: a
// shell job's in the journal is, whatever it reads as (true, 0, null and
// [1] are command lines too).
func (l jobList) shellText(r journal.Record) bool {
	return r.Kind == shell.Kind && !l.shared
}

// jobWhat says what a job ran: a shell job's command line, a conversion's
// input file; else its payload when it is text. Jobs of the shared queue
// carry JSON: a conversion its source, a shell job its command.
func (l jobList) jobWhat(r journal.Record) string {
	if l.shellText(r) {
		return string(r.Payload)
	}
	var p struct {
		In      bytestr.String `json:"in"`
		Source  bytestr.String `json:"source"`
		Command bytestr.String `json:"command"`
	}
	if json.Unmarshal(r.Payload, &p) == nil {
		if w := cmp.Or(p.In, p.Source, p.Command); w != "" {
			return string(w)
		}
	}
	if utf8.Valid(r.Payload) && !json.Valid(r.Payload) {
		return string(r.Payload)
	}
	return ""
}

// payloadJSON is a payload as JSON shows it best: itself when it is a JSON
// value (and not a shell job's command line), a string when it is text,
// base64 bytes only when it is neither.
func (l jobList) payloadJSON(r journal.Record) any {
	p := r.Payload
	switch {
	case len(p) == 0:
		return nil
	case json.Valid(p) && !l.shellText(r):
		return json.RawMessage(p)
	case utf8.Valid(p):
		return string(p)
	}
	return p
}

func writeHistory(w io.Writer, l jobList, asJSON bool) error {
	recs := l.recs
	if asJSON {
		for _, r := range recs {
			if err := base.WriteJSONLine(w, "job", historyJob{r, l.jobWhat(r), l.payloadJSON(r)}); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKEY\tKIND\tWHAT\tSTATE\tATTEMPTS\tBACKEND\tENQUEUED\tWAIT\tRUN\tERROR")
	for _, r := range recs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", r.ID, base.SafeText(r.Key), base.SafeText(r.Kind),
			base.OrDash(firstLine(l.jobWhat(r), 50)), r.State, r.Attempts,
			base.OrDash(base.SafeText(r.RanOn)), r.Enqueued.Local().Format(time.DateTime), base.Seconds(r.WaitS), base.Seconds(r.RunS),
			base.OrDash(firstLine(r.Error, 60)))
	}
	return tw.Flush()
}

// firstLine shortens s to its first line, escaped (base.SafeText), and at most n runes, marking
// what it cut with "…".
func firstLine(s string, n int) string {
	line, _, more := strings.Cut(s, "\n")
	// Escaped before it is cut: []rune would make U+FFFD of the bytes
	// that are not UTF-8, which safeText would then leave as they look.
	line = base.SafeText(line)
	if r := []rune(line); len(r) > n {
		return string(r[:n-1]) + "…"
	} else if more {
		return line + "…"
	}
	return line
}
