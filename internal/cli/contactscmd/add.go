package contactscmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"calq/convert/contacts"
	"calq/internal/cli/base"
	"calq/sched/journal"
)

func addCommand() *cli.Command {
	return &cli.Command{
		Name:      "add",
		Usage:     "add a contact, or change its address",
		ArgsUsage: "NAME ADDRESS",
		Description: "Records ADDRESS under NAME, replacing the address NAME had. ADDRESS is one\n" +
			"email address, 'user@host' or 'Name <user@host>'; calq keeps user@host. NAME\n" +
			"has no '@' or ',', no control characters and no spaces around it. Unlike the\n" +
			"other commands, add creates the journal when it is missing.",
		Flags: []cli.Flag{base.DBFlag(), userFlag()},
		Action: func(c *cli.Context) error {
			name, address, err := contactArgs(c)
			if err != nil {
				return err
			}
			owner, err := bookOwner(c)
			if err != nil {
				return err
			}
			j, err := journal.Open(c.Context, base.JournalPath(c), journal.Options{})
			if err != nil {
				return err
			}
			b, err := contacts.Open(c.Context, j)
			if err == nil {
				err = b.Owner(owner).Add(c.Context, name, address)
			}
			if err = errors.Join(err, j.Close()); err != nil {
				return err
			}
			_, err = fmt.Fprintf(c.App.Writer, "added contact %s <%s>%s\n", name, address, forUser(owner))
			return err
		},
	}
}

// contactArgs reads and checks NAME and ADDRESS, returning the bare
// address.
func contactArgs(c *cli.Context) (name, address string, err error) {
	args := c.Args().Slice()
	switch {
	case len(args) == 0:
		return "", "", base.Usagef(c, "missing NAME and ADDRESS")
	case len(args) == 1:
		return "", "", base.Usagef(c, "missing ADDRESS")
	case len(args) > 2:
		return "", "", base.Usagef(c, "unexpected argument %q", args[2])
	}
	address, err = contacts.CheckContact(args[0], args[1])
	var ce *contacts.ContactError
	if errors.As(err, &ce) {
		return "", "", base.Usagef(c, "%s %q %v", strings.ToUpper(ce.Field), ce.Value, ce.Err)
	}
	return args[0], address, err
}
