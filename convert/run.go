package convert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"calq/convert/lo"
	"calq/convert/pdf"
	"calq/internal/bytestr"
	"calq/internal/debris"
	"calq/sched"
)

// run plans, decides what needs converting, and converts it on an
// engine, waiting for files that an overlapping run holds.
func (r *runner) run(ctx context.Context) error {
	outAbs, err := filepath.Abs(r.o.Out)
	if err != nil {
		return fmt.Errorf("output directory %s: %w", r.o.Out, err)
	}
	recs, err := r.o.Store.Records(ctx, outAbs)
	if err != nil {
		return err
	}
	if err := r.planFiles(outAbs, recs); err != nil {
		return err
	}
	if err := r.checkMerge(ctx); err != nil {
		return err
	}
	r.orphans = orphans(recs)
	if len(r.items) == 0 {
		if r.o.Planned != nil {
			r.o.Planned(len(r.plan.Skipped), 0)
		}
		r.reportExtra()
		return nil
	}
	if err := pdf.Init(); err != nil {
		return fmt.Errorf("pdfcpu: %w", err)
	}
	salt, err := r.o.Store.Salt(ctx)
	if err != nil {
		return err
	}
	if r.opts, err = fingerprint(ctx, r.o, salt); err != nil {
		return err
	}
	jobs, pre, err := r.decide(ctx, recs)
	if err != nil {
		return err
	}
	if r.o.Planned != nil {
		r.o.Planned(len(r.items)+len(r.plan.Skipped), len(jobs))
	}
	r.reportExtra()
	for i, f := range pre {
		r.report(i, f)
	}
	if len(jobs) == 0 {
		return nil
	}
	return r.convertAll(ctx, jobs)
}

// planFiles walks the inputs, naming each input's PDF as an earlier run
// did where it can.
func (r *runner) planFiles(outAbs string, recs map[string]Record) error {
	byInput := map[string]string{}
	for _, rec := range recs {
		if exists(rec.Output) {
			byInput[rec.Input] = rec.Output
		}
	}
	plan, err := PlanFiles(PlanOptions{Inputs: r.o.Inputs, Out: outAbs, Include: r.o.Include, Exclude: r.o.Exclude,
		Merge: r.o.Merge, URLs: r.o.URLs, Remembered: func(in string) (string, bool) { out, ok := byInput[in]; return out, ok }})
	if err != nil {
		return err
	}
	r.plan, r.items = plan, plan.Items
	for _, it := range r.items {
		if isPage(it.Input) {
			r.engine = r.o.HTML.engine()
			break
		}
	}
	r.results = make([]FileResult, len(r.items))
	r.limits = make([]time.Duration, len(r.items))
	for i, it := range r.items {
		r.results[i] = FileResult{Input: it.Input, Output: it.Output}
	}
	return nil
}

// reportExtra reports the walked entries that are not items.
func (r *runner) reportExtra() {
	for _, s := range r.plan.Skipped {
		state := StateSkipped
		if s.Kind == "unsupported" {
			state = StateUnsupported
		}
		r.report(-1, FileResult{Input: s.Path, State: state, Reason: s.Reason})
	}
}

// orphans lists the recorded PDFs still on disk whose input is gone.
func orphans(recs map[string]Record) []string {
	var out []string
	for _, rec := range recs {
		if strings.HasPrefix(rec.Input, "\x00") || isURL(rec.Input) {
			continue // a merged PDF (its inputs are the roots, see mergeOf), or a web page's
		}
		if _, err := os.Lstat(rec.Input); errors.Is(err, os.ErrNotExist) && exists(rec.Output) {
			out = append(out, rec.Output)
		}
	}
	sortStrings(out)
	return out
}

