package analyzecmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
)

// unstableError reports ρ ≥ 1 after the results are printed: exit 1.
func unstableError(r analyze.MMcResult) error {
	return fmt.Errorf("the queue is unstable: ρ = %s ≥ 1, λ = %s is not below the capacity cμ = %s; at least %d servers are needed",
		num(r.Rho), num(r.Lambda), num(r.Capacity), r.MinStable)
}

// percentiles of the waiting time printed by mmc, and their JSON keys.
var waitPercentiles = []struct {
	key string
	p   float64
}{{"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}, {"p999", 0.999}}

// mmcOutput is calq analyze mmc --json: the measures, the waiting-time
// percentiles and P(Wq > t) for each --t.
type mmcOutput struct {
	mmcFields
	WqPercentiles map[string]float64 `json:"wq_percentiles"` // null when unstable
	WaitTail      []tailPoint        `json:"wait_tail,omitempty"`
	res           analyze.MMcResult
}

type tailPoint struct {
	T float64 `json:"t"`
	P float64 `json:"p_wq_above"`
}

func mmcCommand() *cli.Command {
	return &cli.Command{
		Name:  "mmc",
		Usage: "M/M/c: utilisation, P0, P(wait), Erlang B, Lq, L, Wq, W, and the waiting-time tail",
		Description: "Prints the steady-state measures of c servers fed by Poisson arrivals at λ,\n" +
			"each serving at μ (exponential), with an unlimited FIFO queue: ρ, P0, the\n" +
			"probability of waiting (Erlang C), Erlang B, Lq, L (Ls), Wq, W (Ws) and the\n" +
			"throughput; the waiting time's percentiles p50, p90, p99 and p99.9; and\n" +
			"P(Wq > t) for every --t. Probabilities too small for float64 print from\n" +
			"their logarithm (JSON: log10_p0, log10_p_wait, log10_erlang_b).\n\n" +
			`--json prints one line {"message_type":"mmc", "lambda", "mu", "servers", "load", "rho", "stable",` + "\n" +
			`"capacity", "min_stable_servers", "p0", "p_wait", "erlang_b", "log10_p0",` + "\n" +
			`"log10_p_wait", "log10_erlang_b", "lq", "l", "wq",` + "\n" +
			`"w", "throughput", "wq_percentiles" {"p50","p90","p99","p999"} and` + "\n" +
			`"wait_tail" [{"t","p_wq_above"}]}. When ρ ≥ 1 it says "stable": false,` + "\n" +
			"the capacity cμ and the smallest stable c, the measures of a steady state\n" +
			"(p0, lq, l, wq, w, throughput, the percentiles) are null, and calq exits 1.\n\n" + limitsHelp,
		Flags: append(rateFlags(),
			serversFlag(),
			&cli.Float64SliceFlag{Name: "t", Usage: "print P(Wq > `T`); repeat or separate by commas"},
			base.JSONFlag()),
		Action: func(c *cli.Context) error {
			f := &flagCheck{c: c}
			lambda, mu := f.rates()
			servers := f.count("servers", 1, analyze.MaxServers, true)
			ts := c.Float64Slice("t")
			for _, t := range ts {
				if !(t >= 0 && t <= analyze.MaxRate) {
					f.Failf("t", "%v is not a time from 0 to the limit %g", t, analyze.MaxRate)
				}
			}
			if err := f.err(); err != nil {
				return err
			}
			r, err := analyze.MMc(c.Context, lambda, mu, servers)
			if err != nil {
				return fmt.Errorf("analyze mmc: %w", err)
			}
			out := mmcOutput{mmcFields: mmcJSON(r), res: r}
			if r.Stable {
				out.WqPercentiles = map[string]float64{}
				for _, p := range waitPercentiles {
					out.WqPercentiles[p.key] = r.WaitPercentile(p.p)
				}
				for _, t := range ts {
					out.WaitTail = append(out.WaitTail, tailPoint{T: t, P: r.WaitTail(t)})
				}
			}
			if c.Bool("json") {
				err = base.WriteJSONLine(c.App.Writer, "mmc", out)
			} else {
				err = writeMMc(c.App.Writer, out)
			}
			if err == nil && !r.Stable {
				err = unstableError(r)
			}
			return err
		},
	}
}

func writeMMc(w io.Writer, o mmcOutput) error {
	r := o.res
	title := fmt.Sprintf("M/M/%d: λ = %s, μ = %s, offered load a = λ/μ = %s Erlangs", r.Servers, num(r.Lambda), num(r.Mu), num(r.Load))
	rows := []base.Measure{
		{Name: "ρ   utilisation of each server (a/c)", Value: num(r.Rho)},
		{Name: "cμ  capacity (most completions per unit time)", Value: num(r.Capacity)},
	}
	if !r.Stable {
		rows = append(rows,
			base.Measure{Name: "stable", Value: fmt.Sprintf("no: ρ ≥ 1, the queue grows without bound; at least %d servers are needed", r.MinStable)},
			base.Measure{Name: "Erlang B (blocked if there were no queue)", Value: prob(r.ErlangB, r.Log10ErlangB)})
		return base.WriteMeasures(w, title, rows)
	}
	rows = append(rows,
		base.Measure{Name: "P0  probability the system is empty", Value: prob(r.P0, r.Log10P0)},
		base.Measure{Name: "P(wait)  probability an arrival waits (Erlang C)", Value: prob(r.PWait, r.Log10PWait)},
		base.Measure{Name: "Erlang B  blocked if there were no queue", Value: prob(r.ErlangB, r.Log10ErlangB)},
		base.Measure{Name: "Lq  mean number waiting", Value: num(r.Lq)},
		base.Measure{Name: "L   mean number in system (Ls)", Value: num(r.L)},
		base.Measure{Name: "Wq  mean wait in queue", Value: num(r.Wq)},
		base.Measure{Name: "W   mean time in system (Ws)", Value: num(r.W)},
		base.Measure{Name: "throughput", Value: num(r.Throughput)},
	)
	var ps []string
	for _, p := range waitPercentiles {
		ps = append(ps, p.key+" "+num(o.WqPercentiles[p.key]))
	}
	rows = append(rows, base.Measure{Name: "Wq percentiles", Value: strings.Join(ps, "  ")})
	for _, t := range o.WaitTail {
		rows = append(rows, base.Measure{Name: "P(Wq > " + num(t.T) + ")", Value: num(t.P)})
	}
	return base.WriteMeasures(w, title, rows)
}
