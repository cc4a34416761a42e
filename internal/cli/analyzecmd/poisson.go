package analyzecmd

import (
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
)

func poissonCommand() *cli.Command {
	return &cli.Command{
		Name:  "poisson",
		Usage: "P(n arrivals in time t) for Poisson arrivals at rate λ",
		Description: "Prints, for each n, P(N = n), P(N ≤ n) and P(N > n), where N counts the\n" +
			"arrivals in a time t of a Poisson process of rate λ (mean λt). By default\n" +
			"the rows hold all but 10^-6 of the probability on either side; --from and\n" +
			"--to choose them. Each tail is summed from its own end, so small tails keep\n" +
			"their digits.\n\n" +
			`--json prints one line {"message_type":"poisson", "lambda", "t", "mean", "rows": [{"n", "p", "p_at_most", "p_more"}]}.` +
			fmt.Sprintf("\n\nLimits, checked before any work: --lambda and --t from %g to %g, the mean λt\n"+
				"at most %d, --from and --to at most %d, at most %d rows.", analyze.MinRate, analyze.MaxRate,
				analyze.MaxPoissonMean, analyze.MaxPoissonRow, analyze.MaxPoissonRows),
		Flags: []cli.Flag{
			&cli.Float64Flag{Name: "lambda", Aliases: []string{"l"}, Usage: "arrival rate λ (required)"},
			&cli.Float64Flag{Name: "t", Usage: "length of the interval (required)"},
			&cli.IntFlag{Name: "from", Value: -1, Usage: "first `N` to print (default: where the lower tail passes 10^-6)"},
			&cli.IntFlag{Name: "to", Value: -1, Usage: "last `N` to print (default: where the upper tail falls below 10^-6)"},
			base.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			f := &flagCheck{c: c}
			lambda, t := f.positive("lambda"), f.positive("t")
			lo, hi := -1, -1
			if c.IsSet("from") {
				lo = f.count("from", 0, analyze.MaxPoissonRow, false)
			}
			if c.IsSet("to") {
				hi = f.count("to", 0, analyze.MaxPoissonRow, false)
			}
			switch {
			case lo >= 0 && hi >= 0 && hi < lo:
				f.Failf("to", "%d is below --from %d", hi, lo)
			case hi >= 0 && hi-max(lo, 0) >= analyze.MaxPoissonRows:
				f.Failf("to", "%d rows from --from %d is more than the limit of %d rows", hi-max(lo, 0)+1, max(lo, 0), analyze.MaxPoissonRows)
			}
			if err := f.err(); err != nil {
				return err
			}
			rows, err := analyze.Poisson(c.Context, lambda, t, lo, hi)
			if err != nil {
				switch {
				case errors.Is(err, analyze.ErrRows):
					return base.Usagef(c, "--from: %w", err)
				case errors.Is(err, analyze.ErrInput):
					return base.Usagef(c, "--lambda, --t: %w", err)
				}
				return fmt.Errorf("analyze poisson: %w", err)
			}
			if c.Bool("json") {
				return base.WriteJSONLine(c.App.Writer, "poisson", struct {
					Lambda float64              `json:"lambda"`
					T      float64              `json:"t"`
					Mean   float64              `json:"mean"`
					Rows   []analyze.PoissonRow `json:"rows"`
				}{lambda, t, lambda * t, rows})
			}
			fmt.Fprintf(c.App.Writer, "Poisson arrivals: λ = %s, t = %s, mean λt = %s\n\n", num(lambda), num(t), num(lambda*t))
			tw := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "n\tP(N = n)\tP(N ≤ n)\tP(N > n)\t")
			for _, r := range rows {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t\n", r.N, num(r.P), num(r.AtMost), num(r.More))
			}
			return tw.Flush()
		},
	}
}
