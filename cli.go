package main

// Helpers every command shares: the journal (--db), --json, and small
// renderings. Each leaf command lives in its own cmd_*.go file.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"calq/convert/contacts"
	"calq/internal/cli/base"
	"calq/internal/dburl"
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

// withJournal runs fn on the journal at journalPath. A missing journal is
// an error: reading history must not create one.
func withJournal(c *cli.Context, fn func(*journal.Journal) error) (err error) {
	path := base.JournalPath(c)
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
	if db := base.JournalPath(c); dburl.IsPostgres(db) {
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

// openJournal opens the journal at journalPath, creating it if need be.
func openJournal(c *cli.Context) (*journal.Journal, error) {
	return journal.Open(c.Context, base.JournalPath(c), journal.Options{})
}
