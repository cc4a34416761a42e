package analyzecmd

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
)

// mg1Output is calq analyze mg1 --json: the measures of a steady state
// are null when there is none, the spreads null when only the moments
// were given.
type mg1Output struct {
	Lambda     float64  `json:"lambda"`
	Mean       float64  `json:"mean"`
	SCV        float64  `json:"scv"`
	Service    *string  `json:"service"`
	Rho        float64  `json:"rho"`
	Stable     bool     `json:"stable"`
	P0         *float64 `json:"p0"`
	PWait      float64  `json:"p_wait"`
	Lq         *float64 `json:"lq"`
	L          *float64 `json:"l"`
	Wq         *float64 `json:"wq"`
	W          *float64 `json:"w"`
	Throughput *float64 `json:"throughput"`
	WqSD       *float64 `json:"wq_sd"`
	WSD        *float64 `json:"w_sd"`
	MM1Wq      *float64 `json:"mm1_wq"` // Wq had the service been exponential
}

func mg1Command() *cli.Command {
	return &cli.Command{
		Name:  "mg1",
		Usage: "M/G/1, exact (Pollaczek-Khinchine): any service time, by its mean and SCV or a distribution",
		Description: "Prints the steady-state measures of one server fed by Poisson arrivals at λ,\n" +
			"whose service times have any distribution: ρ = λ·E[S], P0 = 1 − ρ, P(wait) = ρ,\n" +
			"Lq, L, Wq, W and the throughput, exact by the Pollaczek-Khinchine formula\n" +
			"Wq = ρ·E[S]·(1 + SCV) / (2(1 − ρ)). With a distribution (--service or --mu)\n" +
			"it also prints the standard deviations of the wait and of the time in system\n" +
			"(Takács: they need E[S³]). The row \"Wq if exponential\" is M/M/1's wait at the\n" +
			"same λ and E[S]: M/M/1 is wrong by the factor (1 + SCV)/2.\n\n" +
			serviceHelp + "\n\n" +
			`--json prints one line {"message_type":"mg1", "lambda", "mean", "scv", "service" (the` + "\n" +
			`distribution's spec, or null), "rho", "stable", "p0", "p_wait", "lq", "l", "wq", "w",` + "\n" +
			`"throughput", "wq_sd", "w_sd" (null without a distribution), "mm1_wq"}. When ρ ≥ 1` + "\n" +
			`it says "stable": false, the measures of a steady state are null, and calq exits 1.` + "\n\n" +
			"  calq analyze mg1 --lambda 2.5 --service lognormal:0.3,1.5\n\n" + generalHelp,
		Flags: append([]cli.Flag{
			&cli.Float64Flag{Name: "lambda", Aliases: []string{"l"}, Usage: "arrival rate λ, Poisson (required)"},
		}, append(serviceFlags(), base.JSONFlag())...),
		Action: func(c *cli.Context) error {
			f := &flagCheck{c: c}
			lambda := f.positive("lambda")
			s := f.service()
			f.load("lambda", "λ·E[S]", lambda*s.mean)
			if err := f.err(); err != nil {
				return err
			}
			var r analyze.MG1Result
			var err error
			if s.dist != nil {
				r, err = analyze.MG1Dist(c.Context, lambda, *s.dist)
			} else {
				r, err = analyze.MG1(c.Context, lambda, s.mean, s.scv)
			}
			if err != nil {
				return fmt.Errorf("analyze mg1: %w", err)
			}
			out := mg1JSON(r, s)
			if c.Bool("json") {
				err = base.WriteJSONLine(c.App.Writer, "mg1", out)
			} else {
				err = writeMG1(c.App.Writer, out)
			}
			if err == nil && !r.Stable {
				err = fmt.Errorf("the queue is unstable: ρ = λ·E[S] = %s ≥ 1, λ = %s is not below the server's capacity 1/E[S] = %s",
					num(r.Rho), num(r.Lambda), num(1/r.Mean))
			}
			return err
		},
	}
}

func mg1JSON(r analyze.MG1Result, s generalService) mg1Output {
	v := func(x float64, ok bool) *float64 {
		if !ok || !r.Stable {
			return nil
		}
		return &x
	}
	spread := s.dist != nil
	return mg1Output{Lambda: r.Lambda, Mean: r.Mean, SCV: r.SCV, Service: s.spec(), Rho: r.Rho, Stable: r.Stable,
		P0: v(r.P0, true), PWait: r.PWait, Lq: v(r.Lq, true), L: v(r.L, true), Wq: v(r.Wq, true), W: v(r.W, true),
		Throughput: v(r.Throughput, true), WqSD: v(r.WqSD, spread), WSD: v(r.WSD, spread),
		MM1Wq: v(r.Wq*2/(1+r.SCV), true)}
}

func writeMG1(w io.Writer, o mg1Output) error {
	title := fmt.Sprintf("M/G/1, exact (Pollaczek-Khinchine): λ = %s, E[S] = %s, SCV = %s", num(o.Lambda), num(o.Mean), num(o.SCV))
	if o.Service != nil {
		title += ", service " + *o.Service
	}
	rows := []base.Measure{{Name: "ρ   utilisation of the server (λ·E[S])", Value: num(o.Rho)}}
	if !o.Stable {
		rows = append(rows, base.Measure{Name: "stable", Value: "no: ρ ≥ 1, the queue grows without bound"})
		return base.WriteMeasures(w, title, rows)
	}
	rows = append(rows,
		base.Measure{Name: "P0  probability the system is empty (1 − ρ)", Value: num(*o.P0)},
		base.Measure{Name: "P(wait)  probability an arrival waits (ρ)", Value: num(o.PWait)},
		base.Measure{Name: "Lq  mean number waiting", Value: num(*o.Lq)},
		base.Measure{Name: "L   mean number in system (Ls)", Value: num(*o.L)},
		base.Measure{Name: "Wq  mean wait in queue", Value: num(*o.Wq)},
		base.Measure{Name: "W   mean time in system (Ws)", Value: num(*o.W)},
		base.Measure{Name: "throughput", Value: num(*o.Throughput)})
	if o.WqSD != nil {
		rows = append(rows,
			base.Measure{Name: "standard deviation of the wait", Value: num(*o.WqSD)},
			base.Measure{Name: "standard deviation of the time in system", Value: num(*o.WSD)})
	}
	rows = append(rows, base.Measure{Name: "Wq if exponential (M/M/1, SCV 1)", Value: num(*o.MM1Wq)})
	return base.WriteMeasures(w, title, rows)
}
