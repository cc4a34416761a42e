package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"calq/analyze"
)

func analyzeCommand() *cli.Command {
	return &cli.Command{
		Name:  "analyze",
		Usage: "queueing calculator: M/M/c, M/M/c/K, Erlang B/C, staffing, resize predictions, simulation, history",
		Description: "Exact queueing formulas at any size (Erlang B by recurrence, logs where values\n" +
			"would overflow), the calendar queue's resize predictor, a discrete-event\n" +
			"simulator and an analysis of the journal. Rates are per unit of time; times\n" +
			"come out in the same unit (λ = 2 per second gives W in seconds). Every\n" +
			"subcommand prints a table, or JSON with --json. An unstable queue (ρ ≥ 1)\n" +
			"is reported, not hidden: the exit status is 1.",
		Subcommands: []*cli.Command{
			analyzeMMcCommand(),
			analyzeMMcKCommand(),
			analyzeMM1NCommand(),
			analyzeErlangCommand(),
			analyzeSizeCommand(),
			analyzePoissonCommand(),
			analyzeResizeCommand(),
			analyzeSimulateCommand(),
			analyzeHistoryCommand(),
		},
	}
}

func rateFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Float64Flag{Name: "lambda", Aliases: []string{"l"}, Usage: "arrival rate λ (required)"},
		&cli.Float64Flag{Name: "mu", Aliases: []string{"m"}, Usage: "service rate μ of one server (required)"},
	}
}

func serversFlag(usage string) cli.Flag {
	return &cli.IntFlag{Name: "servers", Aliases: []string{"c"}, Usage: usage}
}

// flagCheck reads flags and collects what is wrong with them, so that one
// usage error names every bad flag.
type flagCheck struct {
	c    *cli.Context
	errs []error
}

func (f *flagCheck) fail(name, format string, args ...any) {
	f.errs = append(f.errs, fmt.Errorf("--%s: "+format, append([]any{name}, args...)...))
}

// positive reads a required flag that must be a positive finite number.
func (f *flagCheck) positive(name string) float64 {
	if !f.c.IsSet(name) {
		f.fail(name, "required")
		return 0
	}
	v := f.c.Float64(name)
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		f.fail(name, "%v is not a positive number", v)
	}
	return v
}

// optional reads a flag that, if given, must be a finite number ≥ 0 (and
// below 1 if prob); 0 when not given.
func (f *flagCheck) optional(name string, prob bool) float64 {
	if !f.c.IsSet(name) {
		return 0
	}
	v := f.c.Float64(name)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0) || v < 0:
		f.fail(name, "%v is not a non-negative number", v)
	case prob && (v <= 0 || v >= 1):
		f.fail(name, "%v is not a probability strictly between 0 and 1", v)
	}
	return v
}

// count reads an integer flag that must be at least lo; required flags
// must be given, others default to their Value.
func (f *flagCheck) count(name string, lo int, required bool) int {
	if required && !f.c.IsSet(name) {
		f.fail(name, "required")
		return 0
	}
	v := f.c.Int(name)
	if v < lo {
		f.fail(name, "%d is below %d", v, lo)
	}
	return v
}

func (f *flagCheck) err() error {
	if f.c.Args().Present() {
		f.errs = append(f.errs, fmt.Errorf("unexpected argument %q", f.c.Args().First()))
	}
	if len(f.errs) == 0 {
		return nil
	}
	return usageErrorf(f.c, "%w", errors.Join(f.errs...))
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

// measure is one row of a two-column table: a symbol with a plain name,
// and a value.
type measure struct{ name, value string }

func writeMeasures(w io.Writer, title string, rows []measure) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if title != "" {
		fmt.Fprintln(tw, title)
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\n", r.name, r.value)
	}
	return tw.Flush()
}

// unstableError reports ρ ≥ 1 after the results are printed: exit 1.
func unstableError(r analyze.MMcResult) error {
	return fmt.Errorf("the queue is unstable: ρ = %s ≥ 1, λ = %s is not below the capacity cμ = %s; at least %d servers are needed",
		num(r.Rho), num(r.Lambda), num(r.Capacity), r.MinStable)
}

