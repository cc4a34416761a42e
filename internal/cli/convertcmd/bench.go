package convertcmd

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"calq/convert/convertbench"
	"calq/internal/cli/base"
	"calq/internal/serve/servebench"
)

func benchCommand() *cli.Command {
	return &cli.Command{
		Name:      "bench",
		Usage:     "time calq against one soffice per file and one batched soffice call",
		ArgsUsage: " ",
		Description: "Converts the same documents several ways in one run, each end to end, and\n" +
			"prints documents per second and the ratios: (a) one `soffice --headless\n" +
			"--convert-to pdf` process per file, as most scripts do (on the first\n" +
			"--naive-files documents: it costs about a second each), (b) one soffice call\n" +
			"with all the files, (c) calq convert with one LibreOffice instance and (d)\n" +
			"with --instances, each starting its own (start-up counted), and the limit:\n" +
			"one soffice start (timed converting one tiny file) plus the batch's own work\n" +
			"spread over every core. It also prints the time from calq's start to its\n" +
			"first PDF. The documents are the office files in --corpus DIR (doc, docx, odt,\n" +
			"rtf, txt, html, csv, xls, xlsx, ods, ppt, pptx, odp), by default the\n" +
			"real-world ones in calq's testdata/convert (run from calq's source tree),\n" +
			"each --copies times; or --generate small|large DOCX files.\n\n" +
			"With --server it measures calq serve (see the flag), and ends with what a\n" +
			"conversion costs calq serve itself: --cost-documents requests on --route from\n" +
			"as many clients as instances, and the processor time of calq serve's own\n" +
			"process per conversion (goal: at most 5 ms) beside its converter's, with their\n" +
			"ratio (--cost-only: that alone; --cpuprofile FILE: calq serve's profile of it).\n\n" +
			"With --pdf it measures pdfcpu's work instead: --count operations of each\n" +
			"kind (pass through 3 pages, rotate 100, a PNG to PDF) in calq's own process,\n" +
			"then in one warm helper process, as calq does them, with the ratio, and a\n" +
			"helper's start; --json prints one line {\"message_type\":\"convert_bench_pdf\",\n" +
			"\"operations\",\"helper_start_seconds\",\"kinds\":[{\"name\",\"in_process_ms\",\n" +
			"\"helper_ms\",\"helper_vs_in_process\"}]}.\n\n" +
			"With --chromium it measures calq serve's Chromium routes on --count generated\n" +
			"HTML documents (one page and six pages, with a stylesheet and an image): (a)\n" +
			"one `chromium --headless --print-to-pdf` per file (on --naive-files of\n" +
			"them), (b) Gotenberg's /forms/chromium/convert/html at 1 and 4 clients\n" +
			"(with --gotenberg PATH) and (c) calq serve's, each document sent --copies\n" +
			"times; (d) a warm one-page HTML and (e) Markdown page on both; (f) the\n" +
			"browsers' memory after a tenth, half and all of --memory conversions and\n" +
			"(g) calq serve's own CPU per conversion over them (the clients run in a\n" +
			"process of their own); --json prints one line\n" +
			`{"message_type":"convert_bench_chromium","documents","copies","pages",` + "\n" +
			`"cores","naive_files","naive_dps","calq":{"first_pdf_seconds","dps_1",` + "\n" +
			`"dps_4","html_ms","markdown_ms","memory":[{"conversions","bytes"}]},` + "\n" +
			`"gotenberg" (the same, or null),"calq_cpu_ms","calq_vs_gotenberg",` + "\n" +
			`"calq_vs_naive"}.` + "\n\n" +
			`--json prints one line {"message_type":"convert_bench","files","cores",` + "\n" +
			`"instances","naive_files","naive_dps","batch_dps","start_seconds","limit_dps",` + "\n" +
			`"calq1_dps","calq_dps","calq1_first_pdf_seconds","calq_first_pdf_seconds",` + "\n" +
			`"vs_naive","vs_batch","calq1_vs_batch","limit_vs_batch"}.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "corpus", Usage: "bench on DIR's office files", DefaultText: "testdata/convert's real-world files"},
			&cli.IntFlag{Name: "copies", Value: 2, Usage: "convert each document this many times"},
			&cli.StringFlag{Name: "generate", Usage: "bench on generated documents: small or large (instead of a corpus)"},
			&cli.IntFlag{Name: "count", Value: 20, Usage: "how many documents --generate writes"},
			&cli.IntFlag{Name: "instances", Usage: "calq's LibreOffice instances in (d)", DefaultText: "as calq convert chooses"},
			&cli.IntFlag{Name: "naive-files", Value: 12, Usage: "documents (a) converts, one soffice each"},
			&cli.StringFlag{Name: "soffice", EnvVars: []string{"CALQ_SOFFICE"}, Usage: "the soffice program"},
			&cli.BoolFlag{Name: "server", Usage: "measure calq serve instead: batched soffice, calq convert cold, calq convert --server warm, 1, 2 and 4 HTTP clients, and the HTTP overhead per request"},
			&cli.StringFlag{Name: "route", Value: servebench.RouteOffice, Usage: "with --server: the route whose cost calq serve's own processor time per conversion is measured on: " + servebench.RouteOffice + " (the documents) or " + servebench.RouteChromium + " (one page of HTML)"},
			&cli.IntFlag{Name: "cost-documents", Value: 200, Usage: "with --server: conversions the cost is measured on"},
			&cli.BoolFlag{Name: "cost-only", Usage: "with --server: measure the cost alone"},
			&cli.StringFlag{Name: "cpuprofile", Usage: "with --server: write calq serve's CPU profile while the cost is measured to `FILE`"},
			&cli.BoolFlag{Name: "pdf", Usage: "measure pdfcpu's work in a helper process (as calq does it) against the same in calq's own process: --count operations of each kind each way, and a helper's start"},
			base.JSONFlag(),
		}, chromiumBenchFlags()...),
		Action: func(c *cli.Context) error {
			if c.Bool("pdf") {
				return pdfBench(c)
			}
			if c.Bool("chromium") {
				return chromiumBench(c)
			}
			files, cleanup, err := benchFiles(c)
			if err != nil {
				return err
			}
			defer cleanup()
			if c.Bool("server") {
				return serverBench(c, files)
			}
			res, err := convertbench.Run(c.Context, convertbench.Options{Files: files, Soffice: c.String("soffice"),
				Copies: c.Int("copies"), Instances: c.Int("instances"), NaiveFiles: c.Int("naive-files"), Log: c.App.ErrWriter})
			if err != nil {
				return fmt.Errorf("convert %w", err)
			}
			if c.Bool("json") {
				return base.WriteJSONLine(c.App.Writer, "convert_bench", res)
			}
			return base.WriteMeasures(c.App.Writer, fmt.Sprintf("%s on %d cores", base.Plural(res.Files, "document"), res.Cores), []base.Measure{
				{Name: "(a) one soffice per file", Value: fmt.Sprintf("%.2f documents/s (on %d of them)", res.NaiveDPS, res.NaiveFiles)},
				{Name: "(b) one soffice call for all", Value: fmt.Sprintf("%.2f documents/s", res.BatchDPS)},
				{Name: "(c) calq, 1 instance", Value: fmt.Sprintf("%.2f documents/s, first PDF after %.2fs", res.Calq1DPS, res.Calq1FirstSeconds)},
				{Name: fmt.Sprintf("(d) calq, %d instances", res.Instances), Value: fmt.Sprintf("%.2f documents/s, first PDF after %.2fs", res.CalqDPS, res.CalqFirstSeconds)},
				{Name: "limit", Value: fmt.Sprintf("%.2f documents/s (soffice start %.2fs, then (b)'s work over %d cores)", res.LimitDPS, res.StartSeconds, res.Cores)},
				{Name: "(d) ÷ (a)", Value: fmt.Sprintf("%.1f×", res.VsNaive)},
				{Name: "(c) ÷ (b)", Value: fmt.Sprintf("%.2f× (goal ≥ 1.0×: %s)", res.Calq1VsBatch, base.YesNo(res.Calq1VsBatch >= 1))},
				{Name: "(d) ÷ (b)", Value: fmt.Sprintf("%.2f× (goal ≥ 1.5×: %s)", res.VsBatch, base.YesNo(res.VsBatch >= 1.5))},
				{Name: "limit ÷ (b)", Value: fmt.Sprintf("%.2f×", res.LimitVsBatch)},
				{Name: "first PDF", Value: fmt.Sprintf("%.2fs with 1 instance, %.2fs with %d (goal ≤ 2s: %s)", res.Calq1FirstSeconds,
					res.CalqFirstSeconds, res.Instances, base.YesNo(max(res.Calq1FirstSeconds, res.CalqFirstSeconds) <= 2))},
			})
		},
	}
}

// benchOffice are the extensions of the documents a corpus gives the bench.
var benchOffice = []string{".doc", ".docx", ".odt", ".rtf", ".txt", ".html", ".htm", ".csv",
	".xls", ".xlsx", ".ods", ".ppt", ".pptx", ".odp"}

// defaultBenchCorpus is where the real-world documents are, below calq's
// source tree.
const defaultBenchCorpus = "testdata/convert"

// benchFiles lists the corpus's office documents, or generates some.
func benchFiles(c *cli.Context) ([]string, func(), error) {
	gen, dir := c.String("generate"), c.String("corpus")
	switch {
	case c.Args().Len() > 0:
		return nil, nil, base.Usagef(c, "unexpected argument %q (give the documents' directory as --corpus DIR)", c.Args().First())
	case gen != "" && dir != "":
		return nil, nil, base.Usagef(c, "give --corpus or --generate, not both")
	case gen != "" && gen != "small" && gen != "large":
		return nil, nil, base.Usagef(c, "--generate: %q, want small or large", gen)
	case c.Int("count") < 1:
		return nil, nil, base.Usagef(c, "--count: %d, want at least 1", c.Int("count"))
	case c.Int("copies") < 1 || c.Int("copies") > 100:
		return nil, nil, base.Usagef(c, "--copies: %d, want 1 to 100", c.Int("copies"))
	case c.Int("naive-files") < 1:
		return nil, nil, base.Usagef(c, "--naive-files: %d, want at least 1", c.Int("naive-files"))
	case c.IsSet("instances") && c.Int("instances") < 1:
		return nil, nil, base.Usagef(c, "--instances: %d, want at least 1", c.Int("instances"))
	}
	if gen != "" {
		tmp, err := os.MkdirTemp("", "calq-bench-docs-")
		if err != nil {
			return nil, nil, err
		}
		files, err := convertbench.GenerateDocs(tmp, c.Int("count"), gen)
		return files, func() { os.RemoveAll(tmp) }, err
	}
	if dir == "" {
		var files []string
		for _, name := range convertbench.DefaultCorpus {
			abs, err := filepath.Abs(filepath.Join(defaultBenchCorpus, name))
			if err == nil {
				_, err = os.Stat(abs)
			}
			if err != nil {
				return nil, nil, fmt.Errorf("convert bench: the default corpus is calq's %s, from calq's source tree; give --corpus DIR elsewhere: %w", defaultBenchCorpus, err)
			}
			files = append(files, abs)
		}
		return files, func() {}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("convert bench: --corpus: %w", err)
	}
	var files []string
	for _, e := range entries {
		if e.Type().IsRegular() && slices.Contains(benchOffice, strings.ToLower(filepath.Ext(e.Name()))) {
			abs, _ := filepath.Abs(filepath.Join(dir, e.Name()))
			files = append(files, abs)
		}
	}
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("convert bench: --corpus %s: no office documents in it", dir)
	}
	return files, func() {}, nil
}

// serverBench is calq convert bench --server (see servebench).
func serverBench(c *cli.Context, files []string) error {
	if c.Int("cost-documents") < 1 {
		return base.Usagef(c, "--cost-documents: %d, want at least 1", c.Int("cost-documents"))
	}
	if err := servebench.CheckRoute(c.String("route")); err != nil {
		return base.Usagef(c, "--route: %v", err)
	}
	o := servebench.Options{Files: files, Soffice: c.String("soffice"), Copies: c.Int("copies"), Instances: c.Int("instances"),
		Log: c.App.ErrWriter, Route: c.String("route"), CostDocs: c.Int("cost-documents"), CostOnly: c.Bool("cost-only")}
	if p := c.String("cpuprofile"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			return fmt.Errorf("convert bench: --cpuprofile: %w", err)
		}
		defer f.Close()
		o.CPUProfile = f
	}
	res, err := servebench.Run(c.Context, o)
	if err != nil {
		return fmt.Errorf("convert %w", err)
	}
	if c.Bool("json") {
		return base.WriteJSONLine(c.App.Writer, "serve_bench", res)
	}
	title := fmt.Sprintf("%s on %d cores, %d instances", base.Plural(res.Files, "document"), res.Cores, res.Instances)
	if o.CostOnly {
		return base.WriteMeasures(c.App.Writer, title, costMeasures(res.Cost))
	}
	return base.WriteMeasures(c.App.Writer, title, append([]base.Measure{
		{Name: "(b) one soffice call for all", Value: fmt.Sprintf("%.2f documents/s", res.BatchDPS)},
		{Name: "calq convert (cold)", Value: fmt.Sprintf("%.2f documents/s, %.2f× (b)", res.ColdDPS, res.ColdVs)},
		{Name: "calq convert --server (warm)", Value: fmt.Sprintf("%.2f documents/s, %.2f× (b) (goal ≥ 2.3×: %s)", res.WarmDPS, res.WarmVs, base.YesNo(res.WarmVs >= 2.3))},
		{Name: "HTTP, 1 client", Value: fmt.Sprintf("%.2f documents/s", res.HTTP1DPS)},
		{Name: "HTTP, 2 clients", Value: fmt.Sprintf("%.2f documents/s", res.HTTP2DPS)},
		{Name: "HTTP, 4 clients", Value: fmt.Sprintf("%.2f documents/s, %.2f× (b)", res.HTTP4DPS, res.HTTP4Vs)},
		{Name: "overhead per request", Value: fmt.Sprintf("%.1f ms (tiny document: %.1f ms over HTTP, %.1f ms in-process; goal ≤ 5 ms: %s)",
			res.Overhead, res.TinyHTTP, res.TinyLocal, base.YesNo(res.Overhead <= 5))},
	}, costMeasures(res.Cost)...))
}

// costMeasures are the lines of servebench's cost.
func costMeasures(c servebench.Cost) []base.Measure {
	return []base.Measure{
		{Name: "cost: route", Value: fmt.Sprintf("/forms/%s, %d conversions from %d clients, %.2f documents/s", c.Route, c.Conversions, c.Clients, c.DPS)},
		{Name: "cost: calq serve's own CPU", Value: fmt.Sprintf("%.2f ms per conversion (goal ≤ %.0f ms: %s)", c.ServerCPUMS, servebench.CostGoalMS, base.YesNo(c.ServerCPUMS <= servebench.CostGoalMS))},
		{Name: "cost: the converter's CPU", Value: fmt.Sprintf("%.2f ms per conversion (calq's guards and helpers: %.2f ms)", c.ConverterCPUMS, c.HelperCPUMS)},
		{Name: "cost: calq serve ÷ converter", Value: fmt.Sprintf("%.3f", c.ServerVsConverter)},
	}
}

// pdfBench is calq convert bench --pdf.
func pdfBench(c *cli.Context) error {
	if c.Int("count") < 1 {
		return base.Usagef(c, "--count: %d, want at least 1", c.Int("count"))
	}
	res, err := convertbench.PDF(c.Context, convertbench.PDFOptions{Count: c.Int("count"), Log: c.App.ErrWriter})
	if err != nil {
		return fmt.Errorf("convert bench --pdf: %w", err)
	}
	if c.Bool("json") {
		return base.WriteJSONLine(c.App.Writer, "convert_bench_pdf", res)
	}
	ms := []base.Measure{{Name: "a helper's start", Value: fmt.Sprintf("%.0f ms, once per warm helper", res.StartSeconds*1000)}}
	for _, k := range res.Kinds {
		ms = append(ms, base.Measure{Name: k.Name, Value: fmt.Sprintf("%.2f ms in calq's process, %.2f ms in a helper: %.2f×",
			k.InProcessMS, k.HelperMS, k.Ratio)})
	}
	return base.WriteMeasures(c.App.Writer, fmt.Sprintf("pdfcpu's work, %s of each kind each way", base.Plural(res.Operations, "operation")), ms)
}
