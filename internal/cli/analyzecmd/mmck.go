package analyzecmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
)

const mmckJSON = `--json prints one line {"message_type":"mmck" or "mm1n", "lambda", "mu", "servers", "capacity", "rho", "p0",` + "\n" +
	`"p_block", "lambda_eff", "l", "lq", "w", "wq".`

func mmckCommand() *cli.Command {
	return &cli.Command{
		Name:  "mmck",
		Usage: "M/M/c/K: finite room; blocking probability, effective arrival rate, L, Lq, W, Wq",
		Description: "Prints the steady-state measures of c exponential servers with room for K\n" +
			"jobs in all; arrivals that find K are turned away. Computed from the state\n" +
			"probabilities in logs, so it stays exact near ρ = 1 and for ρ > 1, where\n" +
			"closed forms cancel or overflow. A full system is never unstable.\n\n" + mmckJSON +
			"\n\n" + limitsHelp,
		Flags: append(rateFlags(), serversFlag(), capacityFlag("K"), base.JSONFlag()),
		Action: func(c *cli.Context) error {
			f := &flagCheck{c: c}
			lambda, mu := f.rates()
			servers := f.count("servers", 1, analyze.MaxServers, true)
			k := f.count("capacity", 1, analyze.MaxCapacity, true)
			if f.Len() == 0 && k < servers {
				f.Failf("capacity", "%d is below the %d servers", k, servers)
			}
			return runMMcK(c, f, lambda, mu, servers, k)
		},
	}
}

func runMMcK(c *cli.Context, f *flagCheck, lambda, mu float64, servers, k int) error {
	if err := f.err(); err != nil {
		return err
	}
	r, err := analyze.MMcK(c.Context, lambda, mu, servers, k)
	if err != nil {
		return fmt.Errorf("analyze %s: %w", c.Command.Name, err)
	}
	if c.Bool("json") {
		return base.WriteJSONLine(c.App.Writer, c.Command.Name, r)
	}
	title := fmt.Sprintf("M/M/%d/%d: λ = %s, μ = %s", servers, k, num(lambda), num(mu))
	return base.WriteMeasures(c.App.Writer, title, []base.Measure{
		{Name: "ρ   offered load per server (λ/cμ; may exceed 1)", Value: num(r.Rho)},
		{Name: "P0  probability the system is empty", Value: num(r.P0)},
		{Name: "PK  blocking probability (an arrival finds it full)", Value: num(r.PK)},
		{Name: "λeff  effective arrival rate, λ(1 - PK)", Value: num(r.LambdaEff)},
		{Name: "L   mean number in system (Ls)", Value: num(r.L)},
		{Name: "Lq  mean number waiting", Value: num(r.Lq)},
		{Name: "W   mean time in system (Ws)", Value: num(r.W)},
		{Name: "Wq  mean wait in queue", Value: num(r.Wq)},
	})
}
