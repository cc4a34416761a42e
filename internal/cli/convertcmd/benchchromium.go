package convertcmd

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/internal/serve/webbench"
)

// chromiumBenchFlags are calq convert bench --chromium's own flags.
func chromiumBenchFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "chromium", Usage: "measure calq serve's Chromium routes instead: one chromium per file, Gotenberg (with --gotenberg) and calq serve at 1 and 4 clients, a warm one-page HTML and Markdown page, the browsers' memory over --memory conversions, and calq serve's own CPU per conversion"},
		&cli.StringFlag{Name: "gotenberg", Usage: "with --chromium: measure the Gotenberg binary at `PATH` too (it is started on loopback, on the same chromium)"},
		&cli.IntFlag{Name: "memory", Value: 1000, Usage: "with --chromium: the conversions of the memory run"},
		&cli.IntFlag{Name: "latency", Value: 20, Usage: "with --chromium: the warm one-page conversions timed for each median"},
		&cli.StringFlag{Name: "chromium-binary", EnvVars: []string{"CALQ_CHROMIUM"}, Usage: "with --chromium: the chromium program", DefaultText: "chromium on PATH"},
	}
}

// chromiumBench is calq convert bench --chromium (see webbench).
func chromiumBench(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return base.Usagef(c, "unexpected argument %q", c.Args().First())
	}
	o := webbench.Options{Chromium: c.String("chromium-binary"), Gotenberg: c.String("gotenberg"),
		Documents: c.Int("count"), Copies: c.Int("copies"), NaiveFiles: c.Int("naive-files"), Memory: c.Int("memory"), Latency: c.Int("latency"), Log: c.App.ErrWriter}
	if !c.IsSet("naive-files") {
		o.NaiveFiles = min(o.NaiveFiles, o.Documents)
	}
	if err := o.Check(); err != nil {
		return base.Usagef(c, "%v", err)
	}
	res, err := webbench.Run(c.Context, o)
	if err != nil {
		return fmt.Errorf("convert %w", err)
	}
	if c.Bool("json") {
		return base.WriteJSONLine(c.App.Writer, "convert_bench_chromium", res)
	}
	return base.WriteMeasures(c.App.Writer, fmt.Sprintf("%s (%d pages), each sent %s by a run, on %d cores",
		base.Plural(res.Documents, "HTML document"), res.Pages, base.Plural(res.Copies, "time"), res.Cores), chromiumMeasures(res))
}

func chromiumMeasures(res webbench.Result) []base.Measure {
	g := res.Gotenberg
	either := func(calq, gotenberg string) string {
		if g == nil {
			return calq
		}
		return calq + ", Gotenberg " + gotenberg
	}
	ms := []base.Measure{{Name: "(a) one chromium per file", Value: fmt.Sprintf("%.2f documents/s (on %d of them)", res.NaiveDPS, res.NaiveFiles)}}
	if g == nil {
		ms = append(ms, base.Measure{Name: "(b) Gotenberg", Value: "not measured (give --gotenberg PATH)"})
	} else {
		ms = append(ms, base.Measure{Name: "(b) Gotenberg, 1 client", Value: fmt.Sprintf("%.2f documents/s", g.DPS1)},
			base.Measure{Name: "(b) Gotenberg, 4 clients", Value: fmt.Sprintf("%.2f documents/s", g.DPS4)})
	}
	ms = append(ms, base.Measure{Name: "(c) calq serve, 1 client", Value: fmt.Sprintf("%.2f documents/s", res.Calq.DPS1)},
		base.Measure{Name: "(c) calq serve, 4 clients", Value: fmt.Sprintf("%.2f documents/s", res.Calq.DPS4)})
	if res.VsGotenberg != nil {
		ms = append(ms, base.Measure{Name: "(c) ÷ (b) at 4 clients", Value: fmt.Sprintf("%.2f× (goal ≥ 2×: %s)", *res.VsGotenberg, base.YesNo(*res.VsGotenberg >= 2))})
	}
	ms = append(ms, base.Measure{Name: "(c) ÷ (a) at 4 clients", Value: fmt.Sprintf("%.1f×", res.VsNaive)},
		base.Measure{Name: "(d) warm one-page HTML", Value: either(fmt.Sprintf("calq %.0f ms (goal < 150 ms: %s)", res.Calq.HTMLMillis,
			base.YesNo(res.Calq.HTMLMillis < 150)), fmt.Sprintf("%.0f ms", gotenbergOr(g, func(s *webbench.Server) float64 { return s.HTMLMillis })))},
		base.Measure{Name: "(e) warm one-page Markdown", Value: either(fmt.Sprintf("calq %.0f ms", res.Calq.MarkdownMillis),
			fmt.Sprintf("%.0f ms", gotenbergOr(g, func(s *webbench.Server) float64 { return s.MarkdownMillis })))},
		base.Measure{Name: "first PDF, browser start included", Value: either(fmt.Sprintf("calq %.2fs", res.Calq.FirstPDFSeconds),
			fmt.Sprintf("%.2fs", gotenbergOr(g, func(s *webbench.Server) float64 { return s.FirstPDFSeconds })))},
		base.Measure{Name: "(f) the browsers' memory", Value: memory(res.Calq.Memory, g)})
	cpu := "not measured (the clients ran in calq's process)"
	if res.CalqCPUMillis != nil {
		cpu = fmt.Sprintf("%.2f ms per conversion (goal < 5 ms: %s)", *res.CalqCPUMillis, base.YesNo(*res.CalqCPUMillis < 5))
	}
	return append(ms, base.Measure{Name: "(g) calq serve's own CPU", Value: cpu})
}

func gotenbergOr(g *webbench.Server, f func(*webbench.Server) float64) float64 {
	if g == nil {
		return 0
	}
	return f(g)
}

// memory is "calq 310 MB after 100, ... conversions; Gotenberg ...".
func memory(calq []webbench.RSS, g *webbench.Server) string {
	line := func(rs []webbench.RSS) string {
		var parts []string
		for _, r := range rs {
			parts = append(parts, fmt.Sprintf("%.0f MB after %d", float64(r.Bytes)/(1<<20), r.Conversions))
		}
		return strings.Join(parts, ", ") + " conversions"
	}
	s := "calq " + line(calq)
	if g != nil {
		s += "; Gotenberg " + line(g.Memory)
	}
	return s
}
