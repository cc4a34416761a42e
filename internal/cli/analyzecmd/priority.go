package analyzecmd

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
)

// priorityHelp says what strict priority is to calq's own scheduler.
const priorityHelp = "calq's scheduler has four classes, P0 (realtime) to P3 (background), but it\n" +
	"shares the workers between them by weighted fair queueing (weights 4, 2, 1,\n" +
	"0.5), not by strict priority, so that no class starves; and it does not\n" +
	"interrupt a running job, so non-preemptive is its model. Strict priority is\n" +
	"the bound WFQ approaches: the least wait P0 can have, the most P3 can have.\n" +
	"--from-history shows how far calq's observed waits are from it."

func priorityCommand() *cli.Command {
	return &cli.Command{
		Name:  "priority",
		Usage: "M/M/c with priority classes: each class's Wq, W, Lq and L, non-preemptive or preemptive-resume",
		Description: "Prints the steady state of c servers shared by K classes of Poisson arrivals,\n" +
			"served exponentially, a higher class always first (FIFO within a class).\n" +
			"--lambda lists the classes' rates, highest priority first, 0 for a class\n" +
			"with no arrivals (it shows the wait one of its jobs would have); the rows\n" +
			"are P0 (highest) to P<K-1>, as calq's classes. Non-preemptive (the\n" +
			"default): a job in service finishes (Cobham's formula). --preemptive: a\n" +
			"higher arrival interrupts a lower job, which resumes later; Wq is then all\n" +
			"the time not in service. Exact: one μ for all classes with any c, or one μ\n" +
			"per class with c = 1 (the M/G/1 forms); per-class μ with c > 1 has no exact\n" +
			"result and is refused. The 'all' row is over every class and the 'FIFO'\n" +
			"row the same traffic with no priority (M/M/c, or M/G/1 with per-class μ).\n\n" +
			"When the total load is 1 or more, the classes above the first unstable\n" +
			"one keep their measures (the servers are then always busy); the others\n" +
			"are marked unstable, and calq exits 1.\n\n" + priorityHelp + "\n\n" +
			`--json prints one line {"message_type":"priority", "discipline":` + "\n" +
			`"non-preemptive" or "preemptive-resume", "servers", "lambda", "rho", "stable",` + "\n" +
			`"classes": [{"class", "lambda", "mu", "rho", "sigma", "stable", "wq", "w",` + "\n" +
			`"lq", "l"}], "total": {"wq","w","lq","l"}, "fifo": {...}}; sigma is the load` + "\n" +
			"of the class and those above it; the measures of an unstable class, and\n" +
			"total and fifo when any class is unstable, are null.\n\n" +
			"--from-history fits each class's λ and μ from the journal instead, as\n" +
			"calq analyze history does (c is the most jobs that ran at once unless\n" +
			"--servers says; with c > 1 the classes share the μ of all their jobs),\n" +
			"and prints each class's observed wait beside the waits strict priority\n" +
			"predicts, non-preemptive and preemptive. With --json: one line\n" +
			`{"message_type":"analysis", "analysis":"priority", "servers",` + "\n" +
			`"max_concurrency", "pooled_mu", "rho", "warnings", "classes": [{"class",` + "\n" +
			`"jobs", "completed", "lambda", "mu", "wq_observed", "w_observed",` + "\n" +
			`"wq_non_preemptive", "wq_preemptive"}]}, null where not estimable.` + "\n\n" +
			priorityLimitsHelp,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "lambda", Aliases: []string{"l"}, Usage: "arrival rates `L0,L1,...` of the classes, highest priority first (required)"},
			&cli.StringFlag{Name: "mu", Aliases: []string{"m"}, Usage: "service rate of one server: one `MU` for all classes, or one per class (required)"},
			&cli.IntFlag{Name: "servers", Aliases: []string{"c"},
				Usage: fmt.Sprintf("number of servers c, at most %d (required; with --from-history, the most jobs at once unless given)", analyze.MaxServers)},
			&cli.BoolFlag{Name: "preemptive", Usage: "preemptive-resume: a higher class interrupts a lower one"},
			&cli.BoolFlag{Name: "from-history", Usage: "fit λ and μ per class from the journal (--db) and compare"},
			base.JSONFlag(),
			base.DBFlag(),
		}, filterFlags("with --from-history: ")...),
		Action: priorityAction,
	}
}

