package smscmd

import (
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/internal/serve/smshttpbench"
	"calq/sms/smsbench"
)

func benchCommand() *cli.Command {
	return &cli.Command{
		Name:  "bench",
		Usage: "measure sending throughput through 1..16 emulated modems, and calq's own time per message",
		Description: "Sends one-part messages through emulated modems that take --latency per part,\n" +
			"for each pool size of --modems, and prints messages per second and the ratio to\n" +
			"one modem's (goal: at least 0.9·n); then calq's own time per message (codec,\n" +
			"journal, dispatch) from a zero-latency run on one modem (goal: under 1 ms).\n" +
			`--json prints {"message_type":"sms_bench","latency_ns","rows":[{"modems",` + "\n" +
			`"messages","seconds","per_second","ratio","goal","ok"}],"own_per_message_ns",` + "\n" +
			`"own_goal_ns","own_ok"}.` + "\n\n" +
			"--http measures SMS over HTTP instead, in one run on the same emulated modems\n" +
			"(--modems, one value; 4 by default): messages per second through calq serve's\n" +
			"POST /sms and Kannel's /cgi-bin/sendsms (--clients requests at once) against calq\n" +
			"sms send's (the baseline; goal: each HTTP path at least 0.95 of it), then the time\n" +
			"from the emulator's status report to the reportUrl call for --reports messages\n" +
			"(median and 90th percentile; goal: median under 50 ms). --json prints\n" +
			`{"message_type":"sms_http_bench","modems","latency_ns","rows":[{"path","messages",` + "\n" +
			`"seconds","per_second","ratio","goal","ok"}],"reports","report_median_ns",` + "\n" +
			`"report_p90_ns","report_goal_ns","report_ok"}.`,
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "latency", Value: 100 * time.Millisecond, Usage: "the emulator's time per part (real modems take 3-10 s)"},
			&cli.IntSliceFlag{Name: "modems", Value: cli.NewIntSlice(1, 2, 4, 8, 16), Usage: "pool sizes"},
			&cli.IntFlag{Name: "per-modem", Value: 25, Usage: "messages per modem in each run"},
			&cli.BoolFlag{Name: "http", Usage: "measure POST /sms and /cgi-bin/sendsms against calq sms send, and status reports to reportUrl"},
			&cli.IntFlag{Name: "clients", Usage: "--http: requests at once", DefaultText: "the modems"},
			&cli.IntFlag{Name: "reports", Value: 20, Usage: "--http: messages whose status report is timed to its reportUrl"},
			base.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			switch {
			case c.Args().Present():
				return base.Usagef(c, "unexpected argument %q", c.Args().First())
			case c.Duration("latency") <= 0:
				return base.Usagef(c, "--latency: %v is not positive", c.Duration("latency"))
			case c.Int("per-modem") < 1 || c.Int("per-modem") > 10000:
				return base.Usagef(c, "--per-modem: %d is not between 1 and 10000", c.Int("per-modem"))
			}
			for _, n := range c.IntSlice("modems") {
				if n < 1 || n > 256 {
					return base.Usagef(c, "--modems: %d is not between 1 and 256", n)
				}
			}
			dir, err := os.MkdirTemp("", "calq-sms-bench-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			if c.Bool("http") {
				return benchHTTP(c, dir)
			}
			res, err := smsbench.Run(c.Context, smsbench.Options{Dir: dir, Latency: c.Duration("latency"),
				Modems: c.IntSlice("modems"), PerModem: c.Int("per-modem")})
			if err != nil {
				return err
			}
			return renderSMSBench(c, res)
		},
	}
}

// benchHTTP is calq sms bench --http.
func benchHTTP(c *cli.Context, dir string) error {
	o := smshttpbench.Options{Dir: dir, Modems: 4, Latency: c.Duration("latency"), PerModem: c.Int("per-modem"),
		Clients: c.Int("clients"), Reports: c.Int("reports")}
	if c.IsSet("modems") {
		if ms := c.IntSlice("modems"); len(ms) != 1 {
			return base.Usagef(c, "--modems: --http measures one pool size, not %d", len(ms))
		}
		o.Modems = c.IntSlice("modems")[0]
	}
	if o.Clients < 0 || o.Reports < 1 || o.Reports > 10000 {
		return base.Usagef(c, "--clients %d, --reports %d: want 0 or more clients and 1 to 10000 reports", o.Clients, o.Reports)
	}
	res, err := smshttpbench.Run(c.Context, o)
	if err != nil {
		return err
	}
	w := c.App.Writer
	if c.Bool("json") {
		return base.WriteJSONLine(w, "sms_http_bench", res)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "%d modems, latency per part: %v\n", res.Modems, res.Latency)
	fmt.Fprintln(tw, "PATH\tMESSAGES\tSECONDS\tMSG/S\tRATIO\tGOAL\tOK")
	for _, r := range res.Rows {
		goal, ok := "baseline", ""
		if r.Goal > 0 {
			goal, ok = fmt.Sprintf(">= %.2f", r.Goal), fmt.Sprint(r.OK)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.1f\t%.3f\t%s\t%s\n", r.Path, r.Messages, r.Seconds, r.PerSecond, r.Ratio, goal, ok)
	}
	fmt.Fprintf(tw, "status report to reportUrl (%d reports): median %v, p90 %v (goal: median < %v, ok %v)\n", res.Reports,
		res.ReportMedian.Round(100*time.Microsecond), res.ReportP90.Round(100*time.Microsecond), res.ReportGoal, res.ReportOK)
	return tw.Flush()
}

func renderSMSBench(c *cli.Context, res smsbench.Result) error {
	w := c.App.Writer
	if c.Bool("json") {
		return base.WriteJSONLine(w, "sms_bench", res)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "latency per part: %v\n", res.Latency)
	fmt.Fprintln(tw, "MODEMS\tMESSAGES\tSECONDS\tMSG/S\tRATIO\tGOAL\tOK")
	for _, r := range res.Rows {
		fmt.Fprintf(tw, "%d\t%d\t%.3f\t%.1f\t%.2f\t%.1f\t%v\n", r.Modems, r.Messages, r.Seconds, r.PerSecond, r.Ratio, r.Goal, r.OK)
	}
	fmt.Fprintf(tw, "calq's own time per message: %v (goal < %v, ok %v)\n", res.OwnPerMessage.Round(time.Microsecond), res.OwnGoal, res.OwnOK)
	return tw.Flush()
}
