package convert

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"calq/convert/lo"
	"calq/convert/pdf"
	"calq/sched"
)

// Options says what to convert and how. The zero value of every field but
// Inputs and Out is a sensible default.
type Options struct {
	Inputs           []string // files and directories (walked recursively)
	Out              string   // the output directory; the input trees are mirrored below it
	Include, Exclude []string // globs on base names or relative paths (see Plan)

	PDFA  int // 1, 2 or 3: PDF/A from LibreOffice's export filter
	Post  pdf.Post
	Merge string // also merge every result, in input order, into this file; Post then applies to it alone

	Force   bool          // convert even what the journal says is done and present
	Class   sched.Class   // priority of every file
	Timeout time.Duration // per file and attempt; 0: 60 s + 30 s per MiB, at most 10 min
	Retries int           // retries of a transient failure (a crashed instance); default 0
	Label   string        // names the batch in calq history

	Journal     sched.Journal // nil: nothing recorded, every file converted
	LibreOffice lo.Options
	Pool        *lo.Pool // LibreOffice instances already started (a bench); nil: Run starts its own on first use
	Workers     int      // pdfcpu workers for images and PDFs; 0: the number of CPUs

	// Planned is called once with the number of files; Progress with
	// each file's result as it is known. Both may be nil; Progress is
	// called from the engine's goroutines, one call at a time.
	Planned  func(total int)
	Progress func(FileResult)
}

// FileResult is what became of one input: its JSON is the --json line
// {"type":"file", ...}.
type FileResult struct {
	Type    string  `json:"type"` // "file"
	Input   string  `json:"input"`
	Output  string  `json:"output,omitempty"`
	State   string  `json:"state"` // converted, skipped, failed, timed_out, cancelled, retry
	Reason  string  `json:"reason,omitempty"`
	Seconds float64 `json:"seconds"`
	Backend string  `json:"backend,omitempty"`
}

// The states of a FileResult.
const (
	StateConverted = "converted"
	StateSkipped   = "skipped" // converted before with the same content and options, and still there
	StateFailed    = "failed"
	StateTimedOut  = "timed_out"
	StateCancelled = "cancelled"
	StateRetry     = "retry" // failed, will be tried again
)

// Summary counts a run's files: {"type":"summary", ...} in --json.
type Summary struct {
	Type      string   `json:"type"` // "summary"
	Total     int      `json:"total"`
	Converted int      `json:"converted"`
	Skipped   int      `json:"skipped"`
	Failed    int      `json:"failed"` // failed, timed out or not run
	Seconds   float64  `json:"seconds"`
	Merged    string   `json:"merged,omitempty"`
	Outputs   []string `json:"-"` // the PDFs of converted and skipped files, in input order
}

// ErrNothingRan is returned when no file could be converted at all because
// a tool is missing; it wraps the tool's error (with its install hint).
var ErrNothingRan = errors.New("nothing could be converted")

// Run converts every file Plan finds, each one a job on a sched engine:
// office documents on a pool of warm LibreOffice instances, images and
// PDFs through pdfcpu. Each PDF is written to a temporary file in its
// directory and renamed into place, so it is complete or absent. With a
// journal, a file converted before with the same content and options,
// whose PDF is still there, is skipped; a run killed at any point resumes
// where it stopped; and two runs at once never convert one file twice.
// A failed file does not stop the others: Run returns an error wrapping
// exitcode.ErrPartial when some failed.
func Run(ctx context.Context, o Options) (Summary, error) {
	start := time.Now()
	items, err := Plan(o.Inputs, o.Out, o.Include, o.Exclude)
	if err != nil {
		return Summary{}, err
	}
	if o.Planned != nil {
		o.Planned(len(items))
	}
	sum := Summary{Type: "summary", Total: len(items)}
	if len(items) == 0 {
		return sum, nil
	}
	if err := pdf.Init(); err != nil {
		return sum, fmt.Errorf("convert: pdfcpu: %w", err)
	}
	r := &runner{o: o, items: items, results: make([]FileResult, len(items))}
	if err := r.run(ctx); err != nil {
		return r.summary(sum), err
	}
	sum = r.summary(sum)
	if o.Merge != "" {
		if err := merge(ctx, o, sum.Outputs); err != nil {
			return sum, fmt.Errorf("convert: merge into %s: %w", o.Merge, err)
		}
		sum.Merged = o.Merge
	}
	sum.Seconds = time.Since(start).Seconds()
	return sum, r.verdict(sum)
}

// runner holds one Run's engine side.
type runner struct {
	o       Options
	items   []Item
	mu      sync.Mutex
	results []FileResult // by item, as the engine reports
	missing error        // LibreOffice's absence, when an office file needed it
	pool    *lazyPool
}

// payload is what a job carries: enough to convert it in any process.
type payload struct {
	Index  int    `json:"i"`
	Input  string `json:"in"`
	Output string `json:"out"`
}

