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

func simulateCommand() *cli.Command {
	return &cli.Command{
		Name:  "simulate",
		Usage: "simulate a queue with c servers (FIFO or priority classes, with or without abandonment) and compare it with the formulas",
		Description: "Runs a discrete-event simulation, its pending events in sched's calendar queue:\n" +
			"arrivals exp:RATE (Poisson), uniform:N/T (N at uniform random times in [0, T])\n" +
			"or trace:FILE (one time in seconds per line, non-decreasing, # comments);\n" +
			"service exp:RATE, const:SECONDS or lognormal:MEAN,CV; --servers c, and an\n" +
			"optional --capacity K that blocks arrivals finding K in the system.\n\n" +
			"Abandonment: --theta θ (or --patience exp:θ, const:SECONDS, lognormal:MEAN,CV)\n" +
			"gives each customer who has to wait a patience; still waiting when it runs out,\n" +
			"it leaves (M/M/c+M, Erlang A, with --theta). Adds P(abandon), the mean wait of\n" +
			"those who abandoned and the abandonment rate; W, Wq and P(wait) stay measures\n" +
			"of the served, and Little's law counts the waits of both.\n\n" +
			"Priority classes: --lambda L1,L2,... (highest first) makes one Poisson stream\n" +
			"per class, with --mu or --service one for all classes or one per class\n" +
			"(--service exp:2,lognormal:1,0.5); a free server takes the first customer of\n" +
			"the highest class waiting. --preemptive: an arrival finding every server\n" +
			"busy interrupts a customer of the lowest class in service below its own, who\n" +
			"resumes later where it stopped (preempted customers no longer abandon); Wq is\n" +
			"then time in system less service. A second table gives each class's W and Wq\n" +
			"with their intervals, L and Lq (and P(abandon)).\n\n" +
			"Prints one row per measure (W, Wq, L, Lq, utilisation, P(wait), P(block) with a\n" +
			"capacity, throughput) with its 95% confidence interval, Student t over the\n" +
			"replications, or over 20 batches of one replication; an ANALYTIC column with\n" +
			"the M/M/c or M/M/c/K values when arrivals and service are both exp (none for\n" +
			"M/M/c at ρ ≥ 1, which is unstable), the M/G/1 values (Pollaczek-Khinchine,\n" +
			"exact) for exp arrivals on one server with any service and no capacity,\n" +
			"Erlang A's (calq analyze erlang-a) for --theta, and calq analyze priority's\n" +
			"for exp classes that share one μ or one server; then Little's law, L\n" +
			"measured over time against λ·W from the customers; then the response times\n" +
			"(departure - arrival) of the last 10 customers to arrive in the last\n" +
			"replication, and when they finished, counted from time 0 (the start of the\n" +
			"batch).\n\n" +
			"With --json, prints one object: model, arrivals, service, servers, capacity,\n" +
			"customers, warmup, replications, seed, offered_load, ci_method\n" +
			`("replications" or "batch_means"), ci_samples, analytic ("M/M/c", "M/M/c/K",` + "\n" +
			`"M/G/1", "M/M/c+M", "M/M/c priority", "M/M/c preemptive priority" or absent),` + "\n" +
			"unstable, the measures w, wq, l, lq, rho, p_wait, p_block (with a capacity)\n" +
			`and throughput, each {"mean","ci_low","ci_high","analytic"}, little` + "\n" +
			`{"l","lambda_w","rel_diff"}, last_responses, last_arrivals and events; with` + "\n" +
			"patience, patience (its spec), p_abandon, wq_abandoned and abandon_rate; with\n" +
			`classes, preemptive and classes: [{"class","lambda","service","w","wq","l",` + "\n" +
			`"lq","p_wait","p_abandon","wq_abandoned","throughput","little"}].` + "\n\n" +
			"--progress prints \"calq: analyze simulate: replication N of M\" on stderr as\n" +
			"each replication starts.\n\n" +
			"A batch of 200 conversions arriving within 15 s on 3 servers, 6.3 s each\n" +
			"(a conversion service reported 405-425 s for the last 10; they finish 403-422 s\n" +
			"after the batch starts, 389-408 s after they arrived):\n" +
			"  calq analyze simulate --arrivals uniform:200/15 --service const:6.3 --servers 3\n\n" +
			fmt.Sprintf("Limits, checked before any work (a usage error names the flag): rates, times\n"+
				"and means from %g to %g, lognormal CV at most %d, at most %d\n"+
				"servers, a capacity of at most %d, at most %d priority classes, at most\n"+
				"%d customers per replication (a uniform N or a trace's lines likewise),\n"+
				"%d replications and %d customers in all; a trace is a regular file of at\n"+
				"most %d bytes.",
				analyze.MinRate, analyze.MaxRate, analyze.MaxCV, analyze.MaxServers, analyze.MaxCapacity,
				analyze.MaxClasses, analyze.MaxCustomers, analyze.MaxReplications, analyze.MaxSimulated, analyze.MaxTraceBytes),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "arrivals", Value: "exp:1", Usage: "exp:RATE, uniform:N/T or trace:FILE"},
			&cli.StringFlag{Name: "service", Value: "exp:1", Usage: "exp:RATE, const:SECONDS or lognormal:MEAN,CV"},
			&cli.StringFlag{Name: "lambda", Aliases: []string{"l"}, Usage: "arrival `RATE`: short for --arrivals exp:RATE; a list L1,L2,... makes priority classes, highest first", DefaultText: "none"},
			&cli.StringFlag{Name: "mu", Aliases: []string{"m"}, Usage: "service `RATE` of one server: short for --service exp:RATE; with classes, one for all or a list, one per class", DefaultText: "none"},
			&cli.Float64Flag{Name: "theta", Usage: "abandonment `RATE` θ: waiting customers give up after an exp patience of mean 1/θ (short for --patience exp:θ)", DefaultText: "none"},
			&cli.StringFlag{Name: "patience", Usage: "`DIST`: how long a waiting customer stays before it abandons: exp:θ, const:SECONDS or lognormal:MEAN,CV", DefaultText: "none"},
			&cli.BoolFlag{Name: "preemptive", Usage: "with classes: preemptive-resume (an arrival interrupts the service of a lower class)"},
			&cli.IntFlag{Name: "servers", Aliases: []string{"c"}, Value: 1, Usage: "servers, at least 1"},
			&cli.IntFlag{Name: "capacity", Aliases: []string{"K"}, Usage: "most customers in the system, at least --servers; 0: no limit"},
			&cli.IntFlag{Name: "customers", Value: 100_000, Usage: "arrivals per replication (exp arrivals; uniform and trace fix their own)"},
			&cli.IntFlag{Name: "warmup", Usage: "customers left out at the start of each replication",
				DefaultText: "a tenth of --customers for exp arrivals, else 0"},
			&cli.IntFlag{Name: "replications", Value: 10, Usage: "independent runs; with 1, the intervals come from batch means"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed; equal seeds give equal results"},
			&cli.BoolFlag{Name: "progress", Usage: "say on stderr as each replication starts"},
			base.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			o, err := simOptions(c)
			if err != nil {
				return err
			}
			if c.Bool("progress") {
				o.Progress = func(rep, of int) {
					fmt.Fprintf(c.App.ErrWriter, "calq: analyze simulate: replication %d of %d\n", rep, of)
				}
			}
			res, err := analyze.Simulate(c.Context, o)
			if err != nil {
				return fmt.Errorf("analyze simulate: %w", err)
			}
			if c.Bool("json") {
				return base.WriteJSONLine(c.App.Writer, "simulate", res)
			}
			return writeSim(c.App.Writer, res)
		},
	}
}

