package analyzecmd

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
)

// erlangAOutput is calq analyze erlang-a --json without a target.
type erlangAOutput struct {
	analyze.ErlangAResult
	Within []erlangAWithin `json:"within,omitempty"`
}

// erlangAWithin is the waiting time's distribution at one --t.
type erlangAWithin struct {
	T            float64 `json:"t"`
	ServiceLevel float64 `json:"service_level"` // P(served, Wq ≤ t), all arrivals
	ServedWithin float64 `json:"served_within"` // P(Wq ≤ t | served)
	WaitWithin   float64 `json:"p_wq_within"`   // P(Wq ≤ t), all arrivals
}

func erlangAWithinAt(r analyze.ErlangAResult, t float64) erlangAWithin {
	return erlangAWithin{T: t, ServiceLevel: r.ServiceLevel(t), ServedWithin: r.ServedWithin(t), WaitWithin: r.WaitWithin(t)}
}

// erlangATargetFlags are the staffing goals, named as calq analyze size
// names its own.
var erlangATargetFlags = []string{"service-level", "max-abandon", "max-p-wait", "max-wq", "max-utilisation"}

func erlangACommand() *cli.Command {
	return &cli.Command{
		Name:  "erlang-a",
		Usage: "Erlang A (M/M/c+M): callers who give up; P(wait), P(abandon), waits, service level, staffing",
		Description: "Palm's M/M/c+M queue: Poisson arrivals at λ, c exponential servers at μ, and\n" +
			"callers (SMS senders, clients with a timeout) who each give up after an\n" +
			"exponential patience of mean 1/θ if not served by then. Exact (Garnett,\n" +
			"Mandelbaum and Reiman's formulas through the incomplete gamma function, summed\n" +
			"without overflow), and stable at any load: those who wait too long leave.\n" +
			"θ must be above 0; θ = 0 is Erlang C, calq analyze mmc.\n\n" +
			"With -c it prints P(wait), P(abandon), Lq, L, Wq over all arrivals and among\n" +
			"those served and those who abandon, the throughput and the utilisation; and\n" +
			"for every --t the service level P(served and waited ≤ t) over all arrivals\n" +
			"(pyworkforce's service_level: one who gives up is not answered), the same\n" +
			"among those served, and P(Wq ≤ t) whether the wait ended in service or not.\n\n" +
			"Without -c it staffs: the fewest c meeting every goal given of\n" +
			"--service-level P --within T, --max-abandon P, --max-p-wait P, --max-wq T and\n" +
			"--max-utilisation U, with the measures at c-1, c and c+1.\n\n" +
			`--json prints one line {"message_type":"erlang_a", "lambda", "mu", "theta", "servers", "load", "rho",` + "\n" +
			`"utilisation", "p_wait", "p_abandon", "p_abandon_if_waited", "log10_p_wait", "log10_p_abandon",` + "\n" +
			`"erlang_b", "lq", "l", "wq", "wq_served", "wq_abandoned", "w_served", "throughput",` + "\n" +
			`"abandon_rate", "within" [{"t","service_level","served_within","p_wq_within"}]}; staffing prints` + "\n" +
			`{"message_type":"erlang_a_size", "servers": c, "target": {...}, "rows": [...]}, each row those` + "\n" +
			`fields with "meets" (and "service_level" at --within).` + "\n\n" + limitsHelp +
			"\nθ too small against the rates (the exact sum would take more than 10^8\nterms) is a usage error naming --theta.",
		Flags: append(rateFlags(),
			&cli.IntFlag{Name: "servers", Aliases: []string{"c"},
				Usage: fmt.Sprintf("number of servers c, at most %d (without it, staff to the targets)", analyze.MaxServers)},
			&cli.Float64Flag{Name: "theta", Usage: "abandonment rate θ = 1/mean patience, above 0 (required)"},
			&cli.Float64SliceFlag{Name: "t", Usage: "print the service level and P(Wq ≤ `T`); repeat or separate by commas"},
			&cli.Float64Flag{Name: "service-level", Usage: "target: P(served and Wq ≤ --within) at least `P`"},
			&cli.Float64Flag{Name: "within", Usage: "the time `T` of --service-level"},
			&cli.Float64Flag{Name: "max-abandon", Usage: "target: P(abandon) at most `P`"},
			&cli.Float64Flag{Name: "max-p-wait", Usage: "target: P(wait) at most `P`"},
			&cli.Float64Flag{Name: "max-wq", Usage: "target: mean wait (all arrivals) at most `T`"},
			&cli.Float64Flag{Name: "max-utilisation", Usage: "target: utilisation at most `U` (0 < U ≤ 1)"},
			base.JSONFlag()),
		Action: func(c *cli.Context) error {
			o := readErlangA(c)
			if err := o.f.err(); err != nil {
				return err
			}
			if o.size {
				return runSizeErlangA(c, o)
			}
			r, err := analyze.ErlangA(c.Context, o.lambda, o.mu, o.theta, o.servers)
			if err != nil {
				return fmt.Errorf("analyze erlang-a: %w", err)
			}
			out := erlangAOutput{ErlangAResult: r}
			for _, t := range o.ts {
				out.Within = append(out.Within, erlangAWithinAt(r, t))
			}
			if c.Bool("json") {
				return base.WriteJSONLine(c.App.Writer, "erlang_a", out)
			}
			return writeErlangA(c.App.Writer, out)
		},
	}
}

