package base

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/urfave/cli/v2"

	"calq/internal/dburl"
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
