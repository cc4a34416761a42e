package main

// Helpers every command shares: the journal (--db), --json, and small
// renderings. Each leaf command lives in its own cmd_*.go file.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"calq/convert/contacts"
	"calq/internal/dburl"
	"calq/internal/homedir"
	"calq/sched/history"
	"calq/sched/journal"
	"calq/sched/pgqueue"
)

func init() {
	// Help shows a default only when it says something: not urfave's
	// "(default: false)" of every switch, nor a zero that means "unset".
	stringer := cli.FlagStringer
	cli.FlagStringer = func(f cli.Flag) string {
		s := stringer(f)
		for _, zero := range []string{" (default: false)", " (default: 0)", " (default: 0s)", ` (default: "")`} {
			s = strings.Replace(s, zero, "", 1)
		}
		return s
	}
}

// dbFlag is --db, the journal's path; journalPath reads it. calq history
// and calq sched run share it.
func dbFlag() cli.Flag {
	return &cli.StringFlag{Name: "db", EnvVars: []string{"CALQ_DB"},
		Usage: "the journal file `PATH` (default: $XDG_STATE_HOME/calq/calq.db, else ~/.local/state/calq/calq.db)"}
}

// journalPath is the journal's path: --db as given to the innermost
// command that was given it (calq history --db X stats works too), else
// $CALQ_DB, else the default under $XDG_STATE_HOME or $HOME.
func journalPath(c *cli.Context) string {
	env := os.Getenv("CALQ_DB")
	for _, ctx := range c.Lineage() {
		// urfave counts a value from the environment as set: only a value
		// unlike the environment's surely came from the command line.
		if slices.Contains(ctx.LocalFlagNames(), "db") && ctx.String("db") != env {
			return ctx.String("db")
		}
	}
	if env != "" {
		return env
	}
	return defaultJournalPath()
}

// defaultJournalPath is the journal's path when --db and $CALQ_DB name
// none (or name the shared database, beside which this machine keeps its
// own journal).
// It is "" when there is no home directory to put it under (see
// homedir.Dir), never a path relative to the current directory:
// journal.Open refuses "" with a hint.
func defaultJournalPath() string {
	xdg := os.Getenv("XDG_STATE_HOME")
	home, err := homedir.Dir()
	if err != nil && !filepath.IsAbs(xdg) {
		return ""
	}
	return journal.DefaultPath(xdg, home)
}

// withJournal runs fn on the journal at journalPath. A missing journal is
// an error: reading history must not create one.
func withJournal(c *cli.Context, fn func(*journal.Journal) error) (err error) {
	path := journalPath(c)
	if _, err := os.Stat(path); path != "" && errors.Is(err, fs.ErrNotExist) && !dburl.HasScheme(path) && !dburl.IsPostgres(path) {
		return &journalMissing{path: path}
	}
	j, err := journal.Open(c.Context, path, journal.Options{})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, j.Close()) }()
	return fn(j)
}

// withHistory runs fn on the store of jobs that --db names: the shared
// queue for a postgres:// URL, else the journal (which must exist).
func withHistory(c *cli.Context, fn func(history.Store) error) error {
	if db := journalPath(c); dburl.IsPostgres(db) {
		q, err := pgqueue.Open(c.Context, db, pgqueue.Options{})
		if err != nil {
			return err
		}
		defer q.Close()
		return fn(q)
	}
	return withJournal(c, func(j *journal.Journal) error { return fn(j) })
}

// submitWait bounds how long a submitter (calq convert -j 0, calq sched
// run -j 0) waits at start for a shared queue whose server is down.
const submitWait = time.Minute

// openSubmitQueue opens the shared queue at url for a submitter: a server
// that is down (a restart, a failover) is waited for up to submitWait,
// and that outage, like those met while following the jobs, is told in a
// line on stderr when it begins and one when it ends.
func openSubmitQueue(c *cli.Context, url string) (*pgqueue.Queue, error) {
	ctx, cancel := context.WithTimeout(c.Context, submitWait)
	defer cancel()
	return pgqueue.Open(ctx, url, pgqueue.Options{Wait: true, Link: dbLink(c.App.ErrWriter, "calq: ", url)})
}

// withBook runs fn with the address book in the journal, which must
// exist (see withJournal).
func withBook(c *cli.Context, fn func(*contacts.Book) error) error {
	return withJournal(c, func(j *journal.Journal) error {
		b, err := contacts.Open(c.Context, j)
		if err != nil {
			return err
		}
		return fn(b)
	})
}

// journalMissing is the error of a command that reads a journal that is
// not there; its hint says which commands write one.
type journalMissing struct{ path string }

func (e *journalMissing) Error() string { return fmt.Sprintf("no journal at %s", e.path) }
func (e *journalMissing) Hint() string {
	return "calq convert, calq sched run --journal, calq sms and calq contacts add write the journal; " +
		"give another with --db or CALQ_DB"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// plural writes n and the noun, made plural unless n is 1.
func plural(n int, noun string) string {
	switch {
	case n == 1:
	case strings.HasSuffix(noun, "y"):
		noun = strings.TrimSuffix(noun, "y") + "ies"
	default:
		noun += "s"
	}
	return fmt.Sprintf("%d %s", n, noun)
}

// isTerminal reports whether w is a terminal: progress lines help a person
// watching and would only clutter a log or a test's captured stderr.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

var jsonFlag = &cli.BoolFlag{Name: "json", Usage: "print JSON Lines: one object per line, each with a message_type"}

// openJournal opens the journal at journalPath, creating it if need be.
func openJournal(c *cli.Context) (*journal.Journal, error) {
	return journal.Open(c.Context, journalPath(c), journal.Options{})
}

// writeJSONLines prints a line of messageType per element of vs.
func writeJSONLines[T any](w io.Writer, messageType string, vs []T) error {
	for _, v := range vs {
		if err := writeJSONLine(w, messageType, v); err != nil {
			return err
		}
	}
	return nil
}

// writeJSONLine prints v as one compact JSON object on a line of its own,
// with "message_type" first. v must marshal to an object; a field of its
// own named message_type is replaced.
func writeJSONLine(w io.Writer, messageType string, v any) error {
	var vb bytes.Buffer
	enc := json.NewEncoder(&vb)
	enc.SetEscapeHTML(false) // "<" and "&" of a text stay as they are
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode %s: %w", messageType, err)
	}
	b := bytes.TrimSuffix(vb.Bytes(), []byte("\n"))
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return fmt.Errorf("encode %s: not a JSON object: %w", messageType, err)
	}
	mt, _ := json.Marshal(messageType)
	var buf bytes.Buffer
	buf.WriteString(`{"message_type":`)
	buf.Write(mt)
	// Keep v's own field order: decode the keys in order.
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.Token() // {
	for dec.More() {
		t, _ := dec.Token()
		key := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("encode %s: %w", messageType, err)
		}
		if key == "message_type" {
			continue
		}
		k, _ := json.Marshal(key)
		buf.WriteByte(',')
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(raw)
	}
	buf.WriteString("}\n")
	_, err := w.Write(buf.Bytes())
	return err
}