// decide looks at each item's input and output: fails at once what
// cannot be converted, skips what is unchanged, and makes a job of the
// rest. pre holds the results decided here, by item index.
func (r *runner) decide(ctx context.Context, recs map[string]Record) ([]*sched.Job, map[int]FileResult, error) {
	pre := map[int]FileResult{}
	var jobs []*sched.Job
	var keys []string
	redo := map[string]bool{}
	for i, it := range r.items {
		res := FileResult{Input: it.Input, Output: it.Output}
		d := r.look(ctx, it, recs)
		if ctx.Err() != nil {
			// Stopped while hashing: this file and the rest are
			// cancelled, not failed.
			for k := range r.items {
				if _, decided := pre[k]; decided {
					continue
				}
				pre[k] = FileResult{Input: r.items[k].Input, Output: r.items[k].Output, State: StateCancelled, Reason: context.Cause(ctx).Error()}
			}
			return nil, pre, nil
		}
		switch {
		case d.fail != "":
			res.State, res.Reason = StateFailed, d.fail
			pre[i] = res
		case d.unchanged:
			res.State, res.Reason = StateSkipped, "unchanged"
			pre[i] = res
		default:
			j := r.job(i, it, d)
			jobs, keys = append(jobs, j), append(keys, j.Key)
			// The shared queue keeps a finished job's result, and a
			// re-run collects it: not this one's, whose PDF this
			// machine placed already and has lost since.
			rec, ok := recs[it.Output]
			redo[j.Key] = r.o.Shared != nil && ok && rec.OutputSum != "" && rec.InputSum == d.inSum && rec.Options == r.opts
		}
	}
	if err := r.freshKeys(ctx, jobs, keys, redo); err != nil {
		return nil, nil, err
	}
	return jobs, pre, nil
}

// look is what decide sees of one item.
type look struct {
	fail      string // fails at once with this reason
	unchanged bool
	inSum     string
	outSum    string // of the file at the output path now; "" for none
	size      int64
}

func (r *runner) look(ctx context.Context, it Item, recs map[string]Record) look {
	if it.Fail != "" {
		return look{fail: it.Fail}
	}
	d := r.lookInput(ctx, it)
	if d.fail != "" {
		return d
	}
	ofi, err := os.Lstat(it.Output)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return d
	case err != nil:
		return look{fail: fmt.Sprintf("cannot look at the output %s: %v", it.Output, unwrapPath(err))}
	case !ofi.Mode().IsRegular():
		return look{fail: fmt.Sprintf("the output %s is %s; calq replaces only regular files", it.Output, modeKind(ofi.Mode()))}
	}
	if d.outSum, err = fileSum(ctx, it.Output); err != nil {
		return look{fail: fmt.Sprintf("cannot read the output %s: %v", it.Output, unwrapPath(err))}
	}
	rec, ok := recs[it.Output]
	if !ok {
		// An older calq's PDF: calq's, but with no provenance to trust.
		rec, ok = r.legacyRecord(ctx, it.Output, d.outSum)
	}
	mine := !ok || sameInput(rec.Input, it)
	switch {
	case ok && mine && rec.PendingSum == "" && rec.OutputSum == d.outSum && rec.InputSum == d.inSum && rec.Options == r.opts && !r.o.Force:
		d.unchanged = true
	case r.o.Overwrite:
	case !ours(rec, ok, d.outSum):
		d.fail = overwriteReason(it.Output, ok)
	case !mine:
		d.fail = otherInputReason(it.Output, rec.Input, it.Input)
	}
	return d
}

// lookInput digests the item's input: a file's bytes (with a web page's
// assets, see withAssets); a URL's digest is new each run, since the
// page may have changed.
func (r *runner) lookInput(ctx context.Context, it Item) look {
	if isURL(it.Input) {
		return look{inSum: urlSum(it.Input)}
	}
	f, fi, err := openRegular(it.Input)
	if err != nil {
		return look{fail: readFailure(err)}
	}
	f.Close()
	inSum, err := fileSum(ctx, it.Input)
	if err == nil {
		inSum, err = r.withAssets(ctx, it, inSum)
	}
	if err != nil {
		return look{fail: readFailure(err)}
	}
	return look{inSum: inSum, size: fi.Size()}
}