// simOptions reads and checks the flags of calq analyze simulate; every
// bad value is reported at once, naming its flag.
func simOptions(c *cli.Context) (analyze.SimOptions, error) {
	o := analyze.SimOptions{Servers: c.Int("servers"), Capacity: c.Int("capacity"),
		Replications: c.Int("replications"), Seed: c.Uint64("seed")}
	var errs base.FlagErrors
	simModel(c, &o, &errs)
	// Uniform and trace arrivals fix the number of customers, and their
	// runs are transient: nothing to warm up by default.
	fixed := o.Arrivals.Kind == analyze.KindUniform || o.Arrivals.Kind == analyze.KindTrace
	if !fixed || c.IsSet("customers") {
		o.Customers = c.Int("customers")
	}
	o.Warmup = c.Int("warmup")
	if !c.IsSet("warmup") && !fixed {
		o.Warmup = o.Customers / 10
	}
	for _, e := range unjoin(o.Check()) {
		var oe *analyze.OptionError
		switch {
		case !errors.As(e, &oe):
			errs.Add(e)
		case oe.Field == "arrivals" || oe.Field == "service" || oe.Field == "lambda":
			// simModel has reported these.
		default:
			errs.Add(flagErr(oe.Field, oe))
		}
	}
	if c.Args().Present() {
		errs.Errorf("unexpected argument %q", c.Args().First())
	}
	if err := errs.Err(c); err != nil {
		return o, err
	}
	return o, nil
}

