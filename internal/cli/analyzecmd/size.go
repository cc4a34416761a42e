package analyzecmd

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
)

// sizeRow is one row of calq analyze size --json.
type sizeRow struct {
	mmcFields
	PWithin *float64 `json:"p_within,omitempty"` // P(Wq ≤ --within)
	Meets   bool     `json:"meets"`
	res     analyze.MMcResult
}

func sizeCommand() *cli.Command {
	return &cli.Command{
		Name:  "size",
		Usage: "staffing: the fewest servers that meet a waiting target",
		Description: "Finds the smallest c for which M/M/c meets one target: --max-p-wait (P(wait)\n" +
			"at most P), --max-wq (mean wait at most T), or --service-level P --within T\n" +
			"(P(Wq ≤ T) at least P). The search carries Erlang B from one c to the next,\n" +
			"so it is linear in c (c = 10^6 takes milliseconds). Prints c and the\n" +
			"measures at c-1, c, c+1 and c+2.\n\n" +
			"Call-centre form: --calls N --interval 30m --aht 180s instead of --lambda and\n" +
			"--mu (λ = N per interval, μ = 1/AHT, both per second); --max-wq and --within\n" +
			"are then in seconds. --interval defaults to 1h.\n\n" +
			`--json prints one line {"message_type":"size", "servers": c, "target": {...}, "rows": [...]}, each row the` + "\n" +
			`fields of calq analyze mmc --json with "meets" (and "p_within" for a service level).` + "\n\n" +
			limitsHelp + fmt.Sprintf("\nThe search stops at %d servers: a load λ/μ of that or more is a usage\n"+
			"error before it starts, a target no c up to it meets one after.", analyze.MaxServers),
		Flags: append(rateFlags(),
			&cli.Float64Flag{Name: "calls", Usage: "call-centre form: `N` calls per --interval (instead of --lambda and --mu)"},
			&cli.DurationFlag{Name: "interval", Value: time.Hour, Usage: "the interval --calls arrive in, e.g. 30m"},
			&cli.DurationFlag{Name: "aht", Usage: "call-centre form: the average handling time, e.g. 180s (with --calls)"},
			&cli.Float64Flag{Name: "max-p-wait", Usage: "target: P(wait) at most `P`"},
			&cli.Float64Flag{Name: "max-wq", Usage: "target: mean wait at most `T`"},
			&cli.Float64Flag{Name: "service-level", Usage: "target: P(Wq ≤ --within) at least `P`"},
			&cli.Float64Flag{Name: "within", Usage: "the time `T` of --service-level"},
			base.JSONFlag()),
		Action: func(c *cli.Context) error {
			f := &flagCheck{c: c}
			lambda, mu := sizeRates(f)
			t := analyze.Target{
				MaxPWait:     f.optional("max-p-wait", true),
				MaxWq:        f.optional("max-wq", false),
				ServiceLevel: f.optional("service-level", true),
				Within:       f.optional("within", false),
			}
			set := 0
			for _, n := range []string{"max-p-wait", "max-wq", "service-level"} {
				if c.IsSet(n) {
					set++
				}
			}
			switch {
			case set == 0:
				f.Failf("max-p-wait", "missing target: give one of --max-p-wait, --max-wq, or --service-level with --within")
			case set > 1:
				f.Failf("max-p-wait", "give only one target of --max-p-wait, --max-wq and --service-level")
			case c.IsSet("service-level") && !c.IsSet("within"):
				f.Failf("within", "required with --service-level")
			case c.IsSet("within") && !c.IsSet("service-level"):
				f.Failf("within", "only with --service-level")
			case c.IsSet("max-wq") && t.MaxWq == 0:
				f.Failf("max-wq", "0 cannot be met: some arrivals always wait")
			}
			if err := f.err(); err != nil {
				return err
			}
			n, around, err := analyze.Size(c.Context, lambda, mu, t)
			if errors.Is(err, analyze.ErrNoServers) {
				return base.Usagef(c, "--%s: no c up to the limit of %d servers meets it", sizeTargetFlag(t), analyze.MaxServers)
			}
			if err != nil {
				return fmt.Errorf("analyze size: %w", err)
			}
			rows := make([]sizeRow, len(around))
			for i, r := range around {
				rows[i] = sizeRow{mmcFields: mmcJSON(r), Meets: t.Met(r), res: r}
				if t.ServiceLevel > 0 {
					p := 1 - r.WaitTail(t.Within)
					rows[i].PWithin = &p
				}
			}
			if c.Bool("json") {
				return base.WriteJSONLine(c.App.Writer, "size", struct {
					Servers int            `json:"servers"`
					Target  map[string]any `json:"target"`
					Rows    []sizeRow      `json:"rows"`
				}{n, targetJSON(t), rows})
			}
			return writeSize(c.App.Writer, n, t, rows)
		},
	}
}

