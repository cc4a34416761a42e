package analyzecmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
)

const engsetJSON = `--json prints one line {"message_type":"engset", "variant":"blocking" or "delay",` + "\n" +
	`"sources", "alpha", "mu", "servers", "capacity", "beta", "busy", "utilisation",` + "\n" +
	`"throughput", then with --blocking "call_congestion", "time_congestion", "offered",` + "\n" +
	`"traffic_congestion", "attempt_rate"; with --delay "p0", "log10_p0", "l", "lq", "w",` + "\n" +
	`"wq", "lambda_eff", "p_wait", "p_block", "idle"}.`

func engsetCommand() *cli.Command {
	return &cli.Command{
		Name:  "engset",
		Usage: "finite sources (N users or machines): Engset blocking, or the machine-repair queue M/M/c/K/N",
		Description: "N sources (users, clerks, machines) each submit a request at rate α while\n" +
			"they have none outstanding; c exponential servers of rate μ serve them.\n" +
			"Unlike M/M/c the arrivals slow down as requests pile up, so the system is\n" +
			"always stable. --blocking: a request that finds every server busy is lost\n" +
			"(Engset's loss system M/M/c/c/N): the call congestion B (the share of\n" +
			"requests blocked), the time congestion E (the share of time all c are busy;\n" +
			"B with N sources is E with N-1), the offered traffic Nβ/(1+β), β = α/μ, the\n" +
			"carried traffic (the mean number busy) and the attempt rate. --delay: it\n" +
			"waits (the machine-repair model M/M/c/K/N; K, default N, bounds the requests\n" +
			"in the system, the rest are turned away): P0, L, Lq, W, Wq, the effective\n" +
			"arrival rate, the utilisation, P(wait) of an entering request, P(block) and\n" +
			"the mean number of idle sources. With c ≥ N nobody is blocked or waits.\n" +
			"Computed by recurrences and rescaled sums, exact at any size.\n\n" + engsetJSON + "\n\n" +
			fmt.Sprintf("Limits, checked before any work: --alpha and --mu from %g to %g, α/μ at most\n"+
				"%g, at most %d sources and %d servers.", analyze.MinRate, analyze.MaxRate, float64(analyze.MaxLoad),
				analyze.MaxCapacity, analyze.MaxServers),
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "sources", Aliases: []string{"N"}, Usage: fmt.Sprintf("number of sources N, at most %d (required)", analyze.MaxCapacity)},
			&cli.Float64Flag{Name: "alpha", Usage: "request rate α of one idle source (required)"},
			&cli.Float64Flag{Name: "mu", Aliases: []string{"m"}, Usage: "service rate μ of one server (required)"},
			serversFlag(),
			&cli.BoolFlag{Name: "blocking", Usage: "a request that finds every server busy is lost"},
			&cli.BoolFlag{Name: "delay", Usage: "a request that finds every server busy waits"},
			&cli.IntFlag{Name: "capacity", Aliases: []string{"K"}, Usage: "with --delay: most requests in the system, those in service included (default: N)"},
			base.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			o, err := engsetOptions(c)
			if err != nil {
				return err
			}
			r, err := analyze.Engset(c.Context, o)
			if err != nil {
				return fmt.Errorf("analyze engset: %w", err)
			}
			if c.Bool("json") {
				return base.WriteJSONLine(c.App.Writer, "engset", engsetOutput(r))
			}
			return writeEngset(c, r)
		},
	}
}

// engsetOptions reads the flags, naming every bad one.
func engsetOptions(c *cli.Context) (analyze.EngsetOptions, error) {
	f := &flagCheck{c: c}
	o := analyze.EngsetOptions{Sources: f.count("sources", 1, analyze.MaxCapacity, true)}
	o.Alpha, o.Mu = f.positive("alpha"), f.positive("mu")
	if f.Len() == 0 && !(o.Alpha/o.Mu <= analyze.MaxLoad) {
		f.Failf("alpha", "the load of an idle source α/μ = %g Erlangs is above the limit %g: lower --alpha or raise --mu",
			o.Alpha/o.Mu, float64(analyze.MaxLoad))
	}
	o.Servers = f.count("servers", 1, analyze.MaxServers, true)
	switch {
	case c.Bool("blocking") && c.Bool("delay"):
		f.Failf("blocking", "give one of --blocking and --delay, not both")
	case c.Bool("blocking"):
		o.Variant = analyze.EngsetBlocking
	case c.Bool("delay"):
		o.Variant = analyze.EngsetDelay
	default:
		f.Failf("delay", "required: give --blocking (a request that finds every server busy is lost) or --delay (it waits)")
	}
	if c.IsSet("capacity") {
		k := c.Int("capacity")
		switch {
		case o.Variant == analyze.EngsetBlocking:
			f.Failf("capacity", "only with --delay (with --blocking the capacity is the c servers)")
		case f.Len() > 0:
		case k > o.Sources:
			f.Failf("capacity", "%d is above the limit of the %d sources", k, o.Sources)
		case k < min(o.Servers, o.Sources):
			f.Failf("capacity", "%d is below the %d servers", k, o.Servers)
		}
		o.Capacity = k
	}
	return o, f.err()
}
