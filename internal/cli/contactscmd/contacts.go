package contactscmd

import (
	"github.com/urfave/cli/v2"

	"calq/convert/contacts"
	"calq/internal/cli/base"
	"calq/sched/journal"
)

// Command is calq contacts.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "contacts",
		Usage: "keep the address book that calq convert --mail-to reads",
		Description: "Contacts are short names for email addresses, kept in the journal (--db).\n" +
			"Wherever calq takes recipients, a name stands for its address and an entry\n" +
			"with an '@' is an address as is.",
		Flags:       []cli.Flag{base.DBFlag()},
		Subcommands: []*cli.Command{addCommand(), listCommand(), removeCommand()},
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
