package userscmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/internal/serve/users"
)

func keyCommand() *cli.Command {
	return &cli.Command{
		Name:      "key",
		Usage:     "make an API key for a user",
		ArgsUsage: "NAME",
		Description: "Makes a new API key for the user NAME and prints it alone on stdout. It is\n" +
			"shown this once: calq keeps only its SHA-256, so a lost key is replaced by a\n" +
			"new one. The user's other keys stay valid, unless --revoke-all. Clients send\n" +
			"a key as 'Authorization: Bearer KEY', as 'X-Api-Key: KEY', or as the password\n" +
			"of Basic auth (the user name is ignored). A missing journal is an error.",
		Flags: []cli.Flag{
			base.DBFlag(),
			&cli.BoolFlag{Name: "revoke-all", Usage: "revoke the user's other keys"},
		},
		Action: func(c *cli.Context) error {
			name, err := nameArg(c)
			if err != nil {
				return err
			}
			return withStore(c, func(s *users.Store) error {
				newKey := s.NewKey
				if c.Bool("revoke-all") {
					newKey = s.RotateKey
				}
				key, err := newKey(c.Context, name)
				if err != nil {
					return err
				}
				if _, err := fmt.Fprintln(c.App.Writer, key); err != nil {
					return err
				}
				note := "calq: this key of user %s is shown only once: calq keeps only its hash\n"
				if c.Bool("revoke-all") {
					note = "calq: this key of user %s is shown only once: calq keeps only its hash; its other keys are revoked\n"
				}
				_, err = fmt.Fprintf(c.App.ErrWriter, note, name)
				return err
			})
		},
	}
}
