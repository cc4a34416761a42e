package convertbench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"calq/convert"
	"calq/convert/internal/gendoc"
	"calq/convert/lo"
	"calq/internal/childenv"
	"calq/internal/proc"
)

// DefaultCorpus names the real-world office documents of calq's
// testdata/convert (public test suites; see SOURCES.md there) that
// LibreOffice converts normally: doc, docx, xls, xlsx, ppt, pptx, odt, ods,
// odp, rtf, html, csv and txt. The broken, hostile and password-protected
// files beside them are left out: they measure failure handling, not speed.
var DefaultCorpus = []string{
	"001-test.doc", "testWORD_various.doc", "sample_3.docx", "testWORD_various.docx",
	"HeaderFooterUnicode.docx", "Special_Chars_ß.docx", "Übersicht – 報告.docx",
	"simple.odt", "serious_poem.odt", "test.rtf", "testRTFJapanese.rtf",
	"testTXTNonASCIIUTF8.txt", "testHTML_utf8.html", "simple.xlsx", "SampleSS.xlsx",
	"SampleSS.xls", "Größen_表格 (final).xlsx", "chinese_spreadsheet.ods", "testFooter.ods",
	"testCSV.csv", "sample.pptx", "SampleShow.pptx", "basic_test_ppt_file.ppt", "testPPT.ppt",
	"cols.odp", "LibreOfficeImpress_odp_1.3.odp", "Презентация 演示.odp",
}

// Options says what calq convert bench measures.
type Options struct {
	Files     []string // the documents; all are converted by each way
	Copies    int      // each file is converted this many times (as copies); 0 means 1
	Soffice   string   // "" finds it
	Instances int      // calq's LibreOffice instances for the N-instance way; 0 the default
	// NaiveFiles bounds the files of the one-soffice-per-file way, which
	// costs about a second a file: its rate is measured on the first
	// NaiveFiles (0: 12).
	NaiveFiles int
	Log        io.Writer
}

// Result is calq convert bench's line: documents per second of each
// way measured in one run, and the ratios.
type Result struct {
	Files      int     `json:"files"` // documents per way, copies included
	Cores      int     `json:"cores"`
	Instances  int     `json:"instances"`   // calq's pool in the N-instance way
	NaiveFiles int     `json:"naive_files"` // documents the per-file way converted
	NaiveDPS   float64 `json:"naive_dps"`   // one soffice process per file
	BatchDPS   float64 `json:"batch_dps"`   // one soffice call for all
	// StartSeconds is one soffice converting one tiny file: LibreOffice's
	// start-up; the batch's time less it is LibreOffice's own work.
	StartSeconds float64 `json:"start_seconds"`
	LimitDPS     float64 `json:"limit_dps"` // one start, then that work spread over every core
	Calq1DPS     float64 `json:"calq1_dps"` // calq convert with one instance, start-up included
	CalqDPS      float64 `json:"calq_dps"`  // calq convert with Instances, start-up included
	// First PDFs: seconds from calq's start to its first converted file.
	Calq1FirstSeconds float64 `json:"calq1_first_pdf_seconds"`
	CalqFirstSeconds  float64 `json:"calq_first_pdf_seconds"`
	VsNaive           float64 `json:"vs_naive"` // calq_dps / naive_dps
	VsBatch           float64 `json:"vs_batch"` // calq_dps / batch_dps
	Calq1VsBatch      float64 `json:"calq1_vs_batch"`
	LimitVsBatch      float64 `json:"limit_vs_batch"`
}

