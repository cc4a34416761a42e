package userscmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/internal/serve/users"
)

func removeCommand() *cli.Command {
	return &cli.Command{
		Name:      "remove",
		Aliases:   []string{"rm"},
		Usage:     "remove a user and its API keys",
		ArgsUsage: "NAME",
		Description: "Removes the user NAME and its API keys, which calq serve refuses from then\n" +
			"on; an unknown NAME is an error. A missing journal is an error, never created.",
		Flags: []cli.Flag{base.DBFlag()},
		Action: func(c *cli.Context) error {
			name, err := nameArg(c)
			if err != nil {
				return err
			}
			return withStore(c, func(s *users.Store) error {
				if err := s.Remove(c.Context, name); err != nil {
					return err
				}
				_, err := fmt.Fprintf(c.App.Writer, "removed user %s\n", name)
				return err
			})
		},
	}
}
