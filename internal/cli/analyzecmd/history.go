package analyzecmd

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
	"calq/sched/journal"
)

func historyCommand() *cli.Command {
	return &cli.Command{
		Name:  "history",
		Usage: "estimate arrival and service rates from the journal and check them against M/M/c",
		Description: "Reads the jobs in the journal (--db) that started and, per kind and the\n" +
			"backend they ran on, prints: the arrival rate λ (gaps between enqueues) and the\n" +
			"service rate μ per worker (1 / mean run time), each with an exact χ² confidence\n" +
			"interval; the most jobs that ran at once, taken as the worker count c, and the\n" +
			"mean busy workers; the observed mean wait Wq and time in system W against the\n" +
			"M/M/c prediction with λ, μ and c; the coefficients of variation of the service\n" +
			"and inter-arrival times, with a warning and the Allen-Cunneen wait\n" +
			"Wq·(Ca²+Cs²)/2 when one is outside [0.5, 1.5] over 10 or more values; and\n" +
			"with --max-wq, the fewest workers whose predicted (Allen-Cunneen when it\n" +
			"applies) Wq is at most that. Times are in seconds, rates per second.\n\n" +
			`With --json, prints {"message_type": "analysis", "analysis": "history",` + "\n" +
			`"confidence", "max_wq", "groups": [{"kind", "backend", "jobs", "completed",` + "\n" +
			`"failed", "span_s", "lambda", "lambda_ci": {"lo", "hi"}, "mu", "mu_ci",` + "\n" +
			`"max_concurrency", "mean_busy", "wq_observed", "w_observed", "rho", "stable",` + "\n" +
			`"wq_predicted", "w_predicted", "service_cv", "arrival_cv", "wq_allen_cunneen",` + "\n" +
			`"workers_for_max_wq", "wq_with_workers", "warnings": [...]}]}; a value that` + "\n" +
			"cannot be estimated (λ from one job, μ before any job finished, predictions\n" +
			"of an unstable queue) is left out.\n\n" + base.WhenHelp,
		Flags: append(filterFlags(""),
			&cli.Float64Flag{Name: "max-wq", Usage: "find the workers that keep the mean wait at most `SECONDS`"},
			&cli.Float64Flag{Name: "confidence", Value: 0.95, Usage: "the confidence `LEVEL` of the intervals, above 0 and at most 1 - 10^-9"},
			base.JSONFlag(),
			base.DBFlag(),
		),
		Action: analyzeHistoryAction,
	}
}

func analyzeHistoryAction(c *cli.Context) error {
	f, o, err := analyzeHistoryOptions(c)
	if err != nil {
		return err
	}
	return withJobSamples(c, f, func(samples []analyze.JobSample) error {
		groups, err := analyze.History(c.Context, samples, o)
		if err != nil {
			return fmt.Errorf("analyze history: %w", err)
		}
		return writeAnalyzeHistory(c.App.Writer, groups, o, c.Bool("json"))
	})
}

// analyzeHistoryOptions reads and checks the flags, all of them before
// the journal is looked for.
func analyzeHistoryOptions(c *cli.Context) (journal.Filter, analyze.HistoryOptions, error) {
	o := analyze.HistoryOptions{MaxWq: c.Float64("max-wq"), Confidence: c.Float64("confidence")}
	var errs base.FlagErrors
	f := journalFilter(c, &errs)
	if math.IsNaN(o.MaxWq) || math.IsInf(o.MaxWq, 0) || o.MaxWq < 0 {
		errs.Errorf("--max-wq: %v is not a non-negative number of seconds", o.MaxWq)
	}
	if !(o.Confidence > 0 && o.Confidence <= analyze.MaxConfidence) {
		errs.Errorf("--confidence: %v is not above 0 and at most the limit %v", o.Confidence, analyze.MaxConfidence)
	}
	if c.Args().Present() {
		errs.Errorf("unknown command %q", c.Args().First())
	}
	if err := errs.Err(c); err != nil {
		return f, o, err
	}
	return f, o, nil
}

