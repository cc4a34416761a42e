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
		Usage:     "add a contact, or change its address or phone number",
		ArgsUsage: "NAME ADDRESS [PHONE]",
		Description: "Records ADDRESS under NAME. ADDRESS is an email address ('user@host' or\n" +
			"'Name <user@host>'; calq keeps user@host) or a phone number ('+49 151 2345-678';\n" +
			"calq keeps +491512345678), as its '@' tells: it replaces the address, or the\n" +
			"number, NAME had and keeps the other. Given both, an address and a number, they\n" +
			"replace both. NAME has no '@' or ',', no control characters and no spaces around\n" +
			"it. Unlike the other commands, add creates the journal when it is missing.",
		Flags: []cli.Flag{base.DBFlag(), userFlag()},
		Action: func(c *cli.Context) error {
			ct, both, err := contactArgs(c)
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
			switch {
			case err != nil:
			case both:
				err = b.Owner(owner).Set(c.Context, ct)
			default:
				err = b.Owner(owner).Add(c.Context, ct.Name, ct.Address+ct.Phone)
			}
			if err = errors.Join(err, j.Close()); err != nil {
				return err
			}
			_, err = fmt.Fprintf(c.App.Writer, "added contact %s%s\n", described(ct), forUser(owner))
			return err
		},
	}
}

// described is a contact as add's message shows it: "bob <bob@host>",
// "bob, phone +4915..." or both.
func described(ct contacts.Contact) string {
	s := ct.Name
	if ct.Address != "" {
		s += " <" + ct.Address + ">"
	}
	if ct.Phone != "" {
		s += ", phone " + ct.Phone
	}
	return s
}

// contactArgs reads and checks NAME and its address, number or both,
// returning them as the book keeps them; both says that both were given.
func contactArgs(c *cli.Context) (ct contacts.Contact, both bool, err error) {
	args := c.Args().Slice()
	switch {
	case len(args) == 0:
		return ct, false, base.Usagef(c, "missing NAME and ADDRESS")
	case len(args) == 1:
		return ct, false, base.Usagef(c, "missing ADDRESS")
	case len(args) > 3:
		return ct, false, base.Usagef(c, "unexpected argument %q", args[3])
	}
	ct.Name = args[0]
	for _, a := range args[1:] {
		field, value, err := contacts.CheckContact(args[0], a)
		var ce *contacts.ContactError
		if errors.As(err, &ce) {
			return ct, false, base.Usagef(c, "%s %q %v", argName(ce.Field), ce.Value, ce.Err)
		}
		if err != nil {
			return ct, false, err
		}
		if field == "phone" && ct.Phone != "" || field == "address" && ct.Address != "" {
			return ct, false, base.Usagef(c, "two %s: give at most one email address and one phone number", plural(field))
		}
		if field == "phone" {
			ct.Phone = value
		} else {
			ct.Address = value
		}
	}
	return ct, len(args) == 3, nil
}

// argName is how usage errors name a field of contacts.ContactError.
func argName(field string) string {
	if field == "phone" {
		return "PHONE"
	}
	return strings.ToUpper(field)
}

func plural(field string) string {
	if field == "phone" {
		return "phone numbers"
	}
	return "email addresses"
}
