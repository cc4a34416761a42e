package analyzecmd

import (
	"fmt"
	"io"
	"strconv"

	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
)

func resizeCommand() *cli.Command {
	return &cli.Command{
		Name:  "resize",
		Usage: "the calendar queue's resize prediction (PRAM, M/M/1/N)",
		Description: "Applies the calendar queue's PRAM policy, with the very functions calq's\n" +
			"scheduler uses, to a queue whose events are pushed at rate λ and popped at\n" +
			"rate μ, with room for N (--capacity), NB buckets now and NE events now\n" +
			"(--events; default the predicted mean L). Prints the predicted L, the NB a\n" +
			"resize would choose, the triggers (NE > 3·NB grows, NE < NB/3 shrinks) and\n" +
			"whether NE trips one, the steady-state probability of being past each, the\n" +
			"rate at which the size crosses them, and the expected time until the next\n" +
			"resize (the mean first-passage time of the M/M/1/N chain from NE).\n\n" +
			`--json prints one line {"message_type":"resize", "lambda", "mu", "rho", "capacity", "buckets", "events", "l",` + "\n" +
			`"target_buckets", "grow_above", "shrink_below", "trigger", "p_grow", "p_shrink",` + "\n" +
			`"up_crossings_per_time", "down_crossings_per_time", "time_to_resize"}; the` + "\n" +
			"last is null when no trigger can be reached.\n\n" + limitsHelp + "\n--buckets is at most the same.",
		Flags: append(rateFlags(),
			capacityFlag("N"),
			&cli.IntFlag{Name: "buckets", Usage: fmt.Sprintf("buckets NB in the calendar now, at most %d (required)", analyze.MaxCapacity)},
			&cli.IntFlag{Name: "events", Usage: "events NE in the queue now (default: the predicted L)"},
			base.JSONFlag()),
		Action: func(c *cli.Context) error {
			f := &flagCheck{c: c}
			lambda, mu := f.rates()
			n := f.count("capacity", 1, analyze.MaxCapacity, true)
			nb := f.count("buckets", 1, analyze.MaxCapacity, true)
			ne := -1
			if c.IsSet("events") {
				ne = f.count("events", 0, analyze.MaxCapacity, false)
				if f.Len() == 0 && ne > n {
					f.Failf("events", "%d is more than the capacity %d", ne, n)
				}
			}
			if err := f.err(); err != nil {
				return err
			}
			r, err := analyze.PredictResize(c.Context, lambda, mu, n, nb, ne)
			if err != nil {
				return fmt.Errorf("analyze resize: %w", err)
			}
			if c.Bool("json") {
				return base.WriteJSONLine(c.App.Writer, "resize", r)
			}
			return writeResize(c.App.Writer, r)
		},
	}
}

func writeResize(w io.Writer, r analyze.ResizeResult) error {
	shrink := "never (the smallest calendar)"
	if r.ShrinkBelow >= 0 {
		shrink = fmt.Sprintf("NE < %d", r.ShrinkBelow)
	}
	next := "never: no trigger can be reached"
	if t := r.TimeToResize; t != nil {
		next = num(*t)
	}
	title := fmt.Sprintf("calendar queue (PRAM): λ = %s pushes, μ = %s pops per unit time, room for N = %d", num(r.Lambda), num(r.Mu), r.Capacity)
	return base.WriteMeasures(w, title, []base.Measure{
		{Name: "ρ   λ/μ", Value: num(r.Rho)},
		{Name: "L   predicted mean number of events (M/M/1/N)", Value: num(r.L)},
		{Name: "NB  buckets now", Value: strconv.Itoa(r.Buckets)},
		{Name: "NE  events now", Value: strconv.Itoa(r.Events)},
		{Name: "grows when", Value: fmt.Sprintf("NE > %d", r.GrowAbove)},
		{Name: "shrinks when", Value: shrink},
		{Name: "resize triggered now", Value: r.Trigger},
		{Name: "NB a resize at NE would choose", Value: strconv.Itoa(r.TargetBuckets)},
		{Name: fmt.Sprintf("P(NE > %d)  steady state", r.GrowAbove), Value: num(r.PGrow)},
		{Name: "P(NE < shrink trigger)  steady state", Value: num(r.PShrink)},
		{Name: "up-crossings of the grow trigger per unit time", Value: num(r.UpCrossings)},
		{Name: "down-crossings of the shrink trigger per unit time", Value: num(r.DownCrossings)},
		{Name: "expected time until the next resize", Value: next},
	})
}
