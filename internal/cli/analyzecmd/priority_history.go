package analyzecmd

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
	"calq/sched/journal"
)

// priorityHistoryAction is calq analyze priority --from-history.
func priorityHistoryAction(c *cli.Context) error {
	f, o, err := priorityHistoryOptions(c)
	if err != nil {
		return err
	}
	return withJobSamples(c, f, func(samples []analyze.JobSample) error {
		r, err := analyze.PriorityHistory(c.Context, samples, o)
		if err != nil {
			return fmt.Errorf("analyze priority --from-history: %w", err)
		}
		if c.Bool("json") {
			return base.WriteJSONLine(c.App.Writer, "analysis", priorityHistoryJSON(r))
		}
		return writePriorityHistory(c.App.Writer, r)
	})
}

// priorityHistoryOptions reads and checks the flags, all of them before
// the journal is looked for.
func priorityHistoryOptions(c *cli.Context) (journal.Filter, analyze.PriorityHistoryOptions, error) {
	fc := &flagCheck{c: c}
	for _, name := range []string{"lambda", "mu", "preemptive"} {
		if c.IsSet(name) {
			fc.Failf(name, "not with --from-history, which fits the rates and prints both disciplines")
		}
	}
	f := journalFilter(c, &fc.FlagErrors)
	var o analyze.PriorityHistoryOptions
	if c.IsSet("servers") {
		o.Servers = fc.count("servers", 1, analyze.MaxServers, false)
	}
	return f, o, fc.err()
}

// priorityHistoryOutput is calq analyze priority --from-history --json.
type priorityHistoryOutput struct {
	Analysis string `json:"analysis"` // "priority"
	analyze.PriorityHistoryResult
	Classes []priorityHistoryClassJSON `json:"classes"`
}

type priorityHistoryClassJSON struct {
	Class string `json:"class"`
	analyze.PriorityHistoryClass
}

func priorityHistoryJSON(r analyze.PriorityHistoryResult) priorityHistoryOutput {
	out := priorityHistoryOutput{Analysis: "priority", PriorityHistoryResult: r, Classes: []priorityHistoryClassJSON{}}
	for _, pc := range r.Classes {
		out.Classes = append(out.Classes, priorityHistoryClassJSON{Class: fmt.Sprintf("P%d", pc.Class), PriorityHistoryClass: pc})
	}
	return out
}

func writePriorityHistory(w io.Writer, r analyze.PriorityHistoryResult) error {
	if len(r.Classes) == 0 {
		_, err := fmt.Fprintln(w, "no jobs match (only jobs that started count)")
		return err
	}
	mu := "each class's own μ"
	if r.Servers > 1 {
		mu = "one μ over all classes, " + rateOrDash(r.PooledMu)
	}
	fmt.Fprintf(w, "strict priority on %d workers (most jobs at once: %d), %s; ρ %s\n", r.Servers, r.MaxConcurrency, mu, base.Ratio(r.Rho))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "class\tjobs\tλ\tμ\tWq observed\tnon-preemptive\tpreemptive")
	for _, pc := range r.Classes {
		fmt.Fprintf(tw, "P%d\t%d\t%s\t%s\t%s\t%s\t%s\n", pc.Class, pc.Jobs, rateOrDash(pc.Lambda), rateOrDash(pc.Mu),
			base.Seconds(&pc.WqObserved), base.Seconds(pc.WqNonPreemptive), base.Seconds(pc.WqPreemptive))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, warning := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warning)
	}
	_, err := fmt.Fprintln(w, "calq shares workers by weighted fair queueing (4, 2, 1, 0.5), not strict priority: see --help")
	return err
}

func rateOrDash(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.3g/s", *v)
}
