package schedcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/internal/dburl"
	"calq/sched"
	"calq/sched/journal"
	"calq/sched/schedbench"
	"calq/sched/shell"
)

// benchEngineAction runs calq sched bench --engine.
func benchEngineAction(c *cli.Context) error {
	for _, f := range []string{"queue", "model", "dist", "size", "ops", "trace"} {
		if c.IsSet(f) {
			return base.Usagef(c, "--%s does not apply to --engine", f)
		}
	}
	if c.Int("workers") < 1 || c.Int("engine-jobs") < 0 {
		return base.Usagef(c, "--workers must be at least 1 and --engine-jobs not negative")
	}
	if db := c.String("db"); db != "" && !dburl.IsPostgres(db) {
		return base.Usagef(c, "--db %s: want a PostgreSQL address (the SQLite journal is measured anyway)", shell.Quote(dburl.Redact(db)))
	}
	dir, err := os.MkdirTemp("", "calq-bench-")
	if err != nil {
		return fmt.Errorf("sched bench: %w", err)
	}
	defer os.RemoveAll(dir)
	o := schedbench.EngineOptions{Jobs: c.Int("engine-jobs"), JournalJobs: c.Int("engine-jobs") / 10,
		Workers: c.Int("workers"), Dir: dir,
		OpenJournal: func(ctx context.Context, path string) (sched.Journal, error) {
			return journal.Open(ctx, path, journal.Options{})
		}}
	rows, err := schedbench.RunEngine(c.Context, o)
	if db := c.String("db"); db != "" && err == nil {
		var shared []schedbench.EngineRow
		shared, err = schedbench.RunShared(c.Context, schedbench.SharedOptions{URL: db})
		rows = append(rows, shared...)
	}
	if err == nil || len(rows) > 0 {
		err = errors.Join(err, renderEngineBench(c.App.Writer, rows, c.Bool("json")))
	}
	if err != nil {
		return fmt.Errorf("sched bench --engine: %w", err)
	}
	return nil
}

func renderEngineBench(w io.Writer, rows []schedbench.EngineRow, asJSON bool) error {
	if asJSON {
		return base.WriteJSONLines(w, "engine_bench", rows)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tjobs\tseconds\tjobs/s\tvs baseline\tgoal\tmet")
	for _, r := range rows {
		ratio, goal, met := "-", "-", "-"
		if r.Baseline != "" {
			ratio = fmt.Sprintf("%.2f× %s", r.Ratio, r.Baseline)
		}
		if r.Target > 0 {
			goal, met = fmt.Sprintf("≥ %.0f jobs/s", r.Target), base.YesNo(r.Met)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.0f\t%s\t%s\t%s", r.Name, r.Jobs, r.Seconds, r.JobsPerSec, ratio, goal, met)
		if r.Detail != "" {
			fmt.Fprintf(tw, "\t%s", r.Detail)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
