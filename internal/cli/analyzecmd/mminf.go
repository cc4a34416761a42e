package analyzecmd

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
)

// mminfOutput is calq analyze mminf --json.
type mminfOutput struct {
	analyze.MMInfResult
	Percentiles   []nPercentile `json:"n_percentiles"`
	Probabilities []nProb       `json:"probabilities,omitempty"`
}

type nPercentile struct {
	P float64 `json:"p"`
	N int     `json:"n"`
}

type nProb struct {
	N      int     `json:"n"`
	P      float64 `json:"p"`
	AtMost float64 `json:"p_at_most"`
}

func mminfCommand() *cli.Command {
	return &cli.Command{
		Name:  "mminf",
		Usage: "M/M/∞: every arrival served at once; the number in service is Poisson, with its percentiles",
		Description: "Prints the measures of infinitely many servers of rate μ fed by Poisson\n" +
			"arrivals at λ: nobody waits, L = λ/μ, W = 1/μ, and the number in service N\n" +
			"is Poisson with mean λ/μ. Its percentiles (the smallest n with P(N ≤ n) ≥ p,\n" +
			"for p 0.5, 0.9, 0.99, 0.999 or each --p) size a pool that is big enough\n" +
			"that share of the time; --n prints P(N = n) and P(N ≤ n).\n\n" +
			`--json prints one line {"message_type":"mminf", "lambda", "mu", "load", "l", "lq", "w",` + "\n" +
			`"wq", "p0", "log10_p0", "throughput", "n_percentiles" [{"p","n"}], "probabilities"` + "\n" +
			`[{"n","p","p_at_most"}]}.` + "\n\n" +
			fmt.Sprintf("Limits, checked before any work: rates from %g to %g, λ/μ at most %d, --n\n"+
				"at most %d.", analyze.MinRate, analyze.MaxRate, analyze.MaxPoissonMean, analyze.MaxPoissonRow),
		Flags: append(rateFlags(),
			&cli.Float64SliceFlag{Name: "p", Usage: "print the `P`-percentile of the number in service; repeat or separate by commas"},
			&cli.IntSliceFlag{Name: "n", Usage: "print P(N = `n`) and P(N ≤ n); repeat or separate by commas"},
			base.JSONFlag()),
		Action: func(c *cli.Context) error {
			f := &flagCheck{c: c}
			lambda, mu := f.positive("lambda"), f.positive("mu")
			if f.Len() == 0 && !(lambda/mu <= analyze.MaxPoissonMean) {
				f.Failf("lambda", "the load λ/μ = %g is above the limit %d", lambda/mu, analyze.MaxPoissonMean)
			}
			ps := []float64{0.5, 0.9, 0.99, 0.999}
			if c.IsSet("p") {
				ps = c.Float64Slice("p")
			}
			for _, p := range ps {
				if !(p > 0 && p < 1) {
					f.Failf("p", "%v is not a probability strictly between 0 and 1", p)
				}
			}
			for _, n := range c.IntSlice("n") {
				if n < 0 || n > analyze.MaxPoissonRow {
					f.Failf("n", "%d is not from 0 to the limit %d", n, analyze.MaxPoissonRow)
				}
			}
			if err := f.err(); err != nil {
				return err
			}
			r, err := analyze.MMInf(c.Context, lambda, mu)
			if err != nil {
				return fmt.Errorf("analyze mminf: %w", err)
			}
			out := mminfOutput{MMInfResult: r}
			for _, p := range ps {
				out.Percentiles = append(out.Percentiles, nPercentile{P: p, N: r.Percentile(p)})
			}
			for _, n := range c.IntSlice("n") {
				out.Probabilities = append(out.Probabilities, nProb{N: n, P: r.P(n), AtMost: r.AtMost(n)})
			}
			if c.Bool("json") {
				return base.WriteJSONLine(c.App.Writer, "mminf", out)
			}
			return writeMMInf(c, out)
		},
	}
}

func writeMMInf(c *cli.Context, o mminfOutput) error {
	r := o.MMInfResult
	title := fmt.Sprintf("M/M/∞: λ = %s, μ = %s, load a = λ/μ = %s", num(r.Lambda), num(r.Mu), num(r.Load))
	var ps []string
	for _, p := range o.Percentiles {
		ps = append(ps, fmt.Sprintf("p%s %d", strings.TrimPrefix(num(p.P*100), "0"), p.N))
	}
	rows := []base.Measure{
		{Name: "L   mean number in service (= a)", Value: num(r.L)},
		{Name: "W   mean time in system (= 1/μ)", Value: num(r.W)},
		{Name: "Wq  mean wait (nobody waits)", Value: num(r.Wq)},
		{Name: "P0  probability none in service (e^-a)", Value: prob(r.P0, r.Log10P0)},
		{Name: "throughput", Value: num(r.Throughput)},
		{Name: "percentiles of the number in service", Value: strings.Join(ps, "  ")},
	}
	for _, p := range o.Probabilities {
		rows = append(rows, base.Measure{Name: fmt.Sprintf("P(N = %d), P(N ≤ %d)", p.N, p.N), Value: num(p.P) + "  " + num(p.AtMost)})
	}
	return base.WriteMeasures(c.App.Writer, title, rows)
}