// analysisReport is calq analyze history --json.
type analysisReport struct {
	MessageType string                 `json:"message_type"` // "analysis"
	Analysis    string                 `json:"analysis"`     // "history"
	Confidence  float64                `json:"confidence"`
	MaxWq       float64                `json:"max_wq,omitempty"`
	Groups      []analyze.HistoryGroup `json:"groups"`
}

func writeAnalyzeHistory(w io.Writer, groups []analyze.HistoryGroup, o analyze.HistoryOptions, asJSON bool) error {
	if asJSON {
		return base.WriteJSONLine(w, "analysis", analysisReport{"analysis", "history", o.Confidence, o.MaxWq, groups})
	}
	if len(groups) == 0 {
		_, err := fmt.Fprintln(w, "no jobs match (only jobs that started count)")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, g := range groups {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		writeHistoryGroup(tw, g, o)
	}
	return tw.Flush()
}

// writeHistoryGroup writes one group as labelled lines; "-" stands for a
// value that could not be estimated.
func writeHistoryGroup(w io.Writer, g analyze.HistoryGroup, o analyze.HistoryOptions) {
	conf := fmt.Sprintf("%.4g%% CI", o.Confidence*100)
	fmt.Fprintf(w, "%s on %s: %s started, %d finished (%d failed), enqueued over %s\n",
		base.SafeText(g.Kind), base.OrDash(base.SafeText(g.Backend)), base.Plural(g.Jobs, "job"), g.Completed, g.Failed, base.Seconds(&g.SpanS))
	fmt.Fprintf(w, "  arrival rate λ\t%s\n", rateCI(g.Lambda, g.LambdaCI, "/s", conf))
	fmt.Fprintf(w, "  service rate μ\t%s\n", rateCI(g.Mu, g.MuCI, "/s per worker", conf))
	busy := "-"
	if g.MeanBusy != nil {
		busy = fmt.Sprintf("%.3g", *g.MeanBusy)
	}
	fmt.Fprintf(w, "  workers c\t%d (most jobs at once), %s busy on average\n", g.MaxConcurrency, busy)
	model := "-"
	if g.Rho != nil {
		model = fmt.Sprintf("M/M/%d, ρ %.3g", g.MaxConcurrency, *g.Rho)
		if !g.Stable {
			model += ", unstable"
		}
	}
	fmt.Fprintf(w, "  model\t%s\n", model)
	fmt.Fprintf(w, "  wait Wq\t%s observed, %s predicted\n", base.Seconds(&g.WqObserved), base.Seconds(g.WqPredicted))
	fmt.Fprintf(w, "  in system W\t%s observed, %s predicted\n", base.Seconds(g.WObserved), base.Seconds(g.WPredicted))
	fmt.Fprintf(w, "  service CV\t%s\n", base.Ratio(g.ServiceCV))
	fmt.Fprintf(w, "  arrival CV\t%s\n", base.Ratio(g.ArrivalCV))
	if g.WqAllenCunneen != nil {
		fmt.Fprintf(w, "  Allen-Cunneen Wq\t%s\n", base.Seconds(g.WqAllenCunneen))
	}
	if o.MaxWq > 0 {
		staff := "-"
		if g.WorkersForMaxWq != nil {
			staff = fmt.Sprintf("%d (predicted Wq %s)", *g.WorkersForMaxWq, base.Seconds(g.WqWithWorkers))
		}
		fmt.Fprintf(w, "  workers for Wq ≤ %s\t%s\n", base.Seconds(&o.MaxWq), staff)
	}
	for _, warning := range g.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warning)
	}
}

// rateCI renders "0.52/s (95% CI 0.47–0.58)", or "-".
func rateCI(v *float64, ci *analyze.Interval, unit, conf string) string {
	if v == nil {
		return "-"
	}
	s := fmt.Sprintf("%.3g%s", *v, unit)
	if ci != nil {
		s += fmt.Sprintf("  (%s %.3g–%.3g)", conf, ci.Lo, ci.Hi)
	}
	return s
}