// sameInput says whether a record's input (a real path; before calq
// recorded real paths, the path as walked) is the item's: a PDF belongs
// to one input, whatever path reached it.
// An older job that named no input tells nothing: it counts as the item's.
func sameInput(recorded string, it Item) bool {
	return recorded == "" || recorded == it.Real || recorded == it.Input || realPath(recorded) == it.Real
}

// legacyStore is a Store that knows the outputs an older calq recorded
// only as jobs (*SQLStore).
type legacyStore interface {
	LegacyOutputs(ctx context.Context, dir string) (map[string]string, error)
}

// legacyRecord is the record of output that an older calq converted
// (its input as the job named it), as calq's file with digest sum; read
// once a run.
func (r *runner) legacyRecord(ctx context.Context, output, sum string) (Record, bool) {
	r.legacyOnce.Do(func() {
		if l, ok := r.o.Store.(legacyStore); ok {
			abs, _ := filepath.Abs(r.o.Out)
			r.legacy, _ = l.LegacyOutputs(ctx, abs)
		}
	})
	in, ok := r.legacy[output]
	if !ok {
		return Record{}, false
	}
	return Record{Output: output, Input: in, OutputSum: sum, PendingSum: sum}, true
}

// ours says whether a file with digest sum at a recorded output is one
// calq wrote there.
func ours(rec Record, ok bool, sum string) bool {
	return ok && sum != "" && (sum == rec.OutputSum || sum == rec.PendingSum)
}

func overwriteReason(output string, recorded bool) string {
	if recorded {
		return fmt.Sprintf("%s changed since calq wrote it; --overwrite replaces it", output)
	}
	return fmt.Sprintf("%s exists and calq did not write it; --overwrite replaces it", output)
}

// otherInputReason refuses a PDF that calq wrote for another input: two
// inputs never take turns at one PDF.
func otherInputReason(output, owner, input string) string {
	return fmt.Sprintf("%s is %s, not of %s; --overwrite replaces it", output, ownerName(owner), input)
}

// readFailure is the reason for an input that cannot be read.
func readFailure(err error) string {
	return "calq cannot read the file: " + unwrapPath(err).Error()
}

// unwrapPath drops the *PathError's path, which the result already names.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// payload is what a job carries: its item, and for calq history the
// paths (which may have lost bytes that are not UTF-8; the worker uses
// the item).
type payload struct {
	Index  int            `json:"i"`
	Input  bytestr.String `json:"in"`
	Output bytestr.String `json:"out"`
}

// job makes item i's job, keyed by what it turns into what.
func (r *runner) job(i int, it Item, d look) *sched.Job {
	kind := r.kindOf(it)
	p, _ := json.Marshal(payload{Index: i, Input: bytestr.String(it.Input), Output: bytestr.String(it.Output)})
	// The worker keeps the timeout itself, so that it leaves out
	// LibreOffice's start-up.
	r.limits[i] = r.timeout(d.size)
	return &sched.Job{Key: jobKey(it.Output, it.Real, r.opts, d.inSum, d.outSum), Kind: kind, Payload: p,
		Label: r.o.Label, Class: r.o.Class, Retries: r.o.Retries}
}

// freshKeys gives a job the journal has finished (done, failed, timed
// out), and one in redo, a new key, so that it runs again: the PDF it made
// was replaced since, or the fault may be fixed. With Force every job runs
// again. A job queued, or running when a killed run stopped, resumes under
// its key.
func (r *runner) freshKeys(ctx context.Context, jobs []*sched.Job, keys []string, redo map[string]bool) error {
	states := map[string]sched.State{}
	if l, ok := r.o.Journal.(StateLookup); ok && len(keys) > 0 {
		var err error
		if states, err = l.States(ctx, keys); err != nil {
			return err
		}
	}
	nonce := strconv.FormatInt(time.Now().UnixNano(), 36)
	for _, j := range jobs {
		if st := states[j.Key]; r.o.Force || st.Terminal() || redo[j.Key] {
			j.Key += ":" + nonce
		}
	}
	return nil
}

