package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"calq/sched"
	"calq/sched/journal"
)

const whenHelp = "TIME is RFC 3339, 2006-01-02 or '2006-01-02 15:04' (local time), or a\n" +
	"duration ago such as 90m, 24h or 7d."

func historyCommand() *cli.Command {
	return &cli.Command{
		Name:  "history",
		Usage: "list the jobs in the journal; summarise or prune them",
		Description: "Lists the jobs that calq sched run --journal recorded, newest first, as a\n" +
			"table (ID, KEY, KIND, STATE, ATTEMPTS, BACKEND, ENQUEUED, WAIT, RUN, ERROR;\n" +
			"BACKEND is where the last attempt ran). With --json, prints one JSON object\n" +
			`per line and job, with "message_type": "job" and the journal's columns.` + "\n" +
			"The journal is --db; a missing journal is an error, never created.\n\n" + whenHelp,
		Flags: append(filterFlags(),
			&cli.IntFlag{Name: "limit", Value: 50, Usage: "list at most `N` jobs; 0 for all"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON lines"},
			dbFlag()),
		Action:      historyAction(true, (*journal.Journal).List, writeHistory),
		Subcommands: []*cli.Command{historyStatsCommand(), historyPruneCommand()},
	}
}

func historyStatsCommand() *cli.Command {
	return &cli.Command{
		Name:  "stats",
		Usage: "summarise the jobs in the journal per kind and backend",
		Description: "Prints, per kind and backend, how many jobs are in each state, the mean\n" +
			"and the 50th, 90th and 99th percentiles of their wait (enqueued to first\n" +
			"start) and run (last attempt) times, and why the failed ones failed. With\n" +
			`--json, prints one object: {"message_type": "stats", "groups": [{"kind",` + "\n" +
			`"backend", "jobs", "states", "wait", "run", "reasons"}]}; wait and run hold` + "\n" +
			`"n", "mean_s", "p50_s", "p90_s" and "p99_s".` + "\n\n" + whenHelp,
		Flags:  append(filterFlags(), &cli.BoolFlag{Name: "json", Usage: "print JSON"}, dbFlag()),
		Action: historyAction(false, (*journal.Journal).Stats, writeStats),
	}
}

// historyAction is the Action of calq history and calq history stats: it
// reads the filter flags (and --limit if the command has it), asks the
// journal with query and renders the answer.
func historyAction[T any](limit bool, query func(*journal.Journal, context.Context, journal.Filter) (T, error),
	render func(w io.Writer, v T, asJSON bool) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		f, err := historyFilter(c, limit)
		if err != nil {
			return err
		}
		return withJournal(c, func(j *journal.Journal) error {
			v, err := query(j, c.Context, f)
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
	var errs []error
	if f.State != "" && !slices.Contains(historyStates, f.State) {
		errs = append(errs, fmt.Errorf("--state: unknown state %q (valid: %s)",
			f.State, strings.Join(stateNames(), ", ")))
	}
	now := time.Now()
	for _, w := range []struct {
		flag string
		dst  *time.Time
	}{{"since", &f.Since}, {"until", &f.Until}} {
		var err error
		if *w.dst, err = parseWhen(w.flag, c.String(w.flag), now); err != nil {
			errs = append(errs, err)
		}
	}
	if limit {
		if f.Limit = c.Int("limit"); f.Limit < 0 {
			errs = append(errs, fmt.Errorf("--limit: %d is negative", f.Limit))
		}
	}
	if c.Args().Present() {
		errs = append(errs, fmt.Errorf("unknown command %q", c.Args().First()))
	}
	if len(errs) > 0 {
		return f, usageErrorf(c, "%w", errors.Join(errs...))
	}
	return f, nil
}

// parseWhen reads the TIME of --since, --until and --before (see
// whenHelp); the empty string is the zero time.
func parseWhen(flag, s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, ok := parseDate(s, now.Location()); ok {
		return t, nil
	}
	if d, ok := parseAgo(s); ok {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--%s: %q is not a time (RFC 3339, 2006-01-02, '2006-01-02 15:04') "+
		"or a duration ago (24h, 7d)", flag, s)
}

// parseAgo reads a non-negative Go duration, or a whole number of days
// ("7d").
func parseAgo(s string) (time.Duration, bool) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseInt(days, 10, 64)
		if err != nil || n < 0 || n > math.MaxInt64/int64(24*time.Hour) {
			return 0, false
		}
		return time.Duration(n) * 24 * time.Hour, true
	}
	d, err := time.ParseDuration(s)
	return d, err == nil && d >= 0
}

func historyPruneCommand() *cli.Command {
	return &cli.Command{
		Name:  "prune",
		Usage: "delete the jobs that finished before a time",
		Description: "Deletes the jobs that finished (done, failed or timed out) before --before,\n" +
			"with their attempts, in one transaction. --archive first writes them to FILE\n" +
			"as JSON lines, one job a line as calq history --json prints it but without\n" +
			"message_type. An existing FILE is refused unless --append is given; then\n" +
			"the new lines follow its own. FILE appears or grows, complete and synced to\n" +
			"disk, only once the archive is written whole, and only then are the jobs\n" +
			"deleted. --dry-run counts the jobs and changes nothing.\n" +
			`With --json, prints {"message_type": "prune", "before", "jobs", "dry_run",` + "\n" +
			`"archive", "vacuumed"}.` + "\n\n" + whenHelp,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "before", Usage: "prune the jobs that finished before `TIME` (required)"},
			&cli.StringFlag{Name: "archive", Usage: "write the pruned jobs to `FILE` as JSON lines first (a new file, unless --append)"},
			&cli.BoolFlag{Name: "append", Usage: "add to the --archive FILE when it exists"},
			&cli.BoolFlag{Name: "vacuum", Usage: "compact the journal file afterwards"},
			&cli.BoolFlag{Name: "dry-run", Usage: "count the jobs only"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			dbFlag(),
		},
		Action: func(c *cli.Context) error {
			p, err := pruneOptions(c)
			if err != nil {
				return err
			}
			return withJournal(c, func(j *journal.Journal) error {
				n, err := prune(c, j, p)
				if err != nil {
					return err
				}
				p.Jobs = n
				return writePrune(c.App.Writer, p, c.Bool("json"))
			})
		},
	}
}

