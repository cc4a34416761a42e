package schedcmd

import (
	"github.com/urfave/cli/v2"
)

// Command is calq sched.
func Command() *cli.Command {
	return &cli.Command{
		Name:        "sched",
		Usage:       "the scheduler: run shell commands as jobs, benchmark the engine and its queue",
		Subcommands: []*cli.Command{runCommand(), benchCommand()},
	}
}