func priorityAction(c *cli.Context) error {
	if c.Bool("from-history") {
		return priorityHistoryAction(c)
	}
	o, err := priorityOptions(c)
	if err != nil {
		return err
	}
	r, err := analyze.Priority(c.Context, o)
	if err != nil {
		return fmt.Errorf("analyze priority: %w", err)
	}
	if c.Bool("json") {
		err = base.WriteJSONLine(c.App.Writer, "priority", priorityJSON(r))
	} else {
		err = writePriority(c.App.Writer, r)
	}
	if err == nil {
		err = priorityUnstable(r)
	}
	return err
}

var priorityLimitsHelp = fmt.Sprintf("Limits, checked before any work: at most %d classes, rates from %g\n"+
	"to %g, the total offered load at most %g Erlangs, at most %d servers;\n"+
	"preemptive on more than one server, classes × servers at most %d.",
	analyze.MaxClasses, analyze.MinRate, analyze.MaxRate, float64(analyze.MaxLoad), analyze.MaxServers, analyze.MaxPriorityWork)

// priorityOptions reads and checks the flags of the model.
func priorityOptions(c *cli.Context) (analyze.PriorityOptions, error) {
	f := &flagCheck{c: c}
	for _, name := range []string{"kind", "backend", "since", "until"} {
		if c.IsSet(name) {
			f.Failf(name, "only with --from-history")
		}
	}
	lambdas := f.rateList("lambda", analyze.MaxClasses, true)
	mus := f.rateList("mu", analyze.MaxClasses, false)
	o := analyze.PriorityOptions{Lambdas: lambdas, Mus: mus, Preemptive: c.Bool("preemptive"),
		Servers: f.count("servers", 1, analyze.MaxServers, true)}
	if len(lambdas) > 0 && len(mus) > 1 && len(mus) != len(lambdas) {
		f.Failf("mu", "%d rates for %d classes: give one for all classes, or one per class", len(mus), len(lambdas))
	}
	if f.Len() == 0 {
		f.priorityLoad(o)
	}
	return o, f.err()
}

// rateList reads a required comma list of at most most rates, zeros too
// if zero, naming the item that is wrong.
func (f *flagCheck) rateList(name string, most int, zero bool) []float64 {
	if !f.c.IsSet(name) {
		f.Failf(name, "required")
		return nil
	}
	s := f.c.String(name)
	items := strings.Split(s, ",")
	if len(items) > most {
		f.Failf(name, "%d items, above the limit %d", len(items), most)
		return nil
	}
	vs := make([]float64, 0, len(items))
	for i, item := range items {
		item = strings.TrimSpace(item)
		v, err := strconv.ParseFloat(item, 64)
		switch {
		case item == "":
			f.Failf(name, "item %d of %q is empty", i+1, s)
		case err != nil:
			f.Failf(name, "item %d, %q, is not a number", i+1, item)
		case zero && v == 0:
			v = 0 // not -0
		case analyze.RateProblem(v) != "":
			f.Failf(name, "item %d: %s", i+1, analyze.RateProblem(v))
		}
		vs = append(vs, v)
	}
	return vs
}

// priorityLoad checks the total load and the μ's against the servers.
func (f *flagCheck) priorityLoad(o analyze.PriorityOptions) {
	var a float64
	distinct := false
	for i, l := range o.Lambdas {
		mu := o.Mus[min(i, len(o.Mus)-1)]
		a += l / mu
		distinct = distinct || mu != o.Mus[0]
	}
	if a == 0 {
		f.Failf("lambda", "no class has arrivals: give one a positive rate at least")
	}
	f.load("lambda", "Σ λ/μ", a)
	if k := len(o.Lambdas); o.Preemptive && o.Servers > 1 && k*o.Servers > analyze.MaxPriorityWork {
		f.Failf("servers", "%d with %d classes, preemptive: K·c = %d is above the limit %d", o.Servers, k, k*o.Servers, analyze.MaxPriorityWork)
	}
	if distinct && o.Servers > 1 {
		f.Failf("mu", "different rates per class need --servers 1: with %d servers there is no exact result; give one rate for all classes", o.Servers)
	}
}