// sizeRates reads λ and μ from --lambda and --mu, or from the call-centre
// form --calls, --interval and --aht (per second); mixing the two, or an
// incomplete call-centre form, is a usage error naming the flags.
func sizeRates(f *flagCheck) (lambda, mu float64) {
	c := f.c
	if !c.IsSet("calls") && !c.IsSet("aht") && !c.IsSet("interval") {
		lambda, mu = f.rates()
		f.servers("lambda", "λ/μ", lambda/mu)
		return lambda, mu
	}
	for _, n := range []string{"lambda", "mu"} {
		if c.IsSet(n) {
			f.Failf(n, "give --lambda and --mu, or --calls, --interval and --aht; not both")
		}
	}
	calls := f.positive("calls")
	interval, aht := c.Duration("interval"), c.Duration("aht")
	if interval <= 0 {
		f.Failf("interval", "%v is not a positive duration", interval)
	}
	switch {
	case !c.IsSet("aht"):
		f.Failf("aht", "required with --calls (the average handling time, e.g. 180s)")
	case aht <= 0:
		f.Failf("aht", "%v is not a positive duration", aht)
	}
	if f.Len() > 0 {
		return 0, 0
	}
	lambda, mu = calls/interval.Seconds(), 1/aht.Seconds()
	if !analyze.InRange(lambda) {
		f.Failf("calls", "λ = --calls/--interval per second: %s", analyze.RateProblem(lambda))
	}
	f.load("calls", "--calls·--aht/--interval", lambda/mu)
	f.servers("calls", "--calls·--aht/--interval", lambda/mu)
	return lambda, mu
}

// servers fails name when the load a, read from valid flags, needs more
// servers than Size searches.
func (f *flagCheck) servers(name, what string, a float64) {
	if f.Len() == 0 && a >= analyze.MaxServers {
		f.Failf(name, "the offered load %s = %g Erlangs needs more than the limit of %d servers", what, a, analyze.MaxServers)
	}
}

// sizeTargetFlag is the flag of t's target.
func sizeTargetFlag(t analyze.Target) string {
	switch {
	case t.MaxPWait > 0:
		return "max-p-wait"
	case t.MaxWq > 0:
		return "max-wq"
	}
	return "service-level"
}

func targetJSON(t analyze.Target) map[string]any {
	switch {
	case t.MaxPWait > 0:
		return map[string]any{"max_p_wait": t.MaxPWait}
	case t.MaxWq > 0:
		return map[string]any{"max_wq": t.MaxWq}
	}
	return map[string]any{"service_level": t.ServiceLevel, "within": t.Within}
}

func targetText(t analyze.Target) string {
	switch {
	case t.MaxPWait > 0:
		return "P(wait) ≤ " + num(t.MaxPWait)
	case t.MaxWq > 0:
		return "Wq ≤ " + num(t.MaxWq)
	}
	return fmt.Sprintf("P(Wq ≤ %s) ≥ %s", num(t.Within), num(t.ServiceLevel))
}

func writeSize(w io.Writer, n int, t analyze.Target, rows []sizeRow) error {
	fmt.Fprintf(w, "%d servers: the fewest with %s (λ = %s, μ = %s)\n\n", n, targetText(t), num(rows[0].res.Lambda), num(rows[0].res.Mu))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "c\tρ\tP(wait)\tLq\tWq\tW\t"
	if t.ServiceLevel > 0 {
		head += "P(Wq ≤ " + num(t.Within) + ")\t"
	}
	fmt.Fprintln(tw, head+"meets\t")
	for _, r := range rows {
		if !r.res.Stable {
			fmt.Fprintf(tw, "%d\t%s\tunstable\t\t\t\t", r.res.Servers, num(r.res.Rho))
			if t.ServiceLevel > 0 {
				fmt.Fprint(tw, "\t")
			}
			fmt.Fprintln(tw, "no\t")
			continue
		}
		m := r.res
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t", m.Servers, num(m.Rho), prob(m.PWait, m.Log10PWait), num(m.Lq), num(m.Wq), num(m.W))
		if r.PWithin != nil {
			fmt.Fprintf(tw, "%s\t", num(*r.PWithin))
		}
		fmt.Fprintf(tw, "%s\t\n", base.YesNo(r.Meets))
	}
	return tw.Flush()
}
