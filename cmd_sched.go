package main

import (
	"github.com/urfave/cli/v2"
)

func schedCommand() *cli.Command {
	return &cli.Command{
		Name:        "sched",
		Usage:       "the scheduler: run shell commands as jobs, benchmark the engine and its queue",
		Subcommands: []*cli.Command{schedRunCommand(), schedBenchCommand()},
	}
}
