package convert

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"
	"unicode/utf8"

	"calq/convert/lo"
	"calq/convert/pdf"
	"calq/convert/pdfpool"
	"calq/internal/debris"
	"calq/sched"
)

// Options says what to convert and how. The zero value of every field but
// Inputs and Out is a sensible default.
type Options struct {
	Inputs           []string // files and directories (walked recursively, symlinks followed)
	URLs             []string // web pages to archive as PDFs with Chromium (http and https), after the inputs
	Out              string   // the output directory; the input trees are mirrored below it
	Include, Exclude []string // doublestar globs on paths below each input root (see PlanFiles)

	PDFA  int // 1, 2 or 3: PDF/A from LibreOffice's export filter
	Post  pdf.Post
	Merge string // also merge every result, in input order, into this file; Post then applies to it alone
	// Export is LibreOffice's export options for office documents, and
	// a password that opens them; part of the options fingerprint, but
	// for the password's value.
	Export lo.Export

	Force     bool          // convert even what is unchanged since calq wrote its PDF
	Overwrite bool          // replace files at output paths that calq did not write
	Class     sched.Class   // priority of every file
	Timeout   time.Duration // per file and attempt, LibreOffice's start-up not counted; 0: 60 s + 30 s per MiB, at most 10 min
	Retries   int           // retries of a transient failure (a crashed instance); default 0
	Label     string        // names the batch in calq history

	Journal     sched.Journal // nil: no claims; overlapping runs may convert a file twice
	Store       Store         // provenance of the PDFs; nil: in the journal, or without one in memory for this run only
	LibreOffice lo.Options
	// HTML says how HTML and Markdown files and URLs convert: with
	// Chromium or LibreOffice, and Chromium's page options.
	HTML HTMLOptions
	Pool *lo.Pool // LibreOffice instances already started (a bench); nil: Run starts its own when needed
	// Office, when set, converts the office documents (and images and
	// PDFs made PDF/A) instead of a pool of this run's own: calq serve's
	// warm pool shared fairly between requests, or the server that calq
	// convert --server sends them to. OfficeSlots of them at a time.
	Office      OfficeConverter
	OfficeSlots int
	Workers     int // pdfcpu workers for images and PDFs; 0: the number of CPUs
	// PDF does pdfcpu's work (images, PDFs, post-processing, merging)
	// in helper processes, each file's held to its timeout and to the
	// pool's memory limit: calq serve's, shared by its jobs; nil: Run
	// starts its own with PDFWork and closes it at its end.
	PDF     *pdfpool.Pool
	PDFWork pdfpool.Options
	// PDFLimits bound the PDFs among the inputs (pdf.CheckLimits): one
	// over them fails at once, for good.
	PDFLimits pdf.Limits

	// Shared, when set, hands the files to the shared queue that calq
	// worker processes serve, instead of the local engine (see
	// convertShared); SharedJobs of them at a time also convert here.
	Shared     Shared
	SharedJobs int
	SharedRoot string // with Shared: inputs and PDFs stay on this share, which every worker mounts, instead of travelling through the queue

	// Planned is called once with the number of files and, of those, how
	// many need converting; Status with a line about what Run is doing
	// ("starting 3 LibreOffice instances"); Progress with each file's
	// result as it is known: first those decided without converting
	// (unchanged, failed at once, unsupported), then the others. All may
	// be nil; Progress is called from the engine's goroutines, one call
	// at a time.
	Planned  func(total, toConvert int)
	Status   func(msg string)
	Progress func(FileResult)
}

// OfficeConverter converts one document at in to a PDF at out, as
// lo.Instance.Convert does, choosing where. Errors are *lo.ConvertError
// where LibreOffice failed.
type OfficeConverter interface {
	Convert(ctx context.Context, in, out string, o lo.ConvertOptions) error
}

