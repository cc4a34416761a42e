package analyzecmd

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
)

// ggcOutput is calq analyze ggc --json: the measures of a steady state
// are null when there is none.
type ggcOutput struct {
	Approximation string   `json:"approximation"`
	ExactFor      *string  `json:"exact_for"`
	Lambda        float64  `json:"lambda"`
	Ca2           float64  `json:"ca2"`
	Arrivals      *string  `json:"arrivals"`
	Mean          float64  `json:"mean"`
	SCV           float64  `json:"scv"`
	Service       *string  `json:"service"`
	Servers       int      `json:"servers"`
	Load          float64  `json:"load"`
	Rho           float64  `json:"rho"`
	Stable        bool     `json:"stable"`
	Capacity      float64  `json:"capacity"`
	MinStable     int      `json:"min_stable_servers"`
	Factor        float64  `json:"factor"`
	PWait         float64  `json:"p_wait"`
	MMcWq         *float64 `json:"mmc_wq"`
	Lq            *float64 `json:"lq"`
	L             *float64 `json:"l"`
	Wq            *float64 `json:"wq"`
	W             *float64 `json:"w"`
	Throughput    *float64 `json:"throughput"`
}

func ggcCommand() *cli.Command {
	return &cli.Command{
		Name:  "ggc",
		Usage: "G/G/c, approximate (Allen-Cunneen; Kingman at c = 1): general arrivals and service",
		Description: "Prints approximate steady-state measures of c servers whose arrivals and\n" +
			"service times have any distribution, given by their means and squared\n" +
			"coefficients of variation (SCV): the Allen-Cunneen approximation\n" +
			"Wq ≈ Wq(M/M/c) · (Ca² + SCV)/2, with M/M/c's Erlang C, then Little's law. At\n" +
			"c = 1 it is Kingman's formula, Wq ≈ ρ/(1 − ρ) · (Ca² + SCV)/2 · E[S]. Both are\n" +
			"approximations (the table's title and the JSON say which), best in heavy\n" +
			"traffic; they are exact for M/M/c (Ca² = SCV = 1) and, at c = 1 with Poisson\n" +
			"arrivals, for M/G/1 (see calq analyze mg1). Ca² = 1 is taken as Poisson.\n" +
			"Against simulation (analyze's tests) they were within about 10 % for Poisson\n" +
			"arrivals and up to 26 % high for arrivals smoother than Poisson (Ca² = 0.25);\n" +
			"check a case that matters with calq analyze simulate.\n\n" +
			"The arrivals are --lambda with --ca2 (the SCV of the time between arrivals,\n" +
			"default 1: Poisson), or --arrivals DIST as simulate takes it (exp:RATE;\n" +
			"uniform:N/T, whose gaps have SCV N/(N+2); trace:FILE, whose gaps are measured).\n" +
			serviceHelp + "\n\n" +
			`--json prints one line {"message_type":"ggc", "approximation" ("Allen-Cunneen" or` + "\n" +
			`"Kingman"), "exact_for" ("M/M/c", "M/G/1" or null), "lambda", "ca2", "arrivals",` + "\n" +
			`"mean", "scv", "service" (specs, or null), "servers", "load", "rho", "stable",` + "\n" +
			`"capacity", "min_stable_servers", "factor" ((Ca² + SCV)/2), "p_wait", "mmc_wq",` + "\n" +
			`"lq", "l", "wq", "w", "throughput"}. When ρ ≥ 1 it says "stable": false, the` + "\n" +
			"measures of a steady state are null, and calq exits 1.\n\n" +
			"  calq analyze ggc --lambda 8 --service lognormal:0.3,1.5 --servers 3\n\n" + generalHelp,
		Flags: append([]cli.Flag{
			&cli.Float64Flag{Name: "lambda", Aliases: []string{"l"}, Usage: "arrival rate λ (or --arrivals)", DefaultText: "none"},
			&cli.Float64Flag{Name: "ca2", Value: 1, Usage: "squared coefficient of variation of the time between arrivals (with --lambda): 1 Poisson"},
			&cli.StringFlag{Name: "arrivals", Usage: "the arrivals as simulate takes them: exp:RATE, uniform:N/T or trace:FILE"},
			serversFlag(),
		}, append(serviceFlags(), base.JSONFlag())...),
		Action: func(c *cli.Context) error {
			f := &flagCheck{c: c}
			lambda, ca2, arrivals := f.arrivals()
			s := f.service()
			servers := f.count("servers", 1, analyze.MaxServers, true)
			f.load("lambda", "λ·E[S]", lambda*s.mean)
			if err := f.err(); err != nil {
				return err
			}
			r, err := analyze.GGc(c.Context, lambda, ca2, s.mean, s.scv, servers)
			if err != nil {
				return fmt.Errorf("analyze ggc: %w", err)
			}
			out := ggcJSON(r, arrivals, s)
			if c.Bool("json") {
				err = base.WriteJSONLine(c.App.Writer, "ggc", out)
			} else {
				err = writeGGc(c.App.Writer, out)
			}
			if err == nil && !r.Stable {
				err = fmt.Errorf("the queue is unstable: ρ = %s ≥ 1, λ = %s is not below the capacity c/E[S] = %s; at least %d servers are needed",
					num(r.Rho), num(r.Lambda), num(r.Capacity), r.MinStable)
			}
			return err
		},
	}
}