// pruneReport is what calq history prune was asked to do and did; it is
// also its --json form.
type pruneReport struct {
	MessageType string    `json:"message_type"` // "prune"
	Before      time.Time `json:"before"`
	Jobs        int       `json:"jobs"` // pruned, or that would be on a dry run
	DryRun      bool      `json:"dry_run"`
	Archive     string    `json:"archive,omitempty"`
	Vacuumed    bool      `json:"vacuumed"`
}

func pruneOptions(c *cli.Context) (pruneReport, error) {
	p := pruneReport{MessageType: "prune", DryRun: c.Bool("dry-run"), Archive: c.String("archive")}
	p.Vacuumed = c.Bool("vacuum") && !p.DryRun
	var errs []error
	var err error
	if !c.IsSet("before") {
		errs = append(errs, errors.New("--before is required"))
	} else if p.Before, err = parseWhen("before", c.String("before"), time.Now()); err != nil {
		errs = append(errs, err)
	}
	if c.Args().Present() {
		errs = append(errs, fmt.Errorf("unexpected argument %q", c.Args().First()))
	}
	switch fi, err := os.Stat(p.Archive); {
	case c.Bool("append") && p.Archive == "":
		errs = append(errs, errors.New("--append: only with --archive"))
	case p.Archive == "":
	case err == nil && fi.IsDir():
		errs = append(errs, fmt.Errorf("--archive %s: is a directory", p.Archive))
	case err == nil && !c.Bool("append"):
		errs = append(errs, fmt.Errorf("--archive %s: exists; give --append to add to it, or another FILE", p.Archive))
	}
	if len(errs) > 0 {
		return p, usageErrorf(c, "%w", errors.Join(errs...))
	}
	return p, nil
}

// prune runs p on j, writing the archive through a file that Prune puts
// in place before it deletes.
func prune(c *cli.Context, j *journal.Journal, p pruneReport) (int, error) {
	o := journal.PruneOptions{Vacuum: p.Vacuumed, DryRun: p.DryRun}
	if p.Archive != "" && !p.DryRun {
		f, err := createAtomic(p.Archive, c.Bool("append"))
		if err != nil {
			return 0, fmt.Errorf("archive: %w", err)
		}
		defer f.discard()
		o.Archive = f
	}
	return j.Prune(c.Context, p.Before, o)
}

// atomicFile is written beside its path and appears there, complete and
// synced, only when Close succeeds: a new file, or (appending) a copy of
// the old one with the new lines after it, renamed over it. A file that
// appeared at path meanwhile is never overwritten when not appending.
type atomicFile struct {
	f        *os.File
	w        *bufio.Writer
	path     string
	appendTo bool
	done     bool
}

func createAtomic(path string, appendTo bool) (*atomicFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, err
	}
	a := &atomicFile{f: f, w: bufio.NewWriter(f), path: path, appendTo: appendTo}
	if appendTo {
		if err := a.copyOld(); err != nil {
			a.discard()
			return nil, err
		}
	}
	return a, nil
}

