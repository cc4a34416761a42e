package contactscmd

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"calq/convert/contacts"
	"calq/internal/cli/base"
)

func listCommand() *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "list the contacts",
		Description: "Prints the contacts sorted by name as a table (NAME, ADDRESS, ADDED). With\n" +
			`--json, prints a line per contact: {"message_type":"contact","name",` + "\n" +
			`"address","added"}. A missing journal is an error, never created.`,
		Flags: []cli.Flag{base.JSONFlag(), base.DBFlag(), userFlag()},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return base.Usagef(c, "unexpected argument %q", c.Args().First())
			}
			owner, err := bookOwner(c)
			if err != nil {
				return err
			}
			return withBook(c, owner, func(b *contacts.Book) error {
				cs, err := b.List(c.Context)
				if err != nil {
					return err
				}
				return writeContacts(c.App.Writer, cs, c.Bool("json"))
			})
		},
	}
}

func writeContacts(w io.Writer, cs []contacts.Contact, asJSON bool) error {
	if asJSON {
		return base.WriteJSONLines(w, "contact", cs)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tADDRESS\tADDED")
	for _, ct := range cs {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", base.SafeText(ct.Name), base.SafeText(ct.Address), ct.Added.Local().Format(time.DateTime))
	}
	return tw.Flush()
}
