package contactscmd

import (
	"errors"

	"github.com/urfave/cli/v2"

	"calq/convert/contacts"
	"calq/internal/cli/base"
	"calq/internal/serve/users"
	"calq/sched/journal"
)

// Command is calq contacts.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "contacts",
		Usage: "keep the address book that calq convert --mail-to reads",
		Description: "Contacts are short names for email addresses and phone numbers, kept in\n" +
			"the journal (--db). Wherever calq takes recipients, a name stands for its address\n" +
			"(or, for SMS through calq serve, its number) and an entry with an '@' is an\n" +
			"address as is, one that reads as a phone number a number. Each user of calq serve has a book of their\n" +
			"own, which --user NAME reads and changes instead of the local book.",
		Flags:       []cli.Flag{base.DBFlag()},
		Subcommands: []*cli.Command{addCommand(), listCommand(), removeCommand()},
	}
}

// userFlag is --user, the book of a user of calq serve.
func userFlag() cli.Flag {
	return &cli.StringFlag{Name: "user", Usage: "the address book of calq serve's user `NAME` (default: the local book)"}
}

// bookOwner reads and checks --user: the owner of the book the command
// works on, "" for the local book.
func bookOwner(c *cli.Context) (string, error) {
	if !c.IsSet("user") {
		return "", nil
	}
	name := c.String("user")
	err := users.CheckName(name)
	var ne *users.NameError
	if errors.As(err, &ne) {
		return "", base.Usagef(c, "--user %q %v", ne.Value, ne.Err)
	}
	return name, err
}

// forUser is how the messages of a change name the book: nothing for the
// local book.
func forUser(owner string) string {
	if owner == "" {
		return ""
	}
	return " for user " + owner
}

// withBook runs fn with owner's address book in the journal, which must
// exist (see withJournal).
func withBook(c *cli.Context, owner string, fn func(*contacts.Book) error) error {
	return base.WithJournal(c, func(j *journal.Journal) error {
		b, err := contacts.Open(c.Context, j)
		if err != nil {
			return err
		}
		return fn(b.Owner(owner))
	})
}
