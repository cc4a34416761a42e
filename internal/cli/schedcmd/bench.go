package schedcmd

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/sched/schedbench"
)

func benchCommand() *cli.Command {
	return &cli.Command{
		Name:  "bench",
		Usage: "benchmark the calendar queue against heaps",
		Description: "Runs every combination of queue, model, distribution and size and prints one\n" +
			"row per combination (queue, model, dist, size, ns/op, max op, p99.9 op, resizes),\n" +
			"then the goals the calendar queue is held to: ratios against the heaps measured\n" +
			"in the same run, and latency bounds. With --json, prints JSON Lines: a \"bench\"\n" +
			`line per row {"queue","model","dist","size","ns_per_op","max_op_ns",` + "\n" +
			`"p999_op_ns","resizes"}, then a "bench_goal" line per goal. Progress lines go` + "\n" +
			"to stderr when it is a terminal.\n" +
			"When interrupted, prints the rows finished so far and exits 130.\n\n" +
			"With --engine it measures the scheduler's overhead per job instead: no-op jobs\n" +
			"through a bare channel-fed worker pool (the baseline), the engine in memory\n" +
			"(goal: 1,000,000 jobs/s), the SQLite journal driven directly (its baseline)\n" +
			"and the engine with the journal (goal: 20,000 jobs/s), best of 5 passes each;\n" +
			"then 300 jobs arriving every 2.5 ms at a backend taking 2 ms and one taking\n" +
			"8 ms under each dispatch policy, with the mean time in system and the fast\n" +
			"backend's share, against round-robin.\n\n" +
			"With --runner it times --runner-jobs trivial jobs (true) end to end, best of 3:\n" +
			"calq sched run -j P, xargs -P P sh -c, and GNU parallel -j P when installed;\n" +
			"it prints ms per job, each runner's time over calq's, and the goals: calq at most\n" +
			"1 ms per job, 3× faster than GNU parallel, within 2.5× of xargs.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "queue", Value: "cq-pram,cq-brown,heap2,heap4,container-heap",
				Usage: "comma-separated queues to measure"},
			&cli.StringFlag{Name: "model", Value: "hold,updown,markov",
				Usage: "comma-separated access patterns"},
			&cli.StringFlag{Name: "dist", Value: "exp,uniform,triangular,negtriangular,bimodal,camel",
				Usage: "comma-separated distributions of the time increments"},
			&cli.StringFlag{Name: "size", Value: "1000,10000,100000,1000000",
				Usage: "comma-separated queue sizes, 1 to 10^7"},
			&cli.IntFlag{Name: "ops", Usage: "operations measured per row; 0 lets the bench choose"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "random seed; equal seeds give equal workloads"},
			&cli.StringFlag{Name: "trace",
				Usage: `"bursty" runs a bursty arrival trace on cq-pram and cq-brown instead of the grid`},
			base.JSONFlag(),
			&cli.BoolFlag{Name: "engine", Usage: "benchmark the scheduler engine with no-op jobs instead of the queue (see below)"},
			&cli.IntFlag{Name: "engine-jobs", Usage: "--engine: jobs per in-memory pass (default 1,000,000; a tenth of it with the journal)"},
			&cli.IntFlag{Name: "workers", Value: 8, Usage: "--engine: workers"},
			&cli.StringFlag{Name: "db", Usage: "--engine: also measure the shared queue in this postgres:// `URL` (1, 2, 3 workers; claims vs round-robin)"},
			&cli.BoolFlag{Name: "runner", Usage: "benchmark calq sched run against xargs -P and GNU parallel (see below)"},
			&cli.IntFlag{Name: "runner-jobs", Value: 300, Usage: "--runner: trivial jobs per pass"},
			&cli.IntFlag{Name: "runner-parallel", Value: 2, Usage: "--runner: jobs at once (-j, -P)"},
		},
		Action: func(c *cli.Context) error {
			if c.Bool("engine") && c.Bool("runner") {
				return base.Usagef(c, "give --engine or --runner, not both")
			}
			if c.Bool("engine") {
				return benchEngineAction(c)
			}
			if c.Bool("runner") {
				return benchRunnerAction(c)
			}
			opts, err := benchOptions(c)
			if err != nil {
				return err
			}
			// Bench returns the rows finished before an interrupt: show
			// them, and the exit status says they are incomplete.
			rows, err := schedbench.Run(c.Context, opts)
			if err == nil || len(rows) > 0 {
				err = errors.Join(err, renderBench(c.App.Writer, rows, c.Bool("json")))
			}
			if err != nil {
				return fmt.Errorf("sched bench: %w", err)
			}
			return nil
		},
	}
}

