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
		Usage:     "remove a user, its API keys and its sessions",
		ArgsUsage: "NAME",
		Description: "Removes the user NAME, its API keys and its browser sessions at once: calq\n" +
			"serve refuses them from then on. Its jobs stay in the journal (results until\n" +
			"calq serve's --keep, records until --keep-records), and its address book and\n" +
			"profiles stay: a user added again as NAME finds them. The users page of calq\n" +
			"serve deletes the same way, but never its own administrator nor the last\n" +
			"enabled one. An unknown NAME is an error. A missing journal is an error,\n" +
			"never created.",
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