// copyOld starts the file with the old one's content and mode, if any.
func (a *atomicFile) copyOld() error {
	old, err := os.Open(a.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer old.Close()
	if fi, err := old.Stat(); err == nil {
		a.f.Chmod(fi.Mode().Perm())
	}
	if _, err := io.Copy(a.w, old); err != nil {
		return fmt.Errorf("copy %s: %w", a.path, err)
	}
	return nil
}

func (a *atomicFile) Write(p []byte) (int, error) { return a.w.Write(p) }

// Close flushes, syncs and puts the file in place, then syncs its
// directory, so that the archive is on disk before anything is deleted.
func (a *atomicFile) Close() error {
	a.done = true
	err := errors.Join(a.w.Flush(), a.f.Sync(), a.f.Close())
	if err == nil {
		if a.appendTo {
			err = os.Rename(a.f.Name(), a.path)
		} else if err = os.Link(a.f.Name(), a.path); err == nil {
			os.Remove(a.f.Name())
		}
	}
	if err != nil {
		os.Remove(a.f.Name())
		return err
	}
	return syncDir(filepath.Dir(a.path))
}

// syncDir makes a rename or link in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

// discard removes the file unless Close has run.
func (a *atomicFile) discard() {
	if !a.done {
		a.f.Close()
		os.Remove(a.f.Name())
	}
}

// historyJob is a job in calq history --json.
// historyJob is a job in calq history --json: the record, with what ran
// and its payload as text (a JSON payload as itself), never base64.
type historyJob struct {
	journal.Record
	What    string `json:"what"`
	Payload any    `json:"payload,omitempty"`
}

// jobWhat says what a job ran: a shell job's command line, a conversion's
// input file; else its payload when it is text.
func jobWhat(r journal.Record) string {
	var conv struct {
		In string `json:"in"`
	}
	if json.Unmarshal(r.Payload, &conv) == nil && conv.In != "" {
		return conv.In
	}
	if utf8.Valid(r.Payload) && !json.Valid(r.Payload) {
		return string(r.Payload)
	}
	return ""
}

// payloadJSON is a payload as JSON shows it best: itself when it is a JSON
// value, a string when it is text, base64 bytes only when it is neither.
func payloadJSON(p []byte) any {
	switch {
	case len(p) == 0:
		return nil
	case json.Valid(p):
		return json.RawMessage(p)
	case utf8.Valid(p):
		return string(p)
	}
	return p
}

func writeHistory(w io.Writer, recs []journal.Record, asJSON bool) error {
	if asJSON {
		for _, r := range recs {
			if err := writeJSONLine(w, "job", historyJob{r, jobWhat(r), payloadJSON(r.Payload)}); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKEY\tKIND\tWHAT\tSTATE\tATTEMPTS\tBACKEND\tENQUEUED\tWAIT\tRUN\tERROR")
	for _, r := range recs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Key, r.Kind,
			orDash(safeText(firstLine(jobWhat(r), 50))), r.State, r.Attempts,
			orDash(r.RanOn), r.Enqueued.Local().Format(time.DateTime), seconds(r.WaitS), seconds(r.RunS),
			orDash(firstLine(r.Error, 60)))
	}
	return tw.Flush()
}

func writeStats(w io.Writer, s journal.Stats, asJSON bool) error {
	if asJSON {
		for _, g := range s.Groups {
			if err := writeJSONLine(w, "stats", g); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "KIND\tBACKEND\tJOBS\t%s\n", strings.ToUpper(strings.Join(stateNames(), "\t")))
	for _, g := range s.Groups {
		fmt.Fprintf(tw, "%s\t%s\t%d", g.Kind, orDash(g.Backend), g.Jobs)
		for _, st := range historyStates {
			fmt.Fprintf(tw, "\t%d", g.States[st])
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprintln(tw, "\nKIND\tBACKEND\tTIME\tN\tMEAN\tP50\tP90\tP99")
	for _, g := range s.Groups {
		for _, t := range []struct {
			name string
			s    journal.Summary
		}{{"wait", g.Wait}, {"run", g.Run}} {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", g.Kind, orDash(g.Backend), t.name, t.s.N,
				seconds(&t.s.Mean), seconds(&t.s.P50), seconds(&t.s.P90), seconds(&t.s.P99))
		}
	}
	if !slices.ContainsFunc(s.Groups, func(g journal.Group) bool { return len(g.Reasons) > 0 }) {
		return tw.Flush()
	}
	fmt.Fprintln(tw, "\nKIND\tBACKEND\tREASON\tJOBS")
	for _, g := range s.Groups {
		for _, r := range g.Reasons {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", g.Kind, orDash(g.Backend), r.Reason, r.Count)
		}
	}
	return tw.Flush()
}

func writePrune(w io.Writer, p pruneReport, asJSON bool) error {
	if asJSON {
		return writeJSONLine(w, "prune", p)
	}
	msg := fmt.Sprintf("pruned %s finished before %s", plural(p.Jobs, "job"), p.Before.Format(time.DateTime))
	switch {
	case p.DryRun:
		msg = "would have " + msg + " (dry run)"
	case p.Archive != "":
		msg += ", archived to " + p.Archive
	}
	if p.Vacuumed {
		msg += ", vacuumed"
	}
	_, err := fmt.Fprintln(w, msg)
	return err
}

// seconds renders a duration in seconds for a table: "-" for none.
func seconds(s *float64) string {
	if s == nil {
		return "-"
	}
	d := time.Duration(*s * float64(time.Second))
	if d >= time.Millisecond {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Microsecond).String()
}

// firstLine shortens s to its first line and at most n runes, marking
// what it cut with "…".
func firstLine(s string, n int) string {
	line, _, more := strings.Cut(s, "\n")
	if r := []rune(line); len(r) > n {
		return string(r[:n-1]) + "…"
	} else if more {
		return line + "…"
	}
	return line
}
