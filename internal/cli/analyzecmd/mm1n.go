package analyzecmd

import (
	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
)

func mm1nCommand() *cli.Command {
	return &cli.Command{
		Name:  "mm1n",
		Usage: "M/M/1/N: one server, room for N; the model behind the calendar queue's resizes",
		Description: "Prints the M/M/c/K measures for one server and room for N (see calq analyze\n" +
			"mmck); exact near ρ = 1 and above it.\n\n" + mmckJSON + "\n\n" + limitsHelp,
		Flags: append(rateFlags(), capacityFlag("N"), base.JSONFlag()),
		Action: func(c *cli.Context) error {
			f := &flagCheck{c: c}
			lambda, mu := f.rates()
			return runMMcK(c, f, lambda, mu, 1, f.count("capacity", 1, analyze.MaxCapacity, true))
		},
	}
}
