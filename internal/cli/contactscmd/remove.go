package contactscmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"calq/convert/contacts"
	"calq/internal/cli/base"
)

func removeCommand() *cli.Command {
	return &cli.Command{
		Name:        "remove",
		Aliases:     []string{"rm"},
		Usage:       "remove a contact",
		ArgsUsage:   "NAME",
		Description: "Removes the contact NAME; an unknown NAME is an error. A missing journal is\nan error, never created.",
		Flags:       []cli.Flag{base.DBFlag(), userFlag()},
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			switch {
			case len(args) == 0:
				return base.Usagef(c, "missing NAME")
			case len(args) > 1:
				return base.Usagef(c, "unexpected argument %q", args[1])
			}
			owner, err := bookOwner(c)
			if err != nil {
				return err
			}
			return withBook(c, owner, func(b *contacts.Book) error {
				if err := b.Remove(c.Context, args[0]); err != nil {
					return err
				}
				_, err := fmt.Fprintf(c.App.Writer, "removed contact %s%s\n", args[0], forUser(owner))
				return err
			})
		},
	}
}
