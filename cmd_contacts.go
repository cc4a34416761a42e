package main

import (
	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
)

func contactsCommand() *cli.Command {
	return &cli.Command{
		Name:  "contacts",
		Usage: "keep the address book that calq convert --mail-to reads",
		Description: "Contacts are short names for email addresses, kept in the journal (--db).\n" +
			"Wherever calq takes recipients, a name stands for its address and an entry\n" +
			"with an '@' is an address as is.",
		Flags:       []cli.Flag{base.DBFlag()},
		Subcommands: []*cli.Command{contactsAddCommand(), contactsListCommand(), contactsRemoveCommand()},
	}
}
