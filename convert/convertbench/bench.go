package convertbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"calq/convert"
	"calq/convert/internal/gendoc"
	"calq/convert/lo"
	"calq/internal/childenv"
	"calq/internal/proc"
)

// BenchOptions says what calq convert bench measures.
type BenchOptions struct {
	Files     []string // the documents; all are converted by each way
	Soffice   string   // "" finds it
	Instances int      // calq's LibreOffice instances; 0 the default
	Log       io.Writer
}

// BenchResult is calq convert bench's row: documents per second of each
// way, and calq's ratios to the two others, measured in one run.
type BenchResult struct {
	Files      int     `json:"files"`
	Instances  int     `json:"instances"`
	NaiveDPS   float64 `json:"naive_dps"`
	BatchDPS   float64 `json:"batch_dps"`
	CalqDPS    float64 `json:"calq_dps"`
	VsNaive    float64 `json:"vs_naive"`
	VsBatch    float64 `json:"vs_batch"`
	PoolStartS float64 `json:"pool_start_seconds"` // starting calq's instances, not in calq_dps
}

// Bench converts the same files three ways and times each: (a) one
// `soffice --headless --convert-to pdf` process per file, as most
// scripts do; (b) one soffice call with all the files; (c) calq's pool
// of warm instances, started beforehand (its start-up is reported on its
// own: a long-running calq pays it once). Each way has its own profile,
// initialised before the clock starts, and its own output directory; a
// way whose outputs are missing is an error, not a fast result.
func Bench(ctx context.Context, o BenchOptions) (BenchResult, error) {
	if len(o.Files) == 0 {
		return BenchResult{}, errors.New("bench: no documents")
	}
	soffice, _, err := lo.Find(o.Soffice)
	if err != nil {
		return BenchResult{}, err
	}
	work, err := os.MkdirTemp("", "calq-bench-")
	if err != nil {
		return BenchResult{}, err
	}
	defer os.RemoveAll(work)
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, "calq: bench: "+format+"\n", args...)
		}
	}
	res := BenchResult{Files: len(o.Files)}
	n := float64(len(o.Files))

	profile := filepath.Join(work, "profile")
	// A fresh profile's first start may exit 81 and restart itself: the
	// second run must succeed.
	_ = soffice1(ctx, soffice, profile, filepath.Join(work, "warm"), o.Files[:1])
	if err := soffice1(ctx, soffice, profile, filepath.Join(work, "warm"), o.Files[:1]); err != nil {
		return res, fmt.Errorf("bench: initialise a profile: %w", err)
	}
	logf("(a) one soffice process per file, %d files", len(o.Files))
	d, err := timed(func() error {
		for _, f := range o.Files {
			if err := soffice1(ctx, soffice, profile, filepath.Join(work, "naive"), []string{f}); err != nil {
				return err
			}
		}
		return checkOutputs(filepath.Join(work, "naive"), o.Files)
	})
	if err != nil {
		return res, fmt.Errorf("bench: naive: %w", err)
	}
	res.NaiveDPS = n / d.Seconds()
	logf("(b) one soffice call with all %d files", len(o.Files))
	d, err = timed(func() error {
		if err := soffice1(ctx, soffice, profile, filepath.Join(work, "batch"), o.Files); err != nil {
			return err
		}
		return checkOutputs(filepath.Join(work, "batch"), o.Files)
	})
	if err != nil {
		return res, fmt.Errorf("bench: batch: %w", err)
	}
	res.BatchDPS = n / d.Seconds()

	logf("(c) calq: starting the LibreOffice pool")
	start := time.Now()
	pool, err := lo.New(ctx, lo.Options{Soffice: soffice, Instances: o.Instances, StateDir: filepath.Join(work, "pool")})
	if err != nil {
		return res, fmt.Errorf("bench: %w", err)
	}
	defer pool.Close()
	// A first document through every instance: start-up, not throughput.
	for i, inst := range pool.Instances() {
		if err := inst.Convert(ctx, o.Files[0], filepath.Join(work, fmt.Sprintf("warm-%d.pdf", i)), lo.ConvertOptions{}); err != nil {
			return res, fmt.Errorf("bench: warm up %s: %w", inst.Name(), err)
		}
	}
	res.PoolStartS = time.Since(start).Seconds()
	res.Instances = len(pool.Instances())
	logf("(c) calq: %d files on %d warm instances", len(o.Files), res.Instances)
	d, err = timed(func() error {
		sum, err := convert.Run(ctx, convert.Options{Inputs: o.Files, Out: filepath.Join(work, "calq"), Pool: pool,
			LibreOffice: lo.Options{Instances: res.Instances}})
		if err == nil && sum.Converted != len(o.Files) {
			err = fmt.Errorf("%d of %d converted", sum.Converted, len(o.Files))
		}
		return err
	})
	if err != nil {
		return res, fmt.Errorf("bench: calq: %w", err)
	}
	res.CalqDPS = n / d.Seconds()
	res.VsNaive, res.VsBatch = res.CalqDPS/res.NaiveDPS, res.CalqDPS/res.BatchDPS
	return res, nil
}

func timed(f func() error) (time.Duration, error) {
	start := time.Now()
	err := f()
	return time.Since(start), err
}

// soffice1 runs one soffice process converting files into out, with the
// given profile, the way a script would.
func soffice1(ctx context.Context, soffice, profile, out string, files []string) error {
	args := append([]string{soffice, "-env:UserInstallation=file://" + profile, "--headless", "--norestore",
		"--convert-to", "pdf", "--outdir", out}, files...)
	cmd := proc.Command(ctx, proc.Options{Env: append(childenv.Allowed(os.Environ()), "LANG=C.UTF-8")}, args...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("soffice: %w: %s", err, strings.TrimSpace(string(b)))
	}
	return nil
}

// checkOutputs makes sure every file gave a PDF of its stem in dir.
func checkOutputs(dir string, files []string) error {
	var missing []string
	for _, f := range files {
		stem := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		if fi, err := os.Stat(filepath.Join(dir, stem+".pdf")); err != nil || fi.Size() == 0 {
			missing = append(missing, filepath.Base(f))
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return fmt.Errorf("no PDF for %s", strings.Join(missing, ", "))
	}
	return nil
}

// GenerateDocs writes n generated DOCX documents into dir, "small" (2-5
// pages of text) or "large" (about 15 pages with tables), for the bench.
func GenerateDocs(dir string, n int, size string) ([]string, error) {
	return gendoc.Batch(dir, n, size)
}