func (r *runner) run(ctx context.Context) error {
	r.pool = &lazyPool{opts: r.o.LibreOffice, pool: r.o.Pool, shared: r.o.Pool != nil, base: ctx}
	defer r.pool.close()
	e, err := sched.NewEngine(sched.EngineOptions{
		Backends: r.backends(), Journal: r.o.Journal, Events: r.event,
		Backoff: sched.Backoff{Base: time.Second}, Grace: 15 * time.Second,
	})
	if err != nil {
		return fmt.Errorf("convert: %w", err)
	}
	defer e.Close()
	jobs, err := r.jobs(ctx)
	if err != nil {
		return err
	}
	e.Start()
	if err := e.Submit(ctx, jobs...); err != nil {
		return fmt.Errorf("convert: submit: %w", err)
	}
	_, err = e.Wait(ctx)
	return errors.Join(err, e.Close())
}

// backends are LibreOffice (one worker per instance) and pdfcpu.
func (r *runner) backends() []sched.Backend {
	n := r.o.LibreOffice.Instances
	if n <= 0 {
		n = lo.DefaultInstances()
		r.o.LibreOffice.Instances = n
	}
	office := make([]sched.Worker, n)
	for i := range office {
		office[i] = &officeWorker{r: r, slot: i}
	}
	m := r.o.Workers
	if m <= 0 {
		m = runtime.NumCPU()
	}
	direct := make([]sched.Worker, m)
	for i := range direct {
		direct[i] = sched.WorkerFunc(r.direct)
	}
	return []sched.Backend{
		{Name: "libreoffice", Kinds: []string{kindOffice}, Workers: office},
		{Name: "pdfcpu", Kinds: []string{kindImage, kindPDF}, Workers: direct},
	}
}

const (
	kindOffice = "convert-office"
	kindImage  = "convert-image"
	kindPDF    = "convert-pdf"
)

// jobs makes one job per item, keyed by its output, content and options
// so that the journal can tell a file already converted.
func (r *runner) jobs(ctx context.Context) ([]*sched.Job, error) {
	opts := r.fingerprint()
	jobs := make([]*sched.Job, len(r.items))
	keys := make([]string, len(r.items))
	for i, it := range r.items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		kind, size := kindOf(it.Input)
		p, _ := json.Marshal(payload{Index: i, Input: it.Input, Output: it.Output})
		jobs[i] = &sched.Job{Kind: kind, Payload: p, Label: r.o.Label, Class: r.o.Class,
			Timeout: r.timeout(size), Retries: r.o.Retries}
		keys[i] = key(it, opts)
		r.results[i] = FileResult{Type: "file", Input: it.Input, Output: it.Output}
	}
	if r.o.Journal == nil {
		return jobs, nil
	}
	states := map[string]sched.State{}
	if l, ok := r.o.Journal.(StateLookup); ok {
		var err error
		if states, err = l.States(ctx, keys); err != nil {
			return nil, fmt.Errorf("convert: %w", err)
		}
	}
	// A job the journal has done is skipped by the engine; when its PDF
	// is gone, or with --force, it is made again under a new key, as is
	// one that failed before (the fault may be fixed: a font installed, a
	// timeout raised). Any other state (queued, or running when a killed
	// run stopped) resumes under its key.
	nonce := strconv.FormatInt(time.Now().UnixNano(), 36)
	for i, it := range r.items {
		jobs[i].Key = keys[i]
		switch st := states[keys[i]]; {
		case st == sched.StateDone && (r.o.Force || !exists(it.Output)),
			st == sched.StateFailed, st == sched.StateTimedOut:
			jobs[i].Key += ":" + nonce
		}
	}
	return jobs, nil
}

// StateLookup is the part of a journal that tells the state of jobs by
// key (*journal.Journal has it).
type StateLookup interface {
	States(ctx context.Context, keys []string) (map[string]sched.State, error)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// kindOf routes a file by its extension; sniffing happens in the worker,
// so that a rejected file is recorded like any other failure.
func kindOf(path string) (string, int64) {
	var size int64
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".gif", ".bmp":
		return kindImage, size
	case ".pdf":
		return kindPDF, size
	}
	return kindOffice, size
}

// postEmpty says whether p asks for nothing.
func postEmpty(p pdf.Post) bool {
	return p.Watermark == nil && p.Metadata == nil && !p.Optimize && p.Encrypt == nil
}

func (r *runner) timeout(size int64) time.Duration {
	if r.o.Timeout > 0 {
		return r.o.Timeout
	}
	return min(60*time.Second+time.Duration(size)*30*time.Second/(1<<20), 10*time.Minute)
}

// fingerprint digests the options that shape a PDF.
func (r *runner) fingerprint() string {
	h := sha256.New()
	post := r.o.Post
	if r.o.Merge != "" {
		post = pdf.Post{} // per-file PDFs stay plain when merging
	}
	b, _ := json.Marshal(struct {
		PDFA int
		Post pdf.Post
	}{r.o.PDFA, post})
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// key names a job: "convert:" and a digest of the output path, the
// options and the input's content.
func key(it Item, opts string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", it.Output, opts)
	if f, err := os.Open(it.Input); err == nil {
		io.Copy(h, f)
		f.Close()
	}
	return "convert:" + hex.EncodeToString(h.Sum(nil))[:32]
}