// priorityUnstable is the exit-1 error when a class is unstable.
func priorityUnstable(r analyze.PriorityResult) error {
	u := r.Unstable()
	if u < 0 {
		return nil
	}
	which := fmt.Sprintf("class P%d is", u)
	if u < len(r.Classes)-1 {
		which = fmt.Sprintf("classes P%d to P%d are", u, len(r.Classes)-1)
	}
	return fmt.Errorf("%s unstable: the load of P%d and the classes above it is σ = %s ≥ 1; the total load is ρ = %s",
		which, u, num(r.Classes[u].Sigma), num(r.Rho))
}

func discipline(preemptive bool) string {
	if preemptive {
		return "preemptive-resume"
	}
	return "non-preemptive"
}

// priorityOutput is calq analyze priority --json.
type priorityOutput struct {
	Discipline string                    `json:"discipline"`
	Servers    int                       `json:"servers"`
	Lambda     float64                   `json:"lambda"`
	Rho        float64                   `json:"rho"`
	Stable     bool                      `json:"stable"`
	Classes    []priorityClassJSON       `json:"classes"`
	Total      *analyze.PriorityMeasures `json:"total"`
	FIFO       *analyze.PriorityMeasures `json:"fifo"`
}

type priorityClassJSON struct {
	Class  string   `json:"class"`
	Lambda float64  `json:"lambda"`
	Mu     float64  `json:"mu"`
	Rho    float64  `json:"rho"`
	Sigma  float64  `json:"sigma"`
	Stable bool     `json:"stable"`
	Wq     *float64 `json:"wq"`
	W      *float64 `json:"w"`
	Lq     *float64 `json:"lq"`
	L      *float64 `json:"l"`
}

func priorityJSON(r analyze.PriorityResult) priorityOutput {
	out := priorityOutput{Discipline: discipline(r.Preemptive), Servers: r.Servers, Lambda: r.Lambda, Rho: r.Rho, Stable: r.Stable}
	for k, pc := range r.Classes {
		v := func(x float64) *float64 {
			if !pc.Stable {
				return nil
			}
			return &x
		}
		out.Classes = append(out.Classes, priorityClassJSON{Class: fmt.Sprintf("P%d", k), Lambda: pc.Lambda, Mu: pc.Mu,
			Rho: pc.Rho, Sigma: pc.Sigma, Stable: pc.Stable, Wq: v(pc.Wq), W: v(pc.W), Lq: v(pc.Lq), L: v(pc.L)})
	}
	if r.Stable {
		out.Total, out.FIFO = &r.Total, &r.FIFO
	}
	return out
}

func writePriority(w io.Writer, r analyze.PriorityResult) error {
	model := "non-preemptive (Cobham)"
	if r.Preemptive {
		model = "preemptive-resume"
	}
	if _, err := fmt.Fprintf(w, "M/M/%d with %d priority classes, %s: total λ = %s, ρ = %s\n",
		r.Servers, len(r.Classes), model, num(r.Lambda), num(r.Rho)); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "class\tλ\tμ\tρ\tσ (with above)\tWq\tW\tLq\tL")
	for k, pc := range r.Classes {
		row := fmt.Sprintf("P%d\t%s\t%s\t%s\t%s", k, num(pc.Lambda), num(pc.Mu), num(pc.Rho), num(pc.Sigma))
		if pc.Stable {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", row, num(pc.Wq), num(pc.W), num(pc.Lq), num(pc.L))
		} else {
			fmt.Fprintf(tw, "%s\tunstable (σ ≥ 1)\t-\t-\t-\n", row)
		}
	}
	if r.Stable {
		fmt.Fprintf(tw, "all\t%s\t\t%s\t\t%s\t%s\t%s\t%s\n", num(r.Lambda), num(r.Rho), num(r.Total.Wq), num(r.Total.W), num(r.Total.Lq), num(r.Total.L))
		fmt.Fprintf(tw, "FIFO\t%s\t\t%s\t\t%s\t%s\t%s\t%s\n", num(r.Lambda), num(r.Rho), num(r.FIFO.Wq), num(r.FIFO.W), num(r.FIFO.Lq), num(r.FIFO.L))
	}
	return tw.Flush()
}
