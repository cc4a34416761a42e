package convert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"calq/convert/lo"
	"calq/convert/pdf"
	"calq/convert/sniff"
	"calq/sched"
)

// lazyPool starts LibreOffice on first use, so that a run with nothing
// for it (only images and PDFs, or everything done already) never pays
// for its start-up, and a machine without it still converts the rest.
type lazyPool struct {
	opts   lo.Options
	once   sync.Once
	pool   *lo.Pool
	shared bool            // pool was given, not started here: not closed here
	base   context.Context // the run's: instances live as long as it, not a job's
	err    error
}

func (p *lazyPool) get() (*lo.Pool, error) {
	p.once.Do(func() {
		if p.pool == nil {
			p.pool, p.err = lo.New(p.base, p.opts)
		}
	})
	return p.pool, p.err
}

func (p *lazyPool) close() error {
	p.once.Do(func() {}) // no start after close
	if p.pool == nil || p.shared {
		return nil
	}
	return p.pool.Close()
}

// officeWorker converts office documents on one LibreOffice instance,
// the slot-th of the pool.
type officeWorker struct {
	r    *runner
	slot int
}

func (w *officeWorker) Run(ctx context.Context, j *sched.Job) error {
	return w.r.convert(ctx, j, func(ctx context.Context, in, tmp string) error {
		pool, err := w.r.pool.get()
		if err != nil {
			w.r.noteMissing(err)
			return sched.Permanent(err)
		}
		inst := pool.Instances()[w.slot%len(pool.Instances())]
		return inst.Convert(ctx, in, tmp, lo.ConvertOptions{PDFA: w.r.o.PDFA})
	})
}

// direct converts images and PDFs through pdfcpu.
func (r *runner) direct(ctx context.Context, j *sched.Job) error {
	return r.convert(ctx, j, func(ctx context.Context, in, tmp string) error {
		if j.Kind == kindImage {
			return pdf.FromImages(ctx, []string{in}, tmp)
		}
		return pdf.PassThrough(ctx, in, tmp)
	})
}

// convert is every worker's frame: check the input's signature, convert
// into a temporary file beside the output, post-process, rename into
// place. Nothing half-written is left behind on failure.
func (r *runner) convert(ctx context.Context, j *sched.Job, do func(ctx context.Context, in, tmp string) error) error {
	var p payload
	if err := json.Unmarshal(j.Payload, &p); err != nil {
		return sched.Permanent(fmt.Errorf("bad job payload: %w", err))
	}
	// A PDF with an /Encrypt entry may still open without a password
	// (it only restricts copying or printing): pdfcpu decides that.
	if _, err := sniff.Detect(p.Input); err != nil && !(j.Kind == kindPDF && errors.Is(err, sniff.ErrPassword)) {
		return sched.Permanent(err)
	}
	dir := filepath.Dir(p.Output)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	// A run killed with SIGKILL leaves its temporary file; this job holds
	// the output's claim now, so whatever is there is stale.
	stale, _ := filepath.Glob(filepath.Join(dir, "."+globEscape(filepath.Base(p.Output))+".calq-part-*"))
	for _, f := range stale {
		os.Remove(f)
	}
	tmp, err := tempPath(dir, filepath.Base(p.Output))
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := do(ctx, p.Input, tmp); err != nil {
		return classify(err)
	}
	if !postEmpty(r.o.Post) && r.o.Merge == "" {
		if err := pdf.Apply(ctx, tmp, tmp, r.o.Post); err != nil {
			return sched.Permanent(fmt.Errorf("post-process: %w", err))
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.Rename(tmp, p.Output); err != nil {
		return fmt.Errorf("move the PDF into place: %w", err)
	}
	return nil
}

// tempPath reserves a hidden temporary name beside an output.
func tempPath(dir, base string) (string, error) {
	f, err := os.CreateTemp(dir, "."+base+".calq-part-*")
	if err != nil {
		return "", fmt.Errorf("create a temporary file: %w", err)
	}
	name := f.Name()
	f.Close()
	return name, nil
}

// classify marks errors that a retry cannot fix as permanent: a document
// LibreOffice cannot load, a password, a missing tool.
func classify(err error) error {
	var ce *lo.ConvertError
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, pdf.ErrEncrypted), errors.Is(err, lo.ErrNotInstalled):
		return sched.Permanent(err)
	case errors.As(err, &ce) && ce.Reason == "load failed":
		return sched.Permanent(err)
	}
	return err
}

func (r *runner) noteMissing(err error) {
	if errors.Is(err, lo.ErrNotInstalled) {
		r.mu.Lock()
		r.missing = err
		r.mu.Unlock()
	}
}

// event turns the engine's job events into file results.
func (r *runner) event(ev sched.Event) {
	if ev.Job == nil {
		return
	}
	var p payload
	if json.Unmarshal(ev.Job.Payload, &p) != nil || p.Index < 0 || p.Index >= len(r.items) {
		return
	}
	state := map[sched.EventType]string{
		sched.EventDone: StateConverted, sched.EventSkipped: StateSkipped, sched.EventFailed: StateFailed,
		sched.EventTimedOut: StateTimedOut, sched.EventCancelled: StateCancelled, sched.EventRetry: StateRetry,
	}[ev.Type]
	if state == "" {
		return
	}
	if state == StateSkipped && ev.State != sched.StateDone {
		// Another calq holds it (an overlapping run): that run converts
		// it, so it is no failure of this one.
		ev.Reason = "being converted by another calq"
		if ev.Owner != "" {
			ev.Reason = "being converted by " + ev.Owner
		}
	}
	r.mu.Lock()
	res := &r.results[p.Index]
	res.State, res.Backend, res.Seconds = state, ev.Backend, ev.Run.Seconds()
	res.Reason = ""
	switch {
	case state == StateConverted:
	case ev.Err != nil:
		res.Reason = ev.Err.Error()
	case ev.Reason != "":
		res.Reason = ev.Reason
	}
	out := *res
	r.mu.Unlock()
	if r.o.Progress != nil {
		r.o.Progress(out)
	}
}

// summary counts the results; a file with no outcome (the run was
// stopped) counts as failed.
func (r *runner) summary(sum Summary) Summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, res := range r.results {
		switch res.State {
		case StateConverted:
			sum.Converted++
			sum.Outputs = append(sum.Outputs, res.Output)
		case StateSkipped:
			sum.Skipped++
			// A file another run is still converting has no PDF yet.
			if exists(res.Output) {
				sum.Outputs = append(sum.Outputs, res.Output)
			}
		default:
			sum.Failed++
		}
	}
	return sum
}

// globEscape quotes the glob metacharacters of a file name.
func globEscape(name string) string {
	var b strings.Builder
	for _, r := range name {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
