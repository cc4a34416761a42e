package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"calq/sched/journal"
)

func contactsCommand() *cli.Command {
	return &cli.Command{
		Name:  "contacts",
		Usage: "keep the address book that calq convert --mail-to reads",
		Description: "Contacts are short names for email addresses, kept in the journal (--db).\n" +
			"Wherever calq takes recipients, a name stands for its address and an entry\n" +
			"with an '@' is an address as is.",
		Flags:       []cli.Flag{dbFlag()},
		Subcommands: []*cli.Command{contactsAddCommand(), contactsListCommand(), contactsRemoveCommand()},
	}
}

func contactsAddCommand() *cli.Command {
	return &cli.Command{
		Name:      "add",
		Usage:     "add a contact, or change its address",
		ArgsUsage: "NAME ADDRESS",
		Description: "Records ADDRESS under NAME, replacing the address NAME had. ADDRESS is one\n" +
			"email address, 'user@host' or 'Name <user@host>'; calq keeps user@host. NAME\n" +
			"has no '@' or ',', no control characters and no spaces around it. Unlike the\n" +
			"other commands, add creates the journal when it is missing.",
		Flags: []cli.Flag{dbFlag()},
		Action: func(c *cli.Context) error {
			name, address, err := contactArgs(c)
			if err != nil {
				return err
			}
			j, err := journal.Open(c.Context, journalPath(c), journal.Options{})
			if err != nil {
				return err
			}
			err = j.AddContact(c.Context, name, address)
			if err = errors.Join(err, j.Close()); err != nil {
				return err
			}
			_, err = fmt.Fprintf(c.App.Writer, "added contact %s <%s>\n", name, address)
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
		return "", "", usageErrorf(c, "missing NAME and ADDRESS")
	case len(args) == 1:
		return "", "", usageErrorf(c, "missing ADDRESS")
	case len(args) > 2:
		return "", "", usageErrorf(c, "unexpected argument %q", args[2])
	}
	address, err = journal.CheckContact(args[0], args[1])
	var ce *journal.ContactError
	if errors.As(err, &ce) {
		return "", "", usageErrorf(c, "%s %q %v", strings.ToUpper(ce.Field), ce.Value, ce.Err)
	}
	return args[0], address, err
}

func contactsListCommand() *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "list the contacts",
		Description: "Prints the contacts sorted by name as a table (NAME, ADDRESS, ADDED). With\n" +
			`--json, prints a line per contact: {"message_type":"contact","name",` + "\n" +
			`"address","added"}. A missing journal is an error, never created.`,
		Flags: []cli.Flag{jsonFlag, dbFlag()},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usageErrorf(c, "unexpected argument %q", c.Args().First())
			}
			return withJournal(c, func(j *journal.Journal) error {
				cs, err := j.Contacts(c.Context)
				if err != nil {
					return err
				}
				return writeContacts(c.App.Writer, cs, c.Bool("json"))
			})
		},
	}
}

func writeContacts(w io.Writer, cs []journal.Contact, asJSON bool) error {
	if asJSON {
		for _, ct := range cs {
			if err := writeJSONLine(w, "contact", ct); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tADDRESS\tADDED")
	for _, ct := range cs {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", ct.Name, ct.Address, ct.Added.Local().Format(time.DateTime))
	}
	return tw.Flush()
}

func contactsRemoveCommand() *cli.Command {
	return &cli.Command{
		Name:        "remove",
		Aliases:     []string{"rm"},
		Usage:       "remove a contact",
		ArgsUsage:   "NAME",
		Description: "Removes the contact NAME; an unknown NAME is an error. A missing journal is\nan error, never created.",
		Flags:       []cli.Flag{dbFlag()},
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			switch {
			case len(args) == 0:
				return usageErrorf(c, "missing NAME")
			case len(args) > 1:
				return usageErrorf(c, "unexpected argument %q", args[1])
			}
			return withJournal(c, func(j *journal.Journal) error {
				if err := j.RemoveContact(c.Context, args[0]); err != nil {
					return err
				}
				_, err := fmt.Fprintf(c.App.Writer, "removed contact %s\n", args[0])
				return err
			})
		},
	}
}
