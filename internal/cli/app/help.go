package app

// Help: the defaults it shows, calq help, and what calq or a group says
// when it is given no command or one it does not know.

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
)

func init() {
	// Help shows a default only when it says something: not urfave's
	// "(default: false)" of every switch, nor a zero that means "unset".
	stringer := cli.FlagStringer
	cli.FlagStringer = func(f cli.Flag) string {
		s := stringer(f)
		for _, zero := range []string{" (default: false)", " (default: 0)", " (default: 0s)", ` (default: "")`} {
			s = strings.Replace(s, zero, "", 1)
		}
		return s
	}
}

// helpCommand replaces urfave's, which cannot show the subcommands of a
// group ("calq help sched"): it asks the named command for --help instead.
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Aliases:   []string{"h"},
		Usage:     "show help for calq or for a command",
		ArgsUsage: "[command [subcommand]]",
		Action: func(c *cli.Context) error {
			args := append([]string{c.App.Name}, c.Args().Slice()...)
			return c.App.RunContext(c.Context, append(args, "--help"))
		},
	}
}

// rootAction runs for calq without a command: a usage error with the
// help on stderr, or an unknown command (urfave would exit 3 for it).
func rootAction(c *cli.Context) error {
	if c.Args().Present() {
		return unknownCommand(c, c.App.Commands)
	}
	c.App.Writer = c.App.ErrWriter
	if err := cli.ShowAppHelp(c); err != nil {
		return err
	}
	return base.Usagef(c, "no command given")
}

// groupAction is rootAction for commands that only group subcommands.
func groupAction(c *cli.Context) error {
	if c.Args().Present() {
		return unknownCommand(c, c.Command.Subcommands)
	}
	c.App.Writer = c.App.ErrWriter
	if err := cli.ShowSubcommandHelp(c); err != nil {
		return err
	}
	return base.Usagef(c, "no command given: calq %s needs one of its commands", c.Command.Name)
}

// unknownCommand is the usage error for a word that names none of cmds,
// with the nearest as a "did you mean".
func unknownCommand(c *cli.Context, cmds []*cli.Command) error {
	name := c.Args().First()
	err := base.Usagef(c, "unknown command %q", name)
	best, bestD := "", 3
	for _, cmd := range cmds {
		for _, n := range cmd.Names() {
			if d := editDistance(name, n); d < bestD {
				best, bestD = cmd.Name, d
			}
		}
	}
	if best != "" {
		ue := err.(*base.UsageError)
		ue.Help = fmt.Sprintf("did you mean %q? %s", best, ue.Help)
	}
	return err
}
