package main

// What the commands share beyond internal/cli/base: help's defaults and
// the address book. Each leaf command lives in its own cmd_*.go file.

import (
	"strings"

	"github.com/urfave/cli/v2"

	"calq/convert/contacts"
	"calq/internal/cli/base"
	"calq/sched/journal"
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
