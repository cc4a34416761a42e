package userscmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/internal/serve/users"
)

func setCommand() *cli.Command {
	return &cli.Command{
		Name:      "set",
		Usage:     "change a user's admin flag or profile",
		ArgsUsage: "NAME",
		Description: "Changes what the flags given say of the user NAME: --admin or --admin=false,\n" +
			"--profile P, or --profile '' for none. Its keys stay. An unknown NAME is an\n" +
			"error. A missing journal is an error, never created.",
		Flags: userFlags(),
		Action: func(c *cli.Context) error {
			name, err := nameArg(c)
			if err != nil {
				return err
			}
			if !c.IsSet("admin") && !c.IsSet("profile") {
				return base.Usagef(c, "nothing to change: give --admin or --profile")
			}
			profile, err := checkProfile(c)
			if err != nil {
				return err
			}
			return withStore(c, func(s *users.Store) error {
				u, err := setUser(c, s, name, profile)
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(c.App.Writer, "user %s%s\n", u.Name, describe(u))
				return err
			})
		},
	}
}

// setUser applies the flags given to the user named name and returns it.
func setUser(c *cli.Context, s *users.Store, name, profile string) (users.User, error) {
	if c.IsSet("admin") {
		if err := s.SetAdmin(c.Context, name, c.Bool("admin")); err != nil {
			return users.User{}, err
		}
	}
	if c.IsSet("profile") {
		if err := s.SetProfile(c.Context, name, profile); err != nil {
			return users.User{}, err
		}
	}
	return s.Get(c.Context, name)
}