// FileResult is what became of one input: its JSON, after the
// message_type "file" the command line puts first, is a --json line.
// Paths that are not UTF-8 also come as bytes
// (base64 in JSON), since a JSON string cannot hold them.
type FileResult struct {
	Input       string `json:"input"`
	InputBytes  []byte `json:"input_bytes,omitempty"`
	Output      string `json:"output,omitempty"`
	OutputBytes []byte `json:"output_bytes,omitempty"`
	State       string `json:"state"`               // see the State constants
	Reason      string `json:"reason,omitempty"`    // why it failed or was skipped, in words for people
	Detail      string `json:"detail,omitempty"`    // the technical error behind Reason, when it says more (for logs)
	Permanent   bool   `json:"permanent,omitempty"` // failed or timed out for good: retrying cannot change it, so it was not retried
	Note        string `json:"note,omitempty"`      // e.g. the content is another format than the name says
	// Err is the error behind Reason (nil unless it failed), for callers
	// that branch on it: a full disk is the machine's fault, not the file's.
	Err     error   `json:"-"`
	Seconds float64 `json:"seconds"`
	Backend string  `json:"backend,omitempty"`
}

// The states of a FileResult.
const (
	StateConverted   = "converted"
	StateSkipped     = "skipped" // unchanged since calq wrote its PDF; or a FIFO, socket or device found while walking
	StateUnsupported = "unsupported"
	StateFailed      = "failed"
	StateTimedOut    = "timed_out"
	StateCancelled   = "cancelled"
	StateRetry       = "retry" // failed, will be tried again
)

// Summary counts a run's files: the --json line of message_type
// "summary", which the command line puts first.
type Summary struct {
	Total       int         `json:"total"`
	Converted   int         `json:"converted"`
	Skipped     int         `json:"skipped"`
	Failed      int         `json:"failed"` // failed or timed out
	Cancelled   int         `json:"cancelled"`
	Unsupported int         `json:"unsupported"`
	Hidden      int         `json:"hidden"`               // hidden files and directories passed over
	Orphans     []string    `json:"orphans,omitempty"`    // PDFs under --out whose input is gone; never deleted
	Empty       []string    `json:"empty,omitempty"`      // inputs that held nothing to convert
	Duplicates  []Duplicate `json:"duplicates,omitempty"` // inputs given more than once, taken once
	Seconds     float64     `json:"seconds"`
	Merged      string      `json:"merged,omitempty"`
	Outputs     []string    `json:"-"` // the PDFs of converted and unchanged files, in input order
	New         []string    `json:"-"` // the PDFs this run wrote, in input order
}

// ErrNothingRan is returned when no file could be converted at all because
// a tool is missing; it wraps the tool's error (with its install hint).
var ErrNothingRan = errors.New("nothing could be converted")

// ErrNoneSucceeded is returned when files were to be converted and none
// was converted or found unchanged.
var ErrNoneSucceeded = errors.New("no file was converted")

// Run converts every file PlanFiles finds, each one a job on a sched
// engine: office documents on a pool of warm LibreOffice instances,
// images and PDFs through pdfcpu. Each PDF is written to a temporary file
// in its directory and renamed into place, so it is complete or absent,
// and its provenance (the digests of the input bytes converted, of the
// options and of the PDF) goes to the Store. A file is skipped only when
// its PDF on disk is byte for byte what this input and these options
// produced; a file at an output path that calq did not write is left
// alone unless Overwrite. With a journal, a run killed at any point
// resumes where it stopped, and two runs at once never convert one file
// twice. A failed file does not stop the others: Run returns an error
// wrapping exitcode.ErrPartial when some failed and some succeeded,
// ErrNoneSucceeded when all failed.
func Run(ctx context.Context, o Options) (Summary, error) {
	start := time.Now()
	sweepTemp()
	if o.Store == nil {
		o.Store = newMemStore()
		if j, ok := o.Journal.(SQLJournal); ok {
			s, err := OpenStore(ctx, j)
			if err != nil {
				return Summary{}, err
			}
			o.Store = s
		}
	}
	r := &runner{o: o, pdf: o.PDF}
	if r.pdf == nil {
		r.pdf = pdfpool.New(o.PDFWork)
		defer r.pdf.Close()
	}
	err := r.run(ctx)
	if err != nil && ctx.Err() != nil {
		r.cancelRest()
		sum := r.summary()
		sum.Seconds = time.Since(start).Seconds()
		err := fmt.Errorf("%d of %d files not done: %w", sum.Cancelled, sum.Total, context.Cause(ctx))
		if o.Shared != nil {
			err = fmt.Errorf("%w; they stay queued for the workers; run the same command again to get their PDFs", err)
		}
		return sum, err
	}
	sum := r.summary()
	sum.Seconds = time.Since(start).Seconds()
	if err != nil {
		return sum, err
	}
	merged, err := r.mergeAll(ctx, sum)
	if err != nil {
		return sum, fmt.Errorf("merge into %s: %w", o.Merge, err)
	}
	if merged {
		sum.Merged = o.Merge
		sum.Seconds = time.Since(start).Seconds()
	}
	return sum, r.verdict(sum)
}