// erlangAOptions are calq analyze erlang-a's flags, read and checked.
type erlangAOptions struct {
	f                 *flagCheck
	lambda, mu, theta float64
	servers           int
	ts                []float64
	size              bool
	target            analyze.ErlangATarget
}

func readErlangA(c *cli.Context) erlangAOptions {
	f := &flagCheck{c: c}
	o := erlangAOptions{f: f}
	o.lambda, o.mu = f.rates()
	if c.IsSet("theta") && c.Float64("theta") == 0 {
		f.Failf("theta", "0 is Erlang C, where no one gives up: use calq analyze mmc (or size to staff)")
	} else {
		o.theta = f.positive("theta")
	}
	o.ts = c.Float64Slice("t")
	for _, t := range o.ts {
		if !(t >= 0 && t <= analyze.MaxRate) {
			f.Failf("t", "%v is not a time from 0 to the limit %g", t, analyze.MaxRate)
		}
	}
	o.target = analyze.ErlangATarget{
		ServiceLevel:   f.optional("service-level", true),
		Within:         f.optional("within", false),
		MaxAbandon:     f.optional("max-abandon", true),
		MaxPWait:       f.optional("max-p-wait", true),
		MaxWq:          f.optional("max-wq", false),
		MaxUtilisation: f.optional("max-utilisation", false),
	}
	for _, n := range erlangATargetFlags {
		o.size = o.size || c.IsSet(n)
	}
	switch {
	case c.IsSet("service-level") != c.IsSet("within"):
		f.Failf("within", "goes with --service-level, and --service-level with --within")
	case c.IsSet("max-wq") && o.target.MaxWq == 0:
		f.Failf("max-wq", "0 cannot be met: some arrivals always wait")
	case c.IsSet("max-utilisation") && !(o.target.MaxUtilisation > 0 && o.target.MaxUtilisation <= 1):
		f.Failf("max-utilisation", "%v is not a share above 0 and at most 1", o.target.MaxUtilisation)
	}
	if o.size {
		if c.IsSet("servers") {
			f.Failf("servers", "give -c to evaluate, or targets (--%s ...) to staff; not both", erlangATargetFlags[0])
		}
		if c.IsSet("t") {
			f.Failf("t", "only with -c (staffing prints the service level at --within)")
		}
		return o
	}
	if !c.IsSet("servers") {
		f.Failf("servers", "required, or give a target to staff for (--service-level with --within, --max-abandon, ...)")
		return o
	}
	o.servers = f.count("servers", 1, analyze.MaxServers, true)
	if f.Len() == 0 {
		if p := analyze.ThetaProblem(o.lambda, o.mu, o.theta, o.servers); p != "" {
			f.Failf("theta", "%g %s", o.theta, p)
		}
	}
	return o
}

