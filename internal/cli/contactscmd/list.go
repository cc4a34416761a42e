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
		Description: "Prints the contacts sorted by name as a table (NAME, ADDRESS, PHONE, ADDED).\n" +
			`With --json, prints a line per contact: {"message_type":"contact","name",` + "\n" +
			`"address","phone","added"} ("address" is "" for a contact with a number only;` + "\n" +
			`"phone" is left out for one without). A missing journal is an error, never created.`,
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
	fmt.Fprintln(tw, "NAME\tADDRESS\tPHONE\tADDED")
	for _, ct := range cs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", base.SafeText(ct.Name), orDash(base.SafeText(ct.Address)), orDash(ct.Phone),
			ct.Added.Local().Format(time.DateTime))
	}
	return tw.Flush()
}

// orDash is s, or "-" for none: a table's column is never blank.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