// StateLookup is the part of a journal that tells the state of jobs by
// key (*journal.Journal has it).
type StateLookup interface {
	States(ctx context.Context, keys []string) (map[string]sched.State, error)
}

// Recoverer is the part of a journal that gives a dead process's jobs
// back to the queue (*journal.Journal has it).
type Recoverer interface {
	Recover(ctx context.Context) (int, error)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// convertAll runs the jobs on an engine: LibreOffice (one worker per
// instance) and pdfcpu. LibreOffice starts first, outside any file's
// timeout.
func (r *runner) convertAll(ctx context.Context, jobs []*sched.Job) error {
	work, err := newWorkDir()
	if err != nil {
		return err
	}
	r.work = work
	defer work.remove()
	if r.o.Shared != nil {
		return r.convertShared(ctx, jobs)
	}
	r.sizeOffice(ctx, jobs)
	r.pool = &lazyPool{opts: r.o.LibreOffice, pool: r.o.Pool, shared: r.o.Pool != nil, base: ctx}
	defer r.pool.close()
	r.chromium = &lazyChromium{o: r.o.HTML}
	defer r.chromium.close()
	e, err := sched.NewEngine(sched.EngineOptions{
		Backends: r.backends(), Journal: r.o.Journal, Events: r.event,
		Backoff: sched.Backoff{Base: time.Second}, Grace: 15 * time.Second,
	})
	if err != nil {
		return err
	}
	defer e.Close()
	r.startOffice(jobs)
	e.Start()
	err = r.submit(ctx, e, jobs)
	return errors.Join(err, e.Close())
}

// startOffice starts LibreOffice before the first office job, saying so.
func (r *runner) startOffice(jobs []*sched.Job) {
	if r.o.Office != nil {
		return
	}
	for _, j := range jobs {
		if j.Kind == kindOffice {
			if r.o.Pool == nil && r.o.Status != nil {
				n, what := r.o.LibreOffice.Instances, "instances"
				if n == 1 {
					what = "instance"
				}
				r.o.Status(fmt.Sprintf("starting %d LibreOffice %s", n, what))
			}
			r.pool.get()
			return
		}
	}
}

// Sizing the pool by conversion time: another instance pays off only when
// the work it takes over outweighs its start, about 0.7 s of a core (and
// each instance initialises Writer, Calc and Impress once more). Measured
// by calq convert bench on 2 cores: 7 documents take 1.1 s on one
// instance, 1.2 s on two, 1.6 s on three; 54 take 2.9-3.2 s on one,
// 2.3-2.4 s on two, 2.7-2.9 s on three.
const (
	// defaultDocSeconds is a document's conversion time with no history:
	// 35-45 ms for the real-world corpus in testdata/convert.
	defaultDocSeconds = 0.05
	// workPerInstance is the conversion work, in seconds of one
	// instance, that calls for one instance more.
	workPerInstance = 1.0
)

// serviceTimer is a journal that knows how long documents took: calq's
// SQLite journal does.
type serviceTimer interface {
	MeanRunSeconds(ctx context.Context, kind string, n int) (float64, int, error)
}

// sizeOffice sets the number of LibreOffice instances when none was
// given: one per workPerInstance of conversion work (the office
// documents times their mean time in the journal's last 100, else
// defaultDocSeconds), at least one, at most lo.DefaultInstances.
func (r *runner) sizeOffice(ctx context.Context, jobs []*sched.Job) {
	if r.o.Office != nil {
		r.o.LibreOffice.Instances = max(1, r.o.OfficeSlots)
		return
	}
	if r.o.LibreOffice.Instances > 0 {
		return
	}
	if r.o.Pool != nil {
		r.o.LibreOffice.Instances = len(r.o.Pool.Instances())
		return
	}
	office := 0
	for _, j := range jobs {
		if j.Kind == kindOffice {
			office++
		}
	}
	per := defaultDocSeconds
	if st, ok := r.o.Journal.(serviceTimer); ok && office > 0 {
		// A run's time includes waiting for the instance behind the
		// document before it: an upper estimate, which errs towards
		// starting an instance more.
		if mean, n, err := st.MeanRunSeconds(ctx, kindOffice, 100); err == nil && n >= 5 && mean > 0 {
			per = mean
		}
	}
	n := int(math.Ceil(float64(office) * per / workPerInstance))
	r.o.LibreOffice.Instances = max(1, min(lo.DefaultInstances(), n))
}

// officeWorkersPerInstance: while an instance converts one document, a
// second worker copies, hashes and checks the next one and waits for the
// instance, so that calq's own work per file never leaves it idle.
const officeWorkersPerInstance = 2

// backends are LibreOffice (officeWorkersPerInstance workers per
// instance) and pdfcpu.
func (r *runner) backends() []sched.Backend {
	n := r.o.LibreOffice.Instances
	office := make([]sched.Worker, n*officeWorkersPerInstance)
	for i := range office {
		office[i] = &officeWorker{r: r, slot: i % n}
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
		{Name: EngineChromium, Kinds: []string{kindHTML}, Workers: r.pageWorkers()},
	}
}

const (
	kindOffice = Kind + "-office"
	kindImage  = Kind + "-image"
	kindPDF    = Kind + "-pdf"
	kindHTML   = KindHTML
)

// KindHTML is the kind of the jobs of web pages printed by Chromium: in
// the shared queue only workers that have Chromium take it (see
// SharedWorker.Pages), which is how they advertise it.
const KindHTML = Kind + "-html"

// kindOf routes an item: web pages to Chromium (URLs always, HTML and
// Markdown files with its engine), the rest by extension.
func (r *runner) kindOf(it Item) string {
	if isURL(it.Input) || isPage(it.Input) && r.engine == EngineChromium {
		return kindHTML
	}
	return kindOf(it.Input)
}

// kindOf routes a file by its extension; the worker sniffs the content
// and converts by it, whichever backend it runs on.
func kindOf(path string) string {
	switch lowerExt(path) {
	case ".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".gif", ".bmp":
		return kindImage
	case ".pdf":
		return kindPDF
	}
	return kindOffice
}

// timeout is a file's: --timeout, else DefaultTimeout.
func (r *runner) timeout(size int64) time.Duration { return fileTimeout(r.o.Timeout, size) }

func fileTimeout(given time.Duration, size int64) time.Duration {
	if given > 0 {
		return given
	}
	return DefaultTimeout(size)
}

// FilesTimeout is the time work on files together may take: given for
// each, else DefaultTimeout for its size, added up.
func FilesTimeout(given time.Duration, files ...string) time.Duration {
	var limit time.Duration
	for _, f := range files {
		var size int64
		if fi, err := os.Stat(f); err == nil {
			size = fi.Size()
		}
		limit += fileTimeout(given, size)
	}
	return limit
}

// DefaultTimeout is the timeout of a file of size bytes when none is
// given: 60 s + 30 s per MiB, at most 10 min.
func DefaultTimeout(size int64) time.Duration {
	// In seconds as a float: size·30 s in nanoseconds overflows int64
	// from 293 MiB on, which gave big files a negative limit.
	secs := 60 + 30*float64(max(size, 0))/(1<<20)
	return time.Duration(min(secs, 600) * float64(time.Second))
}

// workDir is a private directory for the copies of the inputs being
// converted, named so that the next run removes it after a SIGKILL.
type workDir struct{ dir string }

func newWorkDir() (*workDir, error) {
	d, err := os.MkdirTemp(tempDir(), debris.Pattern("convert", false))
	if err != nil {
		return nil, fmt.Errorf("create a work directory: %w", err)
	}
	return &workDir{dir: d}, nil
}

func (w *workDir) remove() { os.RemoveAll(w.dir) }
