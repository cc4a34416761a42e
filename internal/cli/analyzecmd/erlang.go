package analyzecmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
)

func erlangCommand() *cli.Command {
	return &cli.Command{
		Name:        "erlang",
		Usage:       "Erlang B (blocking) and Erlang C (probability of waiting)",
		Subcommands: []*cli.Command{erlangBCommand(), erlangCCommand()},
	}
}

// erlangFlags are the flags of calq analyze erlang b and c.
func erlangFlags() []cli.Flag {
	return []cli.Flag{
		serversFlag(),
		&cli.Float64Flag{Name: "load", Aliases: []string{"a"}, Usage: fmt.Sprintf("offered load a = λ/μ in Erlangs, %g to %g (required)", analyze.MinRate, float64(analyze.MaxLoad))},
		base.JSONFlag(),
	}
}

// runErlang computes M/M/c for --servers and --load (μ = 1, λ = a) and
// prints what show picks from it. Only Erlang C cares about stability.
func runErlang(c *cli.Context, show func(analyze.MMcResult) (any, []base.Measure)) error {
	f := &flagCheck{c: c}
	servers := f.count("servers", 1, analyze.MaxServers, true)
	load := f.positive("load")
	f.load("load", "a", load)
	if err := f.err(); err != nil {
		return err
	}
	r, err := analyze.MMc(c.Context, load, 1, servers)
	if err != nil {
		return fmt.Errorf("analyze erlang %s: %w", c.Command.Name, err)
	}
	v, rows := show(r)
	if c.Bool("json") {
		err = base.WriteJSONLine(c.App.Writer, "erlang_"+c.Command.Name, v)
	} else {
		err = base.WriteMeasures(c.App.Writer, fmt.Sprintf("c = %d servers, a = %s Erlangs", servers, num(load)), rows)
	}
	if err == nil && c.Command.Name == "c" && !r.Stable {
		err = fmt.Errorf("the queue is unstable: a = %s ≥ c = %d; at least %d servers are needed", num(load), servers, r.MinStable)
	}
	return err
}
