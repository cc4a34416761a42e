package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"calq/convert/convertbench"
)

func convertBenchCommand() *cli.Command {
	return &cli.Command{
		Name:      "bench",
		Usage:     "time calq against one soffice per file and one batched soffice call",
		ArgsUsage: "[DIR]",
		Description: "Converts the same documents three ways in one run and prints documents per\n" +
			"second and the ratios: (a) one `soffice --headless --convert-to pdf` process\n" +
			"per file, as most scripts do, (b) one soffice call with all the files, (c)\n" +
			"calq's pool of warm instances (started before the clock; its start-up is\n" +
			"printed on its own). The documents are DIR's office files, or --generate N\n" +
			"small (2-5 pages) or large (about 15 pages with tables) DOCX files.\n\n" +
			`--json prints one line {"message_type":"convert_bench","files","instances",` + "\n" +
			`"naive_dps","batch_dps","calq_dps","vs_naive","vs_batch","pool_start_seconds"}.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "generate", Usage: "bench on generated documents: small or large (instead of DIR)"},
			&cli.IntFlag{Name: "count", Value: 20, Usage: "how many documents --generate writes"},
			&cli.IntFlag{Name: "instances", Usage: "calq's LibreOffice instances", DefaultText: "from cores and memory"},
			&cli.StringFlag{Name: "soffice", EnvVars: []string{"CALQ_SOFFICE"}, Usage: "the soffice program"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			files, cleanup, err := benchFiles(c)
			if err != nil {
				return err
			}
			defer cleanup()
			res, err := convertbench.Bench(c.Context, convertbench.BenchOptions{Files: files, Soffice: c.String("soffice"),
				Instances: c.Int("instances"), Log: c.App.ErrWriter})
			if err != nil {
				return fmt.Errorf("convert %w", err)
			}
			if c.Bool("json") {
				return writeJSONLine(c.App.Writer, "convert_bench", res)
			}
			return writeMeasures(c.App.Writer, fmt.Sprintf("%s, %d LibreOffice instances for calq", plural(res.Files, "document"), res.Instances), []measure{
				{"(a) one soffice per file", fmt.Sprintf("%.2f documents/s", res.NaiveDPS)},
				{"(b) one soffice call for all", fmt.Sprintf("%.2f documents/s", res.BatchDPS)},
				{"(c) calq", fmt.Sprintf("%.2f documents/s (pool start-up %.1fs, not counted)", res.CalqDPS, res.PoolStartS)},
				{"calq ÷ (a)", fmt.Sprintf("%.1f× (goal ≥ 10×: %s)", res.VsNaive, yesNo(res.VsNaive >= 10))},
				{"calq ÷ (b)", fmt.Sprintf("%.2f× (goal ≥ 1.7×: %s)", res.VsBatch, yesNo(res.VsBatch >= 1.7))},
			})
		},
	}
}

// benchFiles lists DIR's office documents, or generates some.
func benchFiles(c *cli.Context) ([]string, func(), error) {
	gen, dir := c.String("generate"), c.Args().First()
	switch {
	case c.Args().Len() > 1:
		return nil, nil, usageErrorf(c, "unexpected argument %q", c.Args().Get(1))
	case gen != "" && dir != "":
		return nil, nil, usageErrorf(c, "give DIR or --generate, not both")
	case gen == "" && dir == "":
		return nil, nil, usageErrorf(c, "give DIR or --generate small|large")
	case gen != "" && gen != "small" && gen != "large":
		return nil, nil, usageErrorf(c, "--generate: %q, want small or large", gen)
	case c.Int("count") < 1:
		return nil, nil, usageErrorf(c, "--count: %d, want at least 1", c.Int("count"))
	}
	if gen != "" {
		tmp, err := os.MkdirTemp("", "calq-bench-docs-")
		if err != nil {
			return nil, nil, err
		}
		files, err := convertbench.GenerateDocs(tmp, c.Int("count"), gen)
		return files, func() { os.RemoveAll(tmp) }, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("convert bench: %w", err)
	}
	var files []string
	office := []string{".doc", ".docx", ".odt", ".rtf", ".xls", ".xlsx", ".ods", ".ppt", ".pptx", ".odp"}
	for _, e := range entries {
		if e.Type().IsRegular() && slices.Contains(office, strings.ToLower(filepath.Ext(e.Name()))) {
			abs, _ := filepath.Abs(filepath.Join(dir, e.Name()))
			files = append(files, abs)
		}
	}
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("convert bench: no office documents in %s", dir)
	}
	return files, func() {}, nil
}
