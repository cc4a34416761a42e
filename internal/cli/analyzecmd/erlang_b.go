package analyzecmd

import (
	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
)

func erlangBCommand() *cli.Command {
	return &cli.Command{
		Name:  "b",
		Usage: "Erlang B: the probability an arrival is blocked by c busy servers with no queue (M/M/c/c)",
		Description: "By the recurrence B(k) = a·B(k-1)/(k + a·B(k-1)), exact for any c; where B\n" +
			"is below float64's range it prints from ln B.\n\n" +
			`--json prints one line {"message_type":"erlang_b", "servers", "load", "erlang_b", "log10_erlang_b"}.`,
		Flags: erlangFlags(),
		Action: func(c *cli.Context) error {
			return runErlang(c, func(r analyze.MMcResult) (any, []base.Measure) {
				return struct {
						Servers int     `json:"servers"`
						Load    float64 `json:"load"`
						B       float64 `json:"erlang_b"`
						Log10B  float64 `json:"log10_erlang_b"`
					}{r.Servers, r.Load, r.ErlangB, r.Log10ErlangB},
					[]base.Measure{{Name: "Erlang B", Value: prob(r.ErlangB, r.Log10ErlangB)}}
			})
		},
	}
}