func writeErlangA(w io.Writer, o erlangAOutput) error {
	r := o.ErlangAResult
	title := fmt.Sprintf("Erlang A, M/M/%d+M: λ = %s, μ = %s, θ = %s (mean patience %s), offered load a = λ/μ = %s Erlangs",
		r.Servers, num(r.Lambda), num(r.Mu), num(r.Theta), num(1/r.Theta), num(r.Load))
	rows := []base.Measure{
		{Name: "ρ   offered load per server (a/c; any ρ is stable)", Value: num(r.Rho)},
		{Name: "utilisation of each server (throughput/cμ)", Value: num(r.Utilisation)},
		{Name: "P(wait)  probability an arrival waits", Value: prob(r.PWait, r.Log10PWait)},
		{Name: "P(abandon)  probability an arrival gives up", Value: prob(r.PAbandon, r.Log10PAbandon)},
		{Name: "P(abandon | wait)", Value: num(r.PAbandonWaited)},
		{Name: "Lq  mean number waiting", Value: num(r.Lq)},
		{Name: "L   mean number in system", Value: num(r.L)},
		{Name: "Wq  mean wait, all arrivals", Value: num(r.Wq)},
		{Name: "Wq  mean wait of those served", Value: num(r.WqServed)},
		{Name: "Wq  mean wait of those who give up", Value: num(r.WqAbandoned)},
		{Name: "W   mean time in system of those served", Value: num(r.W)},
		{Name: "throughput  served per unit time", Value: num(r.Throughput)},
		{Name: "abandonment rate  (λ·P(abandon) = θ·Lq)", Value: num(r.AbandonRate)},
	}
	for _, p := range o.Within {
		rows = append(rows,
			base.Measure{Name: "service level  P(served, Wq ≤ " + num(p.T) + ")", Value: num(p.ServiceLevel)},
			base.Measure{Name: "P(Wq ≤ " + num(p.T) + " | served)", Value: num(p.ServedWithin)},
			base.Measure{Name: "P(Wq ≤ " + num(p.T) + ")  served or given up", Value: num(p.WaitWithin)})
	}
	return base.WriteMeasures(w, title, rows)
}

// erlangASizeRow is one row of calq analyze erlang-a --json when staffing.
type erlangASizeRow struct {
	analyze.ErlangAResult
	ServiceLevel *float64 `json:"service_level,omitempty"`
	Meets        bool     `json:"meets"`
}

func runSizeErlangA(c *cli.Context, o erlangAOptions) error {
	n, _, err := analyze.SizeErlangA(c.Context, o.lambda, o.mu, o.theta, o.target)
	switch {
	case errors.Is(err, analyze.ErrNoServers):
		return base.Usagef(c, "no c up to the limit of %d servers meets the targets", analyze.MaxServers)
	case errors.Is(err, analyze.ErrInput):
		return base.Usagef(c, "--theta: %s", strings.TrimPrefix(err.Error(), analyze.ErrInput.Error()+": "))
	case err != nil:
		return fmt.Errorf("analyze erlang-a: %w", err)
	}
	var rows []erlangASizeRow
	for k := max(1, n-1); k <= n+1; k++ {
		r, err := analyze.ErlangA(c.Context, o.lambda, o.mu, o.theta, k)
		if err != nil {
			return fmt.Errorf("analyze erlang-a: %w", err)
		}
		row := erlangASizeRow{ErlangAResult: r, Meets: o.target.Met(r)}
		if o.target.ServiceLevel > 0 {
			sl := r.ServiceLevel(o.target.Within)
			row.ServiceLevel = &sl
		}
		rows = append(rows, row)
	}
	if c.Bool("json") {
		return base.WriteJSONLine(c.App.Writer, "erlang_a_size", struct {
			Servers int                   `json:"servers"`
			Target  analyze.ErlangATarget `json:"target"`
			Rows    []erlangASizeRow      `json:"rows"`
		}{n, o.target, rows})
	}
	return writeSizeErlangA(c.App.Writer, n, o, rows)
}

func writeSizeErlangA(w io.Writer, n int, o erlangAOptions, rows []erlangASizeRow) error {
	fmt.Fprintf(w, "%d servers: the fewest meeting every target (Erlang A: λ = %s, μ = %s, θ = %s)\n\n",
		n, num(o.lambda), num(o.mu), num(o.theta))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "c\tutilisation\tP(wait)\tP(abandon)\tWq\t"
	if o.target.ServiceLevel > 0 {
		head += "service level (" + num(o.target.Within) + ")\t"
	}
	fmt.Fprintln(tw, head+"meets\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t", r.Servers, num(r.Utilisation), prob(r.PWait, r.Log10PWait),
			prob(r.PAbandon, r.Log10PAbandon), num(r.Wq))
		if r.ServiceLevel != nil {
			fmt.Fprintf(tw, "%s\t", num(*r.ServiceLevel))
		}
		fmt.Fprintf(tw, "%s\t\n", base.YesNo(r.Meets))
	}
	return tw.Flush()
}
