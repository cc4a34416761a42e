package main

// What the commands share beyond internal/cli/base: help's defaults, the
// shared queue of a submitter, the address book. Each leaf command lives
// in its own cmd_*.go file.

import (
	"context"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"calq/convert/contacts"
	"calq/internal/cli/base"
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
	return base.WithJournal(c, func(j *journal.Journal) error {
		b, err := contacts.Open(c.Context, j)
		if err != nil {
			return err
		}
		return fn(b)
	})
}
