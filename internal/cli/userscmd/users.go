package userscmd

import (
	"errors"
	"strings"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/internal/serve/users"
	"calq/sched/journal"
)

// Command is calq users.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "users",
		Usage: "keep the users of calq serve, their API keys and passwords",
		Description: "Users are who may call calq serve, kept in the journal (--db): give calq\n" +
			"serve the same --db. A user has a name, may be an admin, may have a profile\n" +
			"of the config file that its conversions use, has API keys for programs, and\n" +
			"may have a password to sign in to the web pages; a disabled user can do\n" +
			"neither. A key is printed once, when calq users key makes it: calq keeps\n" +
			"only its SHA-256. Of a password calq keeps only an argon2id hash.",
		Flags:       []cli.Flag{base.DBFlag()},
		Subcommands: []*cli.Command{addCommand(), listCommand(), showCommand(), removeCommand(), setCommand(), keyCommand()},
	}
}

// withStore runs fn with the users in the journal, which must exist.
func withStore(c *cli.Context, fn func(*users.Store) error) error {
	return base.WithJournal(c, func(j *journal.Journal) error {
		s, err := users.Open(c.Context, j)
		if err != nil {
			return err
		}
		return fn(s)
	})
}

// userFlags are the flags of add and set: what a user is.
func userFlags() []cli.Flag {
	return []cli.Flag{
		base.DBFlag(), base.ConfigFlag(),
		&cli.BoolFlag{Name: "admin", Usage: "the user is an admin of calq serve (--admin=false: is not)"},
		&cli.StringFlag{Name: "profile", Usage: "the config file's profile `NAME` for the user's conversions ('' none)"},
	}
}

// nameArg reads and checks the one argument, NAME.
func nameArg(c *cli.Context) (string, error) {
	args := c.Args().Slice()
	switch {
	case len(args) == 0:
		return "", base.Usagef(c, "missing NAME")
	case len(args) > 1:
		return "", base.Usagef(c, "unexpected argument %q", args[1])
	}
	err := users.CheckName(args[0])
	var ne *users.NameError
	if errors.As(err, &ne) {
		return "", base.Usagef(c, "%s %q %v", strings.ToUpper(ne.Field), ne.Value, ne.Err)
	}
	return args[0], err
}

// checkProfile checks that the config file defines the profile --profile
// names; "" (none) needs no config file.
func checkProfile(c *cli.Context) (string, error) {
	name := c.String("profile")
	if name == "" {
		return "", nil
	}
	cfg, err := base.LoadConfig(c)
	if err != nil {
		return "", err
	}
	if _, err := cfg.Profile(name); err != nil {
		return "", base.Usagef(c, "--profile: %w", err)
	}
	return name, nil
}