// benchOptions reads and validates the flags of calq sched bench.
func benchOptions(c *cli.Context) (schedbench.Options, error) {
	o := schedbench.Options{Ops: c.Int("ops"), Seed: c.Int64("seed"), Trace: c.String("trace")}
	var errs base.FlagErrors
	add := func(err error) {
		if err != nil {
			errs.Add(err)
		}
	}
	var err error
	o.Queues, err = parseNames("queue", c.String("queue"), schedbench.QueueNames)
	add(err)
	o.Models, err = parseNames("model", c.String("model"), schedbench.ModelNames)
	add(err)
	o.Dists, err = parseNames("dist", c.String("dist"), schedbench.DistNames)
	add(err)
	o.Sizes, err = parseSizes("size", c.String("size"))
	add(err)
	if o.Ops < 0 {
		add(fmt.Errorf("--ops: %d is negative", o.Ops))
	}
	if o.Trace != "" && o.Trace != "bursty" {
		add(fmt.Errorf(`--trace: unknown trace %q (valid: "" or bursty)`, o.Trace))
	}
	if c.Args().Present() {
		add(fmt.Errorf("unexpected argument %q", c.Args().First()))
	}
	if err := errs.Err(c); err != nil {
		return o, err
	}
	if base.IsTerminal(c.App.ErrWriter) {
		o.Progress = c.App.ErrWriter
	}
	return o, nil
}

// parseNames splits a comma-separated flag value and checks every name
// against valid.
func parseNames(flag, value string, valid []string) ([]string, error) {
	names, err := splitList(flag, value)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if !slices.Contains(valid, n) {
			return nil, fmt.Errorf("--%s: unknown name %q (valid: %s)", flag, n, strings.Join(valid, ", "))
		}
	}
	return names, nil
}

// parseSizes splits a comma-separated flag value of positive integers.
func parseSizes(flag, value string) ([]int, error) {
	items, err := splitList(flag, value)
	if err != nil {
		return nil, err
	}
	sizes := make([]int, len(items))
	for i, s := range items {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("--%s: %q is not a positive integer", flag, s)
		}
		sizes[i] = n
	}
	return sizes, nil
}

func splitList(flag, value string) ([]string, error) {
	items := strings.Split(value, ",")
	for i, s := range items {
		items[i] = strings.TrimSpace(s)
		if items[i] == "" {
			return nil, fmt.Errorf("--%s: empty item in %q", flag, value)
		}
	}
	return items, nil
}

func renderBench(w io.Writer, rows []schedbench.Row, asJSON bool) error {
	if asJSON {
		return writeJSON(w, rows)
	}
	return writeBench(w, rows, schedbench.Goals(rows))
}

// writeJSON prints a line per row, then a line per goal.
func writeJSON(w io.Writer, rows []schedbench.Row) error {
	if err := base.WriteJSONLines(w, "bench", rows); err != nil {
		return err
	}
	for _, g := range schedbench.Goals(rows) {
		if err := base.WriteJSONLine(w, "bench_goal", g); err != nil {
			return err
		}
	}
	return nil
}

// writeBench writes the rows and the goals as two aligned tables.
func writeBench(w io.Writer, rows []schedbench.Row, goals []schedbench.Goal) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "queue\tmodel\tdist\tsize\tns/op\tmax op\tp99.9 op\tresizes")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.1f\t%v\t%v\t%d\n", r.Queue, r.Model, r.Dist, r.Size,
			r.NsPerOp, time.Duration(r.MaxOpNs), time.Duration(r.P999OpNs), r.Resizes)
	}
	if len(goals) > 0 {
		fmt.Fprintln(tw, "\ngoal\tvalue\ttarget\tmet")
		for _, g := range goals {
			fmt.Fprintf(tw, "%s\t%.3g\t%s\t%s\n", g.Goal, g.Value, g.Target, base.YesNo(g.Met))
		}
	}
	return tw.Flush()
}
