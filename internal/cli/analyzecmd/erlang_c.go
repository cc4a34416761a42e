package analyzecmd

import (
	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
)

func erlangCCommand() *cli.Command {
	return &cli.Command{
		Name:  "c",
		Usage: "Erlang C: the probability an arrival waits in M/M/c",
		Description: "C = B/(1 - ρ(1 - B)) with ρ = a/c. When a ≥ c the queue is unstable: C is\n" +
			"1, and calq exits 1.\n\n" +
			`--json prints one line {"message_type":"erlang_c", "servers", "load", "rho", "stable", "p_wait", "log10_p_wait"}.`,
		Flags: erlangFlags(),
		Action: func(c *cli.Context) error {
			return runErlang(c, func(r analyze.MMcResult) (any, []base.Measure) {
				return struct {
						Servers int     `json:"servers"`
						Load    float64 `json:"load"`
						Rho     float64 `json:"rho"`
						Stable  bool    `json:"stable"`
						C       float64 `json:"p_wait"`
						Log10C  float64 `json:"log10_p_wait"`
					}{r.Servers, r.Load, r.Rho, r.Stable, r.PWait, r.Log10PWait},
					[]base.Measure{{Name: "ρ", Value: num(r.Rho)}, {Name: "Erlang C, P(wait)", Value: prob(r.PWait, r.Log10PWait)}}
			})
		},
	}
}