// Run converts the same files several ways and times each, end to
// end, as a user would run them: (a) one `soffice --headless --convert-to
// pdf` process per file, as most scripts do (on the first NaiveFiles);
// (b) one soffice call with all the files; (c) calq convert with one
// LibreOffice instance and (d) with Instances, each starting its own pool
// (start-up counted, as in every run of calq convert, on profiles kept
// from an earlier run, as calq convert keeps them). It also times one
// soffice converting one tiny file, LibreOffice's start-up, from which it
// reckons the limit: one start, then the batch's own work spread over
// every core. The soffice ways share one profile, initialised before the
// clock starts; a way whose outputs are missing is an error, not a fast
// result.
func Run(ctx context.Context, o Options) (Result, error) {
	env, err := Prepare("calq-bench-", o.Files, o.Copies, o.Soffice, o.Log)
	if err != nil {
		return Result{}, err
	}
	defer env.Close()
	soffice, work, files, logf := env.Soffice, env.Work, env.Files, env.Logf
	res := Result{Files: len(files), Cores: runtime.NumCPU()}
	n := float64(len(files))

	profile := filepath.Join(work, "profile")
	tiny := filepath.Join(work, "tiny.txt")
	if err := os.WriteFile(tiny, []byte("calq\n"), 0o600); err != nil {
		return res, err
	}
	// A fresh profile's first start may exit 81 and restart itself: the
	// second run must succeed.
	_ = soffice1(ctx, soffice, profile, filepath.Join(work, "warm"), []string{tiny})
	if err := soffice1(ctx, soffice, profile, filepath.Join(work, "warm"), []string{tiny}); err != nil {
		return res, fmt.Errorf("bench: initialise a profile: %w", err)
	}
	naive := files[:min(len(files), cmp.Or(o.NaiveFiles, 12))]
	res.NaiveFiles = len(naive)
	logf("(a) one soffice process per file, %d files", len(naive))
	d, err := timed(func() error {
		for _, f := range naive {
			if err := soffice1(ctx, soffice, profile, filepath.Join(work, "naive"), []string{f}); err != nil {
				return err
			}
		}
		return checkOutputs(filepath.Join(work, "naive"), naive)
	})
	if err != nil {
		return res, fmt.Errorf("bench: naive: %w", err)
	}
	res.NaiveDPS = float64(len(naive)) / d.Seconds()
	logf("(b) one soffice call with all %d files", len(files))
	batch, err := timed(func() error {
		if err := soffice1(ctx, soffice, profile, filepath.Join(work, "batch"), files); err != nil {
			return err
		}
		return checkOutputs(filepath.Join(work, "batch"), files)
	})
	if err != nil {
		return res, fmt.Errorf("bench: batch: %w", err)
	}
	res.BatchDPS = n / batch.Seconds()
	logf("the limit: one soffice start converting one tiny file")
	start, err := timed(func() error { return soffice1(ctx, soffice, profile, filepath.Join(work, "start"), []string{tiny}) })
	if err != nil {
		return res, fmt.Errorf("bench: start: %w", err)
	}
	res.StartSeconds = start.Seconds()
	own := max(batch-start, 0)
	res.LimitDPS = n / (start + own/time.Duration(res.Cores)).Seconds()

	res.Instances = cmp.Or(o.Instances, lo.DefaultInstances())
	// calq convert keeps its profiles between runs (lo.DefaultStateDir):
	// the bench's are initialised by a first run, as the soffice ways'
	// profile is.
	state := filepath.Join(work, "calq-state")
	logf("calq: initialise %d profiles", res.Instances)
	if _, err := convert.Run(ctx, convert.Options{Inputs: files[:min(len(files), res.Instances)], Out: filepath.Join(work, "calq-warm"),
		LibreOffice: lo.Options{Soffice: soffice, Instances: res.Instances, StateDir: state}}); err != nil {
		return res, fmt.Errorf("bench: initialise calq's profiles: %w", err)
	}
	for w, way := range []struct {
		name      string
		instances int
		dps       *float64
		first     *float64
	}{
		{"(c) calq, 1 instance", 1, &res.Calq1DPS, &res.Calq1FirstSeconds},
		{fmt.Sprintf("(d) calq, %d instances", res.Instances), res.Instances, &res.CalqDPS, &res.CalqFirstSeconds},
	} {
		logf("%s, %d files", way.name, len(files))
		var first time.Duration
		var once sync.Once
		out := filepath.Join(work, fmt.Sprintf("calq-%d", w))
		begin := time.Now()
		d, err := timed(func() error {
			sum, err := convert.Run(ctx, convert.Options{Inputs: files, Out: out,
				LibreOffice: lo.Options{Soffice: soffice, Instances: way.instances, StateDir: state},
				Progress: func(r convert.FileResult) {
					if r.State == convert.StateConverted {
						once.Do(func() { first = time.Since(begin) })
					}
				}})
			if err == nil && sum.Converted != len(files) {
				err = fmt.Errorf("%d of %d converted", sum.Converted, len(files))
			}
			return err
		})
		if err != nil {
			return res, fmt.Errorf("bench: %s: %w", way.name, err)
		}
		*way.dps, *way.first = n/d.Seconds(), first.Seconds()
	}
	res.VsNaive, res.VsBatch = res.CalqDPS/res.NaiveDPS, res.CalqDPS/res.BatchDPS
	res.Calq1VsBatch, res.LimitVsBatch = res.Calq1DPS/res.BatchDPS, res.LimitDPS/res.BatchDPS
	return res, nil
}

