package userscmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/internal/serve/users"
	"calq/sched/journal"
)

func addCommand() *cli.Command {
	return &cli.Command{
		Name:      "add",
		Usage:     "add a user of calq serve",
		ArgsUsage: "NAME",
		Description: "Adds the user NAME, without API keys (calq users key makes one). NAME is 1\n" +
			"to 64 ASCII letters, digits and '.', '_', '-', '@'; a NAME taken is an error\n" +
			"(calq users set changes a user). --profile names a [profiles.NAME] of the\n" +
			"config file, which calq serve applies to the user's conversions.\n\n" +
			"A password signs the user in to calq serve's web pages (API keys do not need\n" +
			"one): --password-file FILE reads it from the first line of FILE ('-' standard\n" +
			"input); else, when standard input is a terminal, add asks for it twice without\n" +
			"echo; --no-password, or standard input that is not a terminal, adds the user\n" +
			"without one (a hint on stderr says how to set it later). A password has 8\n" +
			"characters or more, at most 1024 bytes, and no control characters; calq keeps\n" +
			"only its argon2id hash and never prints it.\n\n" +
			"Unlike the other commands, add creates the journal when it is missing.",
		Flags: append(userFlags(), passwordFileFlag(),
			&cli.BoolFlag{Name: "no-password", Usage: "add the user without a password, without asking"}),
		Action: func(c *cli.Context) error {
			name, err := nameArg(c)
			if err != nil {
				return err
			}
			profile, err := checkProfile(c)
			if err != nil {
				return err
			}
			pw, err := addPassword(c, name)
			if err != nil {
				return err
			}
			u, err := addUser(c, users.User{Name: name, Admin: c.Bool("admin"), Profile: profile}, pw)
			if err != nil {
				return err
			}
			if _, err = fmt.Fprintf(c.App.Writer, "added user %s%s\n", u.Name, describe(u)); err != nil {
				return err
			}
			if !u.Password && !c.Bool("no-password") {
				return noPasswordHint(c, name)
			}
			return nil
		},
	}
}

// addPassword returns the password that the flags, or the person at the
// terminal, give the user named name; "" none.
func addPassword(c *cli.Context, name string) (string, error) {
	if c.IsSet("password-file") && c.Bool("no-password") {
		return "", base.Usagef(c, "--password-file and --no-password exclude each other")
	}
	if c.IsSet("password-file") {
		return readPasswordFile(c)
	}
	if fd, ok := stdinTerminal(c); ok && !c.Bool("no-password") {
		return promptPassword(c, fd, name)
	}
	return "", nil
}

// addUser adds u with the password pw ("" none) to the journal, which it
// creates when missing.
func addUser(c *cli.Context, u users.User, pw string) (users.User, error) {
	j, err := journal.Open(c.Context, base.JournalPath(c), journal.Options{})
	if err != nil {
		return u, err
	}
	s, err := users.Open(c.Context, j)
	switch {
	case err != nil:
	case pw != "":
		u, err = s.AddWithPassword(c.Context, u, pw)
	default:
		u, err = s.Add(c.Context, u)
	}
	return u, errors.Join(err, j.Close())
}

// describe is what a user is besides its name, for a line of output:
// " (admin, profile legal, password, disabled)".
func describe(u users.User) string {
	var what []string
	if u.Admin {
		what = append(what, "admin")
	}
	if u.Profile != "" {
		what = append(what, "profile "+u.Profile)
	}
	if u.Password {
		what = append(what, "password")
	}
	if u.Disabled {
		what = append(what, "disabled")
	}
	if u.SMS {
		what = append(what, "sms")
	}
	if len(what) == 0 {
		return ""
	}
	return " (" + base.SafeText(strings.Join(what, ", ")) + ")"
}
