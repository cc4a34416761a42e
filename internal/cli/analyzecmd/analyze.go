package analyzecmd

import (
	"fmt"
	"math"
	"strconv"

	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
)

// Command is calq analyze.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "analyze",
		Usage: "queueing calculator: M/M/c, M/M/c/K, Erlang B/C, staffing, resize predictions, simulation, history",
		Description: "Exact queueing formulas at any size (Erlang B by recurrence, logs where values\n" +
			"would overflow), the calendar queue's resize predictor, a discrete-event\n" +
			"simulator and an analysis of the journal. Rates are per unit of time; times\n" +
			"come out in the same unit (λ = 2 per second gives W in seconds). Every\n" +
			"subcommand prints a table, or JSON with --json. An unstable queue (ρ ≥ 1)\n" +
			"is reported, not hidden: the exit status is 1. Every size and rate has a\n" +
			"limit, checked before any work (each subcommand's help lists its own), and\n" +
			"SIGINT or SIGTERM stops any of them at once: the exit status is 130.",
		Subcommands: []*cli.Command{
			mmcCommand(),
			mmckCommand(),
			mm1nCommand(),
			erlangCommand(),
			erlangACommand(),
			sizeCommand(),
			poissonCommand(),
			resizeCommand(),
			simulateCommand(),
			historyCommand(),
			priorityCommand(),
		},
	}
}

func rateFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Float64Flag{Name: "lambda", Aliases: []string{"l"}, Usage: "arrival rate λ (required)"},
		&cli.Float64Flag{Name: "mu", Aliases: []string{"m"}, Usage: "service rate μ of one server (required)"},
	}
}

func serversFlag() cli.Flag {
	return &cli.IntFlag{Name: "servers", Aliases: []string{"c"},
		Usage: fmt.Sprintf("number of servers c, at most %d (required)", analyze.MaxServers)}
}

// flagCheck reads flags and collects what is wrong with them, so that one
// usage error names every bad flag.
type flagCheck struct {
	base.FlagErrors
	c *cli.Context
}

// positive reads a required flag that must be a number in
// [analyze.MinRate, analyze.MaxRate].
func (f *flagCheck) positive(name string) float64 {
	if !f.c.IsSet(name) {
		f.Failf(name, "required")
		return 0
	}
	v := f.c.Float64(name)
	if p := analyze.RateProblem(v); p != "" {
		f.Failf(name, "%s", p)
	}
	return v
}

// rates reads --lambda and --mu, and checks their offered load λ/μ
// against analyze.MaxLoad.
func (f *flagCheck) rates() (lambda, mu float64) {
	lambda, mu = f.positive("lambda"), f.positive("mu")
	f.load("lambda", "λ/μ", lambda/mu)
	return lambda, mu
}

// load fails name when the offered load a, read from valid flags, is
// above analyze.MaxLoad.
func (f *flagCheck) load(name, what string, a float64) {
	if f.Len() == 0 && !(a <= analyze.MaxLoad) {
		f.Failf(name, "the offered load %s = %g Erlangs is above the limit %g", what, a, float64(analyze.MaxLoad))
	}
}

// optional reads a flag that, if given, must be a number from 0 to
// analyze.MaxRate (and below 1 if prob); 0 when not given.
func (f *flagCheck) optional(name string, prob bool) float64 {
	if !f.c.IsSet(name) {
		return 0
	}
	v := f.c.Float64(name)
	switch {
	case !(v >= 0 && v <= analyze.MaxRate):
		f.Failf(name, "%v is not a number from 0 to the limit %g", v, analyze.MaxRate)
	case prob && (v <= 0 || v >= 1):
		f.Failf(name, "%v is not a probability strictly between 0 and 1", v)
	}
	return v
}

// count reads an integer flag that must be from lo to the limit hi;
// required flags must be given, others default to their Value.
func (f *flagCheck) count(name string, lo, hi int, required bool) int {
	if required && !f.c.IsSet(name) {
		f.Failf(name, "required")
		return 0
	}
	v := f.c.Int(name)
	switch {
	case v < lo:
		f.Failf(name, "%d is below %d", v, lo)
	case v > hi:
		f.Failf(name, "%d is above the limit %d", v, hi)
	}
	return v
}

func (f *flagCheck) err() error {
	if f.c.Args().Present() {
		f.Errorf("unexpected argument %q", f.c.Args().First())
	}
	return f.Err(f.c)
}

// mmcFields is an M/M/c result for --json: the measures of the steady
// state are null when the queue is unstable (there is none), never 0.
type mmcFields struct {
	Lambda       float64  `json:"lambda"`
	Mu           float64  `json:"mu"`
	Servers      int      `json:"servers"`
	Load         float64  `json:"load"`
	Rho          float64  `json:"rho"`
	Stable       bool     `json:"stable"`
	Capacity     float64  `json:"capacity"`
	MinStable    int      `json:"min_stable_servers"`
	P0           *float64 `json:"p0"`
	PWait        float64  `json:"p_wait"`
	ErlangB      float64  `json:"erlang_b"`
	Log10P0      *float64 `json:"log10_p0"`
	Log10PWait   float64  `json:"log10_p_wait"`
	Log10ErlangB float64  `json:"log10_erlang_b"`
	Lq           *float64 `json:"lq"`
	L            *float64 `json:"l"`
	Wq           *float64 `json:"wq"`
	W            *float64 `json:"w"`
	Throughput   *float64 `json:"throughput"`
}

func mmcJSON(r analyze.MMcResult) mmcFields {
	v := func(x float64) *float64 {
		if !r.Stable {
			return nil
		}
		return &x
	}
	return mmcFields{Lambda: r.Lambda, Mu: r.Mu, Servers: r.Servers, Load: r.Load, Rho: r.Rho, Stable: r.Stable,
		Capacity: r.Capacity, MinStable: r.MinStable, P0: v(r.P0), PWait: r.PWait, ErlangB: r.ErlangB,
		Log10P0: v(r.Log10P0), Log10PWait: r.Log10PWait, Log10ErlangB: r.Log10ErlangB,
		Lq: v(r.Lq), L: v(r.L), Wq: v(r.Wq), W: v(r.W), Throughput: v(r.Throughput)}
}

// num formats a measure for a table: six significant digits.
func num(v float64) string {
	if math.IsInf(v, 1) {
		return "∞"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// prob formats a probability that may underflow float64: from its decimal
// logarithm when the value itself is 0.
func prob(v, log10 float64) string {
	if v == 0 && !math.IsInf(log10, -1) && log10 != 0 {
		mant := math.Pow(10, log10-math.Floor(log10))
		return fmt.Sprintf("%.4ge%d", mant, int(math.Floor(log10)))
	}
	return num(v)
}

func capacityFlag(aliases ...string) cli.Flag {
	return &cli.IntFlag{Name: "capacity", Aliases: aliases,
		Usage: fmt.Sprintf("room in the system, the ones in service included, at most %d (required)", analyze.MaxCapacity)}
}

// limitsHelp is the limits every calculator checks, for its help.
var limitsHelp = fmt.Sprintf("Limits, checked before any work (a usage error names the flag and the limit):\n"+
	"rates from %g to %g, times at most %g, the offered load λ/μ at most %g\n"+
	"Erlangs, at most %d servers and a capacity of at most %d.", analyze.MinRate, analyze.MaxRate, analyze.MaxRate,
	float64(analyze.MaxLoad), analyze.MaxServers, analyze.MaxCapacity)
