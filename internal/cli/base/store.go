package base

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"calq/internal/dburl"
	"calq/internal/pgdb"
	"calq/sched/history"
	"calq/sched/journal"
	"calq/sched/pgqueue"
)

// OpenJournal opens the journal at JournalPath, creating it if need be.
func OpenJournal(c *cli.Context) (*journal.Journal, error) {
	return journal.Open(c.Context, JournalPath(c), journal.Options{})
}

// WithJournal runs fn on the journal at JournalPath. A missing journal is
// an error: reading history must not create one.
func WithJournal(c *cli.Context, fn func(*journal.Journal) error) (err error) {
	path := JournalPath(c)
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

// WithHistory runs fn on the store of jobs that --db names: the shared
// queue for a postgres:// URL, else the journal (which must exist).
func WithHistory(c *cli.Context, fn func(history.Store) error) error {
	if db := JournalPath(c); dburl.IsPostgres(db) {
		q, err := pgqueue.Open(c.Context, db, pgqueue.Options{})
		if err != nil {
			return err
		}
		defer q.Close()
		return fn(q)
	}
	return WithJournal(c, func(j *journal.Journal) error { return fn(j) })
}

// journalMissing is the error of a command that reads a journal that is
// not there; its hint says which commands write one.
type journalMissing struct{ path string }

func (e *journalMissing) Error() string { return fmt.Sprintf("no journal at %s", e.path) }
func (e *journalMissing) Hint() string {
	return "calq convert, calq sched run --journal, calq sms and calq contacts add write the journal; " +
		"give another with --db or CALQ_DB"
}

// submitWait bounds how long a submitter (calq convert -j 0, calq sched
// run -j 0) waits at start for a shared queue whose server is down.
const submitWait = time.Minute

// OpenSubmitQueue opens the shared queue at url for a submitter: a server
// that is down (a restart, a failover) is waited for up to submitWait,
// and that outage, like those met while following the jobs, is told in a
// line on stderr when it begins and one when it ends.
func OpenSubmitQueue(c *cli.Context, url string) (*pgqueue.Queue, error) {
	ctx, cancel := context.WithTimeout(c.Context, submitWait)
	defer cancel()
	return pgqueue.Open(ctx, url, pgqueue.Options{Wait: true, Link: DBLink(c.App.ErrWriter, "calq: ", url)})
}

// DBLink reports the outages of the database at url that a long-running
// command meets on w, a line after prefix when one begins and one when it
// ends, however many operations fail in between.
func DBLink(w io.Writer, prefix, url string) *pgdb.Link {
	addr := dburl.Redact(url)
	return &pgdb.Link{
		Lost: func(err error) {
			fmt.Fprintf(w, "%sdatabase %s unreachable, retrying: %s\n", prefix, addr, SafeText(pgdb.Reason(err)))
		},
		Back: func(d time.Duration) {
			fmt.Fprintf(w, "%sdatabase %s back after %v\n", prefix, addr, d.Round(time.Second))
		},
	}
}