// sweepTemp removes what SIGKILLed runs left in the temporary directory:
// LibreOffice's profiles and work directories (copies of documents) and
// its sockets, and calq's own copies of inputs. It does so at most once
// every sweepEvery: calq serve runs Run for every request, and reading
// the temporary directory (hundreds of entries on a shared machine) was
// a tenth of its own CPU per conversion.
func sweepTemp() {
	tempSweep.mu.Lock()
	due := tempSweep.sweeps == 0 || time.Since(tempSweep.last) >= sweepEvery
	if due {
		tempSweep.last = time.Now()
		tempSweep.sweeps++
	}
	tempSweep.mu.Unlock()
	if due {
		lo.RemoveDebris()
		debris.Sweep(tempDir(), "convert")
	}
}

// sweepEvery bounds how often sweepTemp sweeps: a dead run's debris
// waits for the next run after it, at most this long in a server.
const sweepEvery = time.Minute

var tempSweep struct {
	mu     sync.Mutex
	last   time.Time
	sweeps int // how many sweeps this process made
}

// runner holds one Run's state.
type runner struct {
	o        Options
	swept    sync.Map // output directories this run swept of dead runs' debris
	opts     string   // fingerprint of the options
	items    []Item
	mu       sync.Mutex
	results  []FileResult    // by item
	limits   []time.Duration // each item's timeout
	extra    []FileResult    // walked entries that are not items: unsupported, FIFOs...
	plan     Planned
	orphans  []string
	work     *workDir // private copies of the inputs being converted
	missing  error    // LibreOffice's absence, when an office file needed it
	pool     *lazyPool
	chromium *lazyChromium  // web pages' converter, created at the first
	engine   string         // of HTML and Markdown files: HTMLOptions.Engine, decided
	pdf      *pdfpool.Pool  // Options.PDF, or the run's own
	heldBy   map[int]string // items another calq holds, by index: its owner

	mergeTarget string // the --merge target, absolute

	legacyOnce sync.Once
	legacy     map[string]string // outputs an older calq wrote, and their inputs (see legacyRecord)
}

// utf8Safe fills the byte fields of a result whose paths are not UTF-8.
func utf8Safe(f FileResult) FileResult {
	if !utf8.ValidString(f.Input) {
		f.InputBytes = []byte(f.Input)
	}
	if !utf8.ValidString(f.Output) {
		f.OutputBytes = []byte(f.Output)
	}
	return f
}

// report records item i's (or an extra entry's, i < 0) result and passes
// it on.
func (r *runner) report(i int, f FileResult) {
	f = utf8Safe(f)
	r.mu.Lock()
	if i >= 0 {
		r.results[i] = f
	} else {
		r.extra = append(r.extra, f)
	}
	r.mu.Unlock()
	if r.o.Progress != nil {
		r.o.Progress(f)
	}
}

// summary counts the results; a file with no outcome (the run was
// stopped) counts as cancelled.
func (r *runner) summary() Summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	sum := Summary{Hidden: r.plan.Hidden, Orphans: r.orphans, Empty: r.plan.Empty,
		Duplicates: r.plan.Duplicates}
	count := func(res FileResult) {
		sum.Total++
		switch res.State {
		case StateConverted:
			sum.Converted++
			sum.Outputs = append(sum.Outputs, res.Output)
			sum.New = append(sum.New, res.Output)
		case StateSkipped:
			sum.Skipped++
			if res.Output != "" && exists(res.Output) {
				sum.Outputs = append(sum.Outputs, res.Output)
			}
		case StateUnsupported:
			sum.Unsupported++
		case StateFailed, StateTimedOut:
			sum.Failed++
		default:
			sum.Cancelled++
		}
	}
	for _, res := range r.results {
		count(res)
	}
	for _, res := range r.extra {
		count(res)
	}
	return sum
}

func tempDir() string { return filepath.Clean(osTempDir()) }
