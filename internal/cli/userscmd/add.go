package userscmd

import (
	"errors"
	"fmt"

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
			"config file, which calq serve applies to the user's conversions. Unlike the\n" +
			"other commands, add creates the journal when it is missing.",
		Flags: userFlags(),
		Action: func(c *cli.Context) error {
			name, err := nameArg(c)
			if err != nil {
				return err
			}
			profile, err := checkProfile(c)
			if err != nil {
				return err
			}
			u, err := addUser(c, users.User{Name: name, Admin: c.Bool("admin"), Profile: profile})
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(c.App.Writer, "added user %s%s\n", u.Name, describe(u))
			return err
		},
	}
}

// addUser adds u to the journal, which it creates when missing.
func addUser(c *cli.Context, u users.User) (users.User, error) {
	j, err := journal.Open(c.Context, base.JournalPath(c), journal.Options{})
	if err != nil {
		return u, err
	}
	s, err := users.Open(c.Context, j)
	if err == nil {
		u, err = s.Add(c.Context, u)
	}
	return u, errors.Join(err, j.Close())
}

// describe is what a user is besides its name, for a line of output:
// " (admin, profile legal)".
func describe(u users.User) string {
	var what string
	switch {
	case u.Admin && u.Profile != "":
		what = "admin, profile " + u.Profile
	case u.Admin:
		what = "admin"
	case u.Profile != "":
		what = "profile " + u.Profile
	default:
		return ""
	}
	return " (" + base.SafeText(what) + ")"
}
