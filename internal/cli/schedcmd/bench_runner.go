package schedcmd

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/sched/schedbench"
)

// benchRunnerAction runs calq sched bench --runner.
func benchRunnerAction(c *cli.Context) error {
	for _, f := range []string{"queue", "model", "dist", "size", "ops", "trace", "engine-jobs", "workers"} {
		if c.IsSet(f) {
			return base.Usagef(c, "--%s does not apply to --runner", f)
		}
	}
	if c.Int("runner-jobs") < 1 || c.Int("runner-parallel") < 1 {
		return base.Usagef(c, "--runner-jobs and --runner-parallel must be at least 1")
	}
	self, err := calqCommand()
	if err != nil {
		return fmt.Errorf("sched bench --runner: find calq's executable: %w", err)
	}
	dir, err := os.MkdirTemp("", "calq-bench-")
	if err != nil {
		return fmt.Errorf("sched bench --runner: %w", err)
	}
	defer os.RemoveAll(dir)
	rows, err := schedbench.RunRunner(c.Context, schedbench.RunnerOptions{Calq: self, Dir: dir,
		Jobs: c.Int("runner-jobs"), Parallel: c.Int("runner-parallel")})
	if err != nil {
		return fmt.Errorf("sched bench --runner: %w", err)
	}
	return renderRunnerBench(c.App.Writer, rows, c.Bool("json"))
}

// The goals of issue 15, in ms per job and ratios of the same run.
const (
	runnerGoalMs       = 1.0 // calq's time per trivial job
	runnerGoalParallel = 3.0 // GNU parallel's time over calq's, at least
	runnerGoalXargs    = 2.5 // calq's time over xargs's, at most
)

func renderRunnerBench(w io.Writer, rows []schedbench.RunnerRow, asJSON bool) error {
	if asJSON {
		return base.WriteJSONLines(w, "runner_bench", rows)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "runner\tjobs\tseconds\tms/job\ttime vs calq\tcommand")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.2f×\t%s\n", r.Runner, r.Jobs, r.Seconds, r.MsPerJob, r.Ratio, r.Command)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	calq := rows[0]
	fmt.Fprintf(w, "\ngoal: calq ≤ %.1f ms per job: %.3f ms, %s\n", runnerGoalMs, calq.MsPerJob, base.YesNo(calq.MsPerJob <= runnerGoalMs))
	for _, r := range rows[1:] {
		switch r.Runner {
		case "parallel":
			fmt.Fprintf(w, "goal: calq ≥ %.1f× faster than GNU parallel: %.2f×, %s\n", runnerGoalParallel, r.Ratio, base.YesNo(r.Ratio >= runnerGoalParallel))
		case "xargs":
			fmt.Fprintf(w, "goal: calq within %.1f× of xargs -P: %.2f×, %s\n", runnerGoalXargs, 1/r.Ratio, base.YesNo(1/r.Ratio <= runnerGoalXargs))
		}
	}
	if len(rows) < 3 {
		fmt.Fprintln(w, "GNU parallel is not installed: its goal was not measured")
	}
	return nil
}

// calqCommand is how to run this calq again as a shell would: by the name
// it was run as, when that finds it (a test binary with several mains
// tells them apart by that name), else by its executable's path.
func calqCommand() (string, error) {
	if p, err := exec.LookPath(os.Args[0]); err == nil {
		return p, nil
	}
	return os.Executable()
}