// arrivals reads --lambda with --ca2, or --arrivals; spec is the
// distribution's, or nil.
func (f *flagCheck) arrivals() (lambda, ca2 float64, spec *string) {
	if !f.c.IsSet("arrivals") {
		return f.positive("lambda"), f.scvFlag("ca2"), nil
	}
	if f.c.IsSet("lambda") || f.c.IsSet("ca2") {
		f.Errorf("%s: give the arrivals one way: --lambda with --ca2, or --arrivals", setFlags(f.c, "lambda", "ca2", "arrivals"))
		return 0, 0, nil
	}
	a, err := analyze.ParseArrivals(f.c.String("arrivals"))
	if err != nil {
		f.Add(flagErr("arrivals", err))
		return 0, 0, nil
	}
	lambda, ca2 = 1/a.MeanTime(), a.SCV()
	switch {
	case analyze.RateProblem(lambda) != "":
		f.Failf("arrivals", "%s: the mean time between arrivals, %v, gives no rate from %g to %g", a, a.MeanTime(), analyze.MinRate, analyze.MaxRate)
		return 0, 0, nil
	case !(ca2 <= analyze.MaxSCV):
		f.Failf("arrivals", "%s: the SCV of the time between arrivals, %v, is above the limit %g", a, ca2, float64(analyze.MaxSCV))
		return 0, 0, nil
	}
	s := a.String()
	return lambda, ca2, &s
}

func ggcJSON(r analyze.GGcResult, arrivals *string, s generalService) ggcOutput {
	v := func(x float64) *float64 {
		if !r.Stable {
			return nil
		}
		return &x
	}
	var exact *string
	if r.ExactFor != "" {
		exact = &r.ExactFor
	}
	return ggcOutput{Approximation: r.Approximation, ExactFor: exact, Lambda: r.Lambda, Ca2: r.Ca2, Arrivals: arrivals,
		Mean: r.Mean, SCV: r.SCV, Service: s.spec(), Servers: r.Servers, Load: r.Load, Rho: r.Rho, Stable: r.Stable,
		Capacity: r.Capacity, MinStable: r.MinStable, Factor: r.Factor, PWait: r.PWait, MMcWq: v(r.MMcWq),
		Lq: v(r.Lq), L: v(r.L), Wq: v(r.Wq), W: v(r.W), Throughput: v(r.Throughput)}
}

func writeGGc(w io.Writer, o ggcOutput) error {
	what := o.Approximation + " approximation"
	if o.ExactFor != nil {
		what += ", exact here (" + *o.ExactFor + " if the arrivals are Poisson)"
	}
	title := fmt.Sprintf("G/G/%d, %s: λ = %s, Ca² = %s, E[S] = %s, SCV = %s", o.Servers, what,
		num(o.Lambda), num(o.Ca2), num(o.Mean), num(o.SCV))
	rows := []base.Measure{
		{Name: "ρ   utilisation of each server (λ·E[S]/c)", Value: num(o.Rho)},
		{Name: "c/E[S]  capacity (most completions per unit time)", Value: num(o.Capacity)},
	}
	if !o.Stable {
		rows = append(rows, base.Measure{Name: "stable",
			Value: fmt.Sprintf("no: ρ ≥ 1, the queue grows without bound; at least %d servers are needed", o.MinStable)})
		return base.WriteMeasures(w, title, rows)
	}
	return base.WriteMeasures(w, title, append(rows,
		base.Measure{Name: "P(wait)  probability an arrival waits (M/M/c's Erlang C)", Value: num(o.PWait)},
		base.Measure{Name: "(Ca² + SCV)/2  factor on M/M/c's wait", Value: num(o.Factor)},
		base.Measure{Name: "Wq of M/M/c at the same λ, E[S] and c", Value: num(*o.MMcWq)},
		base.Measure{Name: "Lq  mean number waiting", Value: num(*o.Lq)},
		base.Measure{Name: "L   mean number in system (Ls)", Value: num(*o.L)},
		base.Measure{Name: "Wq  mean wait in queue", Value: num(*o.Wq)},
		base.Measure{Name: "W   mean time in system (Ws)", Value: num(*o.W)},
		base.Measure{Name: "throughput", Value: num(*o.Throughput)}))
}