// copies copies each of files k times into dir, as
// "1-NAME", "2-NAME", ..., and returns their paths.
func copies(dir string, files []string, k int) ([]string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	var out []string
	for c := 1; c <= k; c++ {
		for _, f := range files {
			dst := filepath.Join(dir, fmt.Sprintf("%d-%s", c, filepath.Base(f)))
			// Copied, not linked: calq converts a file given twice once.
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			if err := os.WriteFile(dst, b, 0o600); err != nil {
				return nil, err
			}
			out = append(out, dst)
		}
	}
	return out, nil
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

// Batch times one soffice call converting every file into out, the way a
// script would, on a profile under work that it initialises first (off
// the clock), and checks that every file gave a PDF.
func Batch(ctx context.Context, soffice string, files []string, work, out string) (time.Duration, error) {
	if err := os.MkdirAll(work, 0o700); err != nil {
		return 0, err
	}
	profile := filepath.Join(work, "profile")
	tiny := filepath.Join(work, "tiny.txt")
	if err := os.WriteFile(tiny, []byte("calq\n"), 0o600); err != nil {
		return 0, err
	}
	_ = soffice1(ctx, soffice, profile, filepath.Join(work, "warm"), []string{tiny})
	if err := soffice1(ctx, soffice, profile, filepath.Join(work, "warm"), []string{tiny}); err != nil {
		return 0, fmt.Errorf("initialise a profile: %w", err)
	}
	return timed(func() error {
		if err := soffice1(ctx, soffice, profile, out, files); err != nil {
			return err
		}
		return checkOutputs(out, files)
	})
}

// Env is what a bench run works with: soffice, a temporary work
// directory (removed by Close) holding the copies of the documents, and
// its log.
type Env struct {
	Soffice string
	Work    string
	Files   []string // the documents, each copied k times into Work
	Logf    func(format string, args ...any)
}

// Prepare finds soffice, makes a work directory named after prefix and
// copies each of files k times into it (see copies); log may be nil.
func Prepare(prefix string, files []string, k int, soffice string, log io.Writer) (*Env, error) {
	if len(files) == 0 {
		return nil, errors.New("bench: no documents")
	}
	path, _, err := lo.Find(soffice)
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, err
	}
	env := &Env{Soffice: path, Work: work, Logf: func(format string, args ...any) {
		if log != nil {
			fmt.Fprintf(log, "calq: bench: "+format+"\n", args...)
		}
	}}
	if env.Files, err = copies(filepath.Join(work, "docs"), files, max(k, 1)); err != nil {
		env.Close()
		return nil, fmt.Errorf("bench: %w", err)
	}
	return env, nil
}

// Close removes the work directory.
func (e *Env) Close() error { return os.RemoveAll(e.Work) }