// flagErr words an analyze error as "--flag: reason".
func flagErr(flag string, err error) error {
	if err == nil {
		return nil
	}
	var oe *analyze.OptionError
	if errors.As(err, &oe) {
		return fmt.Errorf("--%s: %s", flag, oe.Reason)
	}
	return fmt.Errorf("--%s: %w", flag, err)
}

// unjoin lists the errors errors.Join put together.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err == nil {
		return nil
	}
	return []error{err}
}

// writeSim writes what was simulated, the measures as a table, then
// Little's law and the last response times.
func writeSim(w io.Writer, r analyze.SimResult) error {
	writeSimHeader(w, r)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "METRIC\tSIMULATED\t95% CI")
	if r.Analytic != "" {
		fmt.Fprint(tw, "\tANALYTIC")
	}
	fmt.Fprintln(tw)
	for _, m := range simRows(r) {
		fmt.Fprintf(tw, "%s\t%.5g\t[%.5g, %.5g]", m.name, m.Mean, m.CILow, m.CIHigh)
		if r.Analytic != "" && m.Analytic != nil {
			fmt.Fprintf(tw, "\t%.5g", *m.Analytic)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := writeSimClasses(w, r); err != nil {
		return err
	}
	l := r.Little
	fmt.Fprintf(w, "\nLittle's law: L = %.5g (time average), λ·W = %.5g (from the customers), relative difference %.2g%%\n",
		l.L, l.LambdaW, 100*l.RelDiff)
	resp := make([]string, len(r.LastResponses))
	for i, v := range r.LastResponses {
		resp[i] = fmt.Sprintf("%.4g", v)
	}
	line := fmt.Sprintf("last %d response times (s): %s", len(resp), strings.Join(resp, " "))
	if last := min(10, r.Customers); len(resp) < last {
		line += fmt.Sprintf(" (%d of the last %d arrivals %s)", last-len(resp), last, lostWord(r))
	}
	done := make([]string, len(r.LastResponses))
	for i, v := range r.LastResponses {
		done[i] = fmt.Sprintf("%.4g", r.LastArrivals[i]+v)
	}
	_, err := fmt.Fprintf(w, "%s\nthe same customers finished at (s from the start): %s\n", line, strings.Join(done, " "))
	return err
}

// writeSimHeader says what was simulated, how the intervals were made and
// what the analytic column holds.
func writeSimHeader(w io.Writer, r analyze.SimResult) {
	fmt.Fprintf(w, "model %s: arrivals %s, service %s, offered load λ·E[S]/c = %.4g\n",
		r.Model, r.Arrivals, r.Service, r.OfferedLoad)
	fmt.Fprintf(w, "%d customers per replication (%d warmup), %s, seed %d, %d events\n",
		r.Customers, r.Warmup, base.Plural(r.Replications, "replication"), r.Seed, r.Events)
	method := fmt.Sprintf("Student t over %d replications", r.CISamples)
	if r.CIMethod == analyze.CIBatchMeans {
		method = fmt.Sprintf("Student t over %d batch means of one replication", r.CISamples)
	}
	fmt.Fprintf(w, "95%% confidence intervals: %s\n", method)
	writeSimModelNotes(w, r)
	switch {
	case r.Unstable:
		fmt.Fprintf(w, "analytic: none, %s at offered load %.4g ≥ 1 is unstable (no steady state)\n", r.Model, r.OfferedLoad)
	case r.Analytic != "":
		fmt.Fprintf(w, "analytic: %s formulas\n", r.Analytic)
	}
	fmt.Fprintln(w)
}

type simRow struct {
	name string
	analyze.Metric
}

func simRows(r analyze.SimResult) []simRow {
	rows := []simRow{
		{"W (mean time in system, Ws)", r.W},
		{"Wq (mean wait in queue)", r.Wq},
		{"L (mean number in system, Ls)", r.L},
		{"Lq (mean number waiting)", r.Lq},
		{"ρ (server utilisation)", r.Rho},
		{"P(wait) (share of served who waited)", r.PWait},
	}
	if r.Blocking != nil {
		rows = append(rows, simRow{"P(block) (share of arrivals blocked)", *r.Blocking})
	}
	if r.PAbandon != nil {
		rows = append(rows, simRow{"P(abandon) (share of arrivals who abandoned)", *r.PAbandon},
			simRow{"Wq of those who abandoned", *r.WqAbandoned},
			simRow{"abandonment rate (per second)", *r.AbandonRate})
	}
	return append(rows, simRow{"throughput (served per second)", r.Throughput})
}
