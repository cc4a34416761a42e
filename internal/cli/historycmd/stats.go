package historycmd

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/sched/history"
	"calq/sched/journal"
)

func statsCommand() *cli.Command {
	return &cli.Command{
		Name:  "stats",
		Usage: "summarise the jobs in the journal per kind and backend",
		Description: "Prints, per kind and backend, how many jobs are in each state, the mean\n" +
			"and the 50th, 90th, 95th and 99th percentiles of their wait (enqueued to\n" +
			"first start) and run (last attempt) times, and why the failed ones failed.\n" +
			`With --json, prints one object: {"message_type": "stats", "groups": [{"kind",` + "\n" +
			`"backend", "jobs", "states", "wait", "run", "reasons"}]}; wait and run hold` + "\n" +
			`"n", "mean_seconds", "p50_seconds", "p90_seconds", "p95_seconds" and` + "\n" +
			`"p99_seconds".` + "\n\n" + base.WhenHelp,
		Flags:  append(filterFlags(), base.JSONFlag(), base.DBFlag()),
		Action: historyAction(false, history.Store.Stats, writeStats),
	}
}

func writeStats(w io.Writer, s journal.Stats, asJSON bool) error {
	if asJSON {
		return base.WriteJSONLines(w, "stats", s.Groups)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "KIND\tBACKEND\tJOBS\t%s\n", strings.ToUpper(strings.Join(stateNames(), "\t")))
	for _, g := range s.Groups {
		fmt.Fprintf(tw, "%s\t%s\t%d", base.SafeText(g.Kind), base.OrDash(base.SafeText(g.Backend)), g.Jobs)
		for _, st := range historyStates {
			fmt.Fprintf(tw, "\t%d", g.States[st])
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprintln(tw, "\nKIND\tBACKEND\tTIME\tN\tMEAN\tP50\tP90\tP95\tP99")
	for _, g := range s.Groups {
		for _, t := range []struct {
			name string
			s    journal.Summary
		}{{"wait", g.Wait}, {"run", g.Run}} {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", base.SafeText(g.Kind), base.OrDash(base.SafeText(g.Backend)), t.name, t.s.N,
				base.Seconds(&t.s.Mean), base.Seconds(&t.s.P50), base.Seconds(&t.s.P90),
				base.Seconds(&t.s.P95), base.Seconds(&t.s.P99))
		}
	}
	if !slices.ContainsFunc(s.Groups, func(g journal.Group) bool { return len(g.Reasons) > 0 }) {
		return tw.Flush()
	}
	fmt.Fprintln(tw, "\nKIND\tBACKEND\tREASON\tJOBS")
	for _, g := range s.Groups {
		for _, r := range g.Reasons {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", base.SafeText(g.Kind), base.OrDash(base.SafeText(g.Backend)), base.SafeText(r.Reason), r.Count)
		}
	}
	return tw.Flush()
}