// percentiles of the waiting time printed by mmc, and their JSON keys.
var waitPercentiles = []struct {
	key string
	p   float64
}{{"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}, {"p999", 0.999}}

// mmcOutput is calq analyze mmc --json: the measures, the waiting-time
// percentiles and P(Wq > t) for each --t.
type mmcOutput struct {
	mmcFields
	WqPercentiles map[string]float64 `json:"wq_percentiles"` // null when unstable
	WaitTail      []tailPoint        `json:"wait_tail,omitempty"`
	res           analyze.MMcResult
}

type tailPoint struct {
	T float64 `json:"t"`
	P float64 `json:"p_wq_above"`
}

func analyzeMMcCommand() *cli.Command {
	return &cli.Command{
		Name:  "mmc",
		Usage: "M/M/c: utilisation, P0, P(wait), Erlang B, Lq, L, Wq, W, and the waiting-time tail",
		Description: "Prints the steady-state measures of c servers fed by Poisson arrivals at λ,\n" +
			"each serving at μ (exponential), with an unlimited FIFO queue: ρ, P0, the\n" +
			"probability of waiting (Erlang C), Erlang B, Lq, L (Ls), Wq, W (Ws) and the\n" +
			"throughput; the waiting time's percentiles p50, p90, p99 and p99.9; and\n" +
			"P(Wq > t) for every --t. Probabilities too small for float64 print from\n" +
			"their logarithm (JSON: log10_p0, log10_p_wait, log10_erlang_b).\n\n" +
			`--json prints one line {"message_type":"mmc", "lambda", "mu", "servers", "load", "rho", "stable",` + "\n" +
			`"capacity", "min_stable_servers", "p0", "p_wait", "erlang_b", "log10_p0",` + "\n" +
			`"log10_p_wait", "log10_erlang_b", "lq", "l", "wq",` + "\n" +
			`"w", "throughput", "wq_percentiles" {"p50","p90","p99","p999"} and` + "\n" +
			`"wait_tail" [{"t","p_wq_above"}]}. When ρ ≥ 1 it says "stable": false,` + "\n" +
			"the capacity cμ and the smallest stable c, the measures of a steady state\n" +
			"(p0, lq, l, wq, w, throughput, the percentiles) are null, and calq exits 1.",
		Flags: append(rateFlags(),
			serversFlag("number of servers c (required)"),
			&cli.Float64SliceFlag{Name: "t", Usage: "print P(Wq > `T`); repeat or separate by commas"},
			jsonFlag),
		Action: func(c *cli.Context) error {
			f := &flagCheck{c: c}
			lambda, mu := f.positive("lambda"), f.positive("mu")
			servers := f.count("servers", 1, true)
			ts := c.Float64Slice("t")
			for _, t := range ts {
				if math.IsNaN(t) || math.IsInf(t, 0) || t < 0 {
					f.fail("t", "%v is not a non-negative time", t)
				}
			}
			if err := f.err(); err != nil {
				return err
			}
			r, err := analyze.MMc(lambda, mu, servers)
			if err != nil {
				return fmt.Errorf("analyze mmc: %w", err)
			}
			out := mmcOutput{mmcFields: mmcJSON(r), res: r}
			if r.Stable {
				out.WqPercentiles = map[string]float64{}
				for _, p := range waitPercentiles {
					out.WqPercentiles[p.key] = r.WaitPercentile(p.p)
				}
				for _, t := range ts {
					out.WaitTail = append(out.WaitTail, tailPoint{T: t, P: r.WaitTail(t)})
				}
			}
			if c.Bool("json") {
				err = writeJSONLine(c.App.Writer, "mmc", out)
			} else {
				err = writeMMc(c.App.Writer, out)
			}
			if err == nil && !r.Stable {
				err = unstableError(r)
			}
			return err
		},
	}
}

func writeMMc(w io.Writer, o mmcOutput) error {
	r := o.res
	title := fmt.Sprintf("M/M/%d: λ = %s, μ = %s, offered load a = λ/μ = %s Erlangs", r.Servers, num(r.Lambda), num(r.Mu), num(r.Load))
	rows := []measure{
		{"ρ   utilisation of each server (a/c)", num(r.Rho)},
		{"cμ  capacity (most completions per unit time)", num(r.Capacity)},
	}
	if !r.Stable {
		rows = append(rows,
			measure{"stable", fmt.Sprintf("no: ρ ≥ 1, the queue grows without bound; at least %d servers are needed", r.MinStable)},
			measure{"Erlang B (blocked if there were no queue)", prob(r.ErlangB, r.Log10ErlangB)})
		return writeMeasures(w, title, rows)
	}
	rows = append(rows,
		measure{"P0  probability the system is empty", prob(r.P0, r.Log10P0)},
		measure{"P(wait)  probability an arrival waits (Erlang C)", prob(r.PWait, r.Log10PWait)},
		measure{"Erlang B  blocked if there were no queue", prob(r.ErlangB, r.Log10ErlangB)},
		measure{"Lq  mean number waiting", num(r.Lq)},
		measure{"L   mean number in system (Ls)", num(r.L)},
		measure{"Wq  mean wait in queue", num(r.Wq)},
		measure{"W   mean time in system (Ws)", num(r.W)},
		measure{"throughput", num(r.Throughput)},
	)
	var ps []string
	for _, p := range waitPercentiles {
		ps = append(ps, p.key+" "+num(o.WqPercentiles[p.key]))
	}
	rows = append(rows, measure{"Wq percentiles", strings.Join(ps, "  ")})
	for _, t := range o.WaitTail {
		rows = append(rows, measure{"P(Wq > " + num(t.T) + ")", num(t.P)})
	}
	return writeMeasures(w, title, rows)
}

func capacityFlag(aliases ...string) cli.Flag {
	return &cli.IntFlag{Name: "capacity", Aliases: aliases,
		Usage: "room in the system, the ones in service included (required)"}
}

const mmckJSON = `--json prints one line {"message_type":"mmc", "lambda", "mu", "servers", "capacity", "rho", "p0",` + "\n" +
	`"p_block", "lambda_eff", "l", "lq", "w", "wq".`

func analyzeMMcKCommand() *cli.Command {
	return &cli.Command{
		Name:  "mmck",
		Usage: "M/M/c/K: finite room; blocking probability, effective arrival rate, L, Lq, W, Wq",
		Description: "Prints the steady-state measures of c exponential servers with room for K\n" +
			"jobs in all; arrivals that find K are turned away. Computed from the state\n" +
			"probabilities in logs, so it stays exact near ρ = 1 and for ρ > 1, where\n" +
			"closed forms cancel or overflow. A full system is never unstable.\n\n" + mmckJSON,
		Flags: append(rateFlags(), serversFlag("number of servers c (required)"), capacityFlag("K"), jsonFlag),
		Action: func(c *cli.Context) error {
			f := &flagCheck{c: c}
			lambda, mu := f.positive("lambda"), f.positive("mu")
			servers := f.count("servers", 1, true)
			k := f.count("capacity", 1, true)
			if len(f.errs) == 0 && k < servers {
				f.fail("capacity", "%d is below the %d servers", k, servers)
			}
			return runMMcK(c, f, lambda, mu, servers, k)
		},
	}
}

func analyzeMM1NCommand() *cli.Command {
	return &cli.Command{
		Name:  "mm1n",
		Usage: "M/M/1/N: one server, room for N; the model behind the calendar queue's resizes",
		Description: "Prints the M/M/c/K measures for one server and room for N (see calq analyze\n" +
			"mmck); exact near ρ = 1 and above it.\n\n" + mmckJSON,
		Flags: append(rateFlags(), capacityFlag("N"), jsonFlag),
		Action: func(c *cli.Context) error {
			f := &flagCheck{c: c}
			lambda, mu := f.positive("lambda"), f.positive("mu")
			return runMMcK(c, f, lambda, mu, 1, f.count("capacity", 1, true))
		},
	}
}

func runMMcK(c *cli.Context, f *flagCheck, lambda, mu float64, servers, k int) error {
	if err := f.err(); err != nil {
		return err
	}
	r, err := analyze.MMcK(lambda, mu, servers, k)
	if err != nil {
		return fmt.Errorf("analyze %s: %w", c.Command.Name, err)
	}
	if c.Bool("json") {
		return writeJSONLine(c.App.Writer, c.Command.Name, r)
	}
	title := fmt.Sprintf("M/M/%d/%d: λ = %s, μ = %s", servers, k, num(lambda), num(mu))
	return writeMeasures(c.App.Writer, title, []measure{
		{"ρ   offered load per server (λ/cμ; may exceed 1)", num(r.Rho)},
		{"P0  probability the system is empty", num(r.P0)},
		{"PK  blocking probability (an arrival finds it full)", num(r.PK)},
		{"λeff  effective arrival rate, λ(1 - PK)", num(r.LambdaEff)},
		{"L   mean number in system (Ls)", num(r.L)},
		{"Lq  mean number waiting", num(r.Lq)},
		{"W   mean time in system (Ws)", num(r.W)},
		{"Wq  mean wait in queue", num(r.Wq)},
	})
}

func analyzeErlangCommand() *cli.Command {
	flags := func() []cli.Flag {
		return []cli.Flag{
			serversFlag("number of servers c (required)"),
			&cli.Float64Flag{Name: "load", Aliases: []string{"a"}, Usage: "offered load a = λ/μ in Erlangs (required)"},
			jsonFlag,
		}
	}
	return &cli.Command{
		Name:  "erlang",
		Usage: "Erlang B (blocking) and Erlang C (probability of waiting)",
		Subcommands: []*cli.Command{
			{
				Name:  "b",
				Usage: "Erlang B: the probability an arrival is blocked by c busy servers with no queue (M/M/c/c)",
				Description: "By the recurrence B(k) = a·B(k-1)/(k + a·B(k-1)), exact for any c; where B\n" +
					"is below float64's range it prints from ln B.\n\n" +
					`--json prints one line {"message_type":"erlang_b", "servers", "load", "erlang_b", "log10_erlang_b"}.`,
				Flags: flags(),
				Action: func(c *cli.Context) error {
					return runErlang(c, func(r analyze.MMcResult) (any, []measure) {
						return struct {
								Servers int     `json:"servers"`
								Load    float64 `json:"load"`
								B       float64 `json:"erlang_b"`
								Log10B  float64 `json:"log10_erlang_b"`
							}{r.Servers, r.Load, r.ErlangB, r.Log10ErlangB},
							[]measure{{"Erlang B", prob(r.ErlangB, r.Log10ErlangB)}}
					})
				},
			},
			{
				Name:  "c",
				Usage: "Erlang C: the probability an arrival waits in M/M/c",
				Description: "C = B/(1 - ρ(1 - B)) with ρ = a/c. When a ≥ c the queue is unstable: C is\n" +
					"1, and calq exits 1.\n\n" +
					`--json prints one line {"message_type":"erlang_c", "servers", "load", "rho", "stable", "p_wait", "log10_p_wait"}.`,
				Flags: flags(),
				Action: func(c *cli.Context) error {
					return runErlang(c, func(r analyze.MMcResult) (any, []measure) {
						return struct {
								Servers int     `json:"servers"`
								Load    float64 `json:"load"`
								Rho     float64 `json:"rho"`
								Stable  bool    `json:"stable"`
								C       float64 `json:"p_wait"`
								Log10C  float64 `json:"log10_p_wait"`
							}{r.Servers, r.Load, r.Rho, r.Stable, r.PWait, r.Log10PWait},
							[]measure{{"ρ", num(r.Rho)}, {"Erlang C, P(wait)", prob(r.PWait, r.Log10PWait)}}
					})
				},
			},
		},
	}
}

// runErlang computes M/M/c for --servers and --load (μ = 1, λ = a) and
// prints what show picks from it. Only Erlang C cares about stability.
func runErlang(c *cli.Context, show func(analyze.MMcResult) (any, []measure)) error {
	f := &flagCheck{c: c}
	servers := f.count("servers", 1, true)
	load := f.positive("load")
	if err := f.err(); err != nil {
		return err
	}
	r, err := analyze.MMc(load, 1, servers)
	if err != nil {
		return fmt.Errorf("analyze erlang %s: %w", c.Command.Name, err)
	}
	v, rows := show(r)
	if c.Bool("json") {
		err = writeJSONLine(c.App.Writer, "erlang_"+c.Command.Name, v)
	} else {
		err = writeMeasures(c.App.Writer, fmt.Sprintf("c = %d servers, a = %s Erlangs", servers, num(load)), rows)
	}
	if err == nil && c.Command.Name == "c" && !r.Stable {
		err = fmt.Errorf("the queue is unstable: a = %s ≥ c = %d; at least %d servers are needed", num(load), servers, r.MinStable)
	}
	return err
}

// sizeRow is one row of calq analyze size --json.
type sizeRow struct {
	mmcFields
	PWithin *float64 `json:"p_within,omitempty"` // P(Wq ≤ --within)
	Meets   bool     `json:"meets"`
	res     analyze.MMcResult
}

func analyzeSizeCommand() *cli.Command {
	return &cli.Command{
		Name:  "size",
		Usage: "staffing: the fewest servers that meet a waiting target",
		Description: "Finds the smallest c for which M/M/c meets one target: --max-p-wait (P(wait)\n" +
			"at most P), --max-wq (mean wait at most T), or --service-level P --within T\n" +
			"(P(Wq ≤ T) at least P). The search carries Erlang B from one c to the next,\n" +
			"so it is linear in c (c = 10^6 takes milliseconds). Prints c and the\n" +
			"measures at c-1, c, c+1 and c+2.\n\n" +
			"Call-centre form: --calls N --interval 30m --aht 180s instead of --lambda and\n" +
			"--mu (λ = N per interval, μ = 1/AHT, both per second); --max-wq and --within\n" +
			"are then in seconds. --interval defaults to 1h.\n\n" +
			`--json prints one line {"message_type":"size", "servers": c, "target": {...}, "rows": [...]}, each row the` + "\n" +
			`fields of calq analyze mmc --json with "meets" (and "p_within" for a service level).`,
		Flags: append(rateFlags(),
			&cli.Float64Flag{Name: "calls", Usage: "call-centre form: `N` calls per --interval (instead of --lambda and --mu)"},
			&cli.DurationFlag{Name: "interval", Value: time.Hour, Usage: "the interval --calls arrive in, e.g. 30m"},
			&cli.DurationFlag{Name: "aht", Usage: "call-centre form: the average handling time, e.g. 180s (with --calls)"},
			&cli.Float64Flag{Name: "max-p-wait", Usage: "target: P(wait) at most `P`"},
			&cli.Float64Flag{Name: "max-wq", Usage: "target: mean wait at most `T`"},
			&cli.Float64Flag{Name: "service-level", Usage: "target: P(Wq ≤ --within) at least `P`"},
			&cli.Float64Flag{Name: "within", Usage: "the time `T` of --service-level"},
			jsonFlag),
		Action: func(c *cli.Context) error {
			f := &flagCheck{c: c}
			lambda, mu := sizeRates(f)
			t := analyze.Target{
				MaxPWait:     f.optional("max-p-wait", true),
				MaxWq:        f.optional("max-wq", false),
				ServiceLevel: f.optional("service-level", true),
				Within:       f.optional("within", false),
			}
			set := 0
			for _, n := range []string{"max-p-wait", "max-wq", "service-level"} {
				if c.IsSet(n) {
					set++
				}
			}
			switch {
			case set == 0:
				f.fail("max-p-wait", "missing target: give one of --max-p-wait, --max-wq, or --service-level with --within")
			case set > 1:
				f.fail("max-p-wait", "give only one target of --max-p-wait, --max-wq and --service-level")
			case c.IsSet("service-level") && !c.IsSet("within"):
				f.fail("within", "required with --service-level")
			case c.IsSet("within") && !c.IsSet("service-level"):
				f.fail("within", "only with --service-level")
			case c.IsSet("max-wq") && t.MaxWq == 0:
				f.fail("max-wq", "0 cannot be met: some arrivals always wait")
			}
			if err := f.err(); err != nil {
				return err
			}
			n, around, err := analyze.Size(lambda, mu, t)
			if err != nil {
				return fmt.Errorf("analyze size: %w", err)
			}
			rows := make([]sizeRow, len(around))
			for i, r := range around {
				rows[i] = sizeRow{mmcFields: mmcJSON(r), Meets: t.Met(r), res: r}
				if t.ServiceLevel > 0 {
					p := 1 - r.WaitTail(t.Within)
					rows[i].PWithin = &p
				}
			}
			if c.Bool("json") {
				return writeJSONLine(c.App.Writer, "size", struct {
					Servers int            `json:"servers"`
					Target  map[string]any `json:"target"`
					Rows    []sizeRow      `json:"rows"`
				}{n, targetJSON(t), rows})
			}
			return writeSize(c.App.Writer, n, t, rows)
		},
	}
}

// sizeRates reads λ and μ from --lambda and --mu, or from the call-centre
// form --calls, --interval and --aht (per second); mixing the two, or an
// incomplete call-centre form, is a usage error naming the flags.
func sizeRates(f *flagCheck) (lambda, mu float64) {
	c := f.c
	if !c.IsSet("calls") && !c.IsSet("aht") && !c.IsSet("interval") {
		return f.positive("lambda"), f.positive("mu")
	}
	for _, n := range []string{"lambda", "mu"} {
		if c.IsSet(n) {
			f.fail(n, "give --lambda and --mu, or --calls, --interval and --aht; not both")
		}
	}
	calls := f.positive("calls")
	interval, aht := c.Duration("interval"), c.Duration("aht")
	if interval <= 0 {
		f.fail("interval", "%v is not a positive duration", interval)
	}
	switch {
	case !c.IsSet("aht"):
		f.fail("aht", "required with --calls (the average handling time, e.g. 180s)")
	case aht <= 0:
		f.fail("aht", "%v is not a positive duration", aht)
	}
	if len(f.errs) > 0 {
		return 0, 0
	}
	return calls / interval.Seconds(), 1 / aht.Seconds()
}

func targetJSON(t analyze.Target) map[string]any {
	switch {
	case t.MaxPWait > 0:
		return map[string]any{"max_p_wait": t.MaxPWait}
	case t.MaxWq > 0:
		return map[string]any{"max_wq": t.MaxWq}
	}
	return map[string]any{"service_level": t.ServiceLevel, "within": t.Within}
}

func targetText(t analyze.Target) string {
	switch {
	case t.MaxPWait > 0:
		return "P(wait) ≤ " + num(t.MaxPWait)
	case t.MaxWq > 0:
		return "Wq ≤ " + num(t.MaxWq)
	}
	return fmt.Sprintf("P(Wq ≤ %s) ≥ %s", num(t.Within), num(t.ServiceLevel))
}

func writeSize(w io.Writer, n int, t analyze.Target, rows []sizeRow) error {
	fmt.Fprintf(w, "%d servers: the fewest with %s (λ = %s, μ = %s)\n\n", n, targetText(t), num(rows[0].res.Lambda), num(rows[0].res.Mu))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "c\tρ\tP(wait)\tLq\tWq\tW\t"
	if t.ServiceLevel > 0 {
		head += "P(Wq ≤ " + num(t.Within) + ")\t"
	}
	fmt.Fprintln(tw, head+"meets\t")
	for _, r := range rows {
		if !r.res.Stable {
			fmt.Fprintf(tw, "%d\t%s\tunstable\t\t\t\t", r.res.Servers, num(r.res.Rho))
			if t.ServiceLevel > 0 {
				fmt.Fprint(tw, "\t")
			}
			fmt.Fprintln(tw, "no\t")
			continue
		}
		m := r.res
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t", m.Servers, num(m.Rho), prob(m.PWait, m.Log10PWait), num(m.Lq), num(m.Wq), num(m.W))
		if r.PWithin != nil {
			fmt.Fprintf(tw, "%s\t", num(*r.PWithin))
		}
		fmt.Fprintf(tw, "%s\t\n", yesNo(r.Meets))
	}
	return tw.Flush()
}

func analyzePoissonCommand() *cli.Command {
	return &cli.Command{
		Name:  "poisson",
		Usage: "P(n arrivals in time t) for Poisson arrivals at rate λ",
		Description: "Prints, for each n, P(N = n), P(N ≤ n) and P(N > n), where N counts the\n" +
			"arrivals in a time t of a Poisson process of rate λ (mean λt). By default\n" +
			"the rows hold all but 10^-6 of the probability on either side; --from and\n" +
			"--to choose them. Each tail is summed from its own end, so small tails keep\n" +
			"their digits.\n\n" +
			`--json prints one line {"message_type":"poisson", "lambda", "t", "mean", "rows": [{"n", "p", "p_at_most", "p_more"}]}.`,
		Flags: []cli.Flag{
			&cli.Float64Flag{Name: "lambda", Aliases: []string{"l"}, Usage: "arrival rate λ (required)"},
			&cli.Float64Flag{Name: "t", Usage: "length of the interval (required)"},
			&cli.IntFlag{Name: "from", Value: -1, Usage: "first `N` to print (default: where the lower tail passes 10^-6)"},
			&cli.IntFlag{Name: "to", Value: -1, Usage: "last `N` to print (default: where the upper tail falls below 10^-6)"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			f := &flagCheck{c: c}
			lambda, t := f.positive("lambda"), f.positive("t")
			lo, hi := -1, -1
			if c.IsSet("from") {
				lo = f.count("from", 0, false)
			}
			if c.IsSet("to") {
				hi = f.count("to", 0, false)
			}
			if lo >= 0 && hi >= 0 && hi < lo {
				f.fail("to", "%d is below --from %d", hi, lo)
			}
			if err := f.err(); err != nil {
				return err
			}
			rows, err := analyze.Poisson(lambda, t, lo, hi)
			if err != nil {
				if errors.Is(err, analyze.ErrInput) {
					return usageErrorf(c, "--lambda, --t: %w", err)
				}
				return fmt.Errorf("analyze poisson: %w", err)
			}
			if c.Bool("json") {
				return writeJSONLine(c.App.Writer, "poisson", struct {
					Lambda float64              `json:"lambda"`
					T      float64              `json:"t"`
					Mean   float64              `json:"mean"`
					Rows   []analyze.PoissonRow `json:"rows"`
				}{lambda, t, lambda * t, rows})
			}
			fmt.Fprintf(c.App.Writer, "Poisson arrivals: λ = %s, t = %s, mean λt = %s\n\n", num(lambda), num(t), num(lambda*t))
			tw := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "n\tP(N = n)\tP(N ≤ n)\tP(N > n)\t")
			for _, r := range rows {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t\n", r.N, num(r.P), num(r.AtMost), num(r.More))
			}
			return tw.Flush()
		},
	}
}

func analyzeResizeCommand() *cli.Command {
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
			"last is null when no trigger can be reached.",
		Flags: append(rateFlags(),
			capacityFlag("N"),
			&cli.IntFlag{Name: "buckets", Usage: "buckets NB in the calendar now (required)"},
			&cli.IntFlag{Name: "events", Usage: "events NE in the queue now (default: the predicted L)"},
			jsonFlag),
		Action: func(c *cli.Context) error {
			f := &flagCheck{c: c}
			lambda, mu := f.positive("lambda"), f.positive("mu")
			n := f.count("capacity", 1, true)
			nb := f.count("buckets", 1, true)
			ne := -1
			if c.IsSet("events") {
				ne = f.count("events", 0, false)
				if len(f.errs) == 0 && ne > n {
					f.fail("events", "%d is more than the capacity %d", ne, n)
				}
			}
			if err := f.err(); err != nil {
				return err
			}
			r, err := analyze.PredictResize(lambda, mu, n, nb, ne)
			if err != nil {
				return fmt.Errorf("analyze resize: %w", err)
			}
			if c.Bool("json") {
				return writeJSONLine(c.App.Writer, "resize", r)
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
	return writeMeasures(w, title, []measure{
		{"ρ   λ/μ", num(r.Rho)},
		{"L   predicted mean number of events (M/M/1/N)", num(r.L)},
		{"NB  buckets now", strconv.Itoa(r.Buckets)},
		{"NE  events now", strconv.Itoa(r.Events)},
		{"grows when", fmt.Sprintf("NE > %d", r.GrowAbove)},
		{"shrinks when", shrink},
		{"resize triggered now", r.Trigger},
		{"NB a resize at NE would choose", strconv.Itoa(r.TargetBuckets)},
		{fmt.Sprintf("P(NE > %d)  steady state", r.GrowAbove), num(r.PGrow)},
		{"P(NE < shrink trigger)  steady state", num(r.PShrink)},
		{"up-crossings of the grow trigger per unit time", num(r.UpCrossings)},
		{"down-crossings of the shrink trigger per unit time", num(r.DownCrossings)},
		{"expected time until the next resize", next},
	})
}
