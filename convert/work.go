package convert

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"calq/convert/lo"
	"calq/convert/pdf"
	"calq/convert/sniff"
	"calq/internal/debris"
	"calq/internal/fsio"
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

// officeWorker converts on one LibreOffice instance, the slot-th of the
// pool.
type officeWorker struct {
	r    *runner
	slot int
}

func (w *officeWorker) Run(ctx context.Context, j *sched.Job) error {
	return w.r.convert(ctx, j, w.slot)
}

// direct converts images and PDFs through pdfcpu (and a file whose
// content needs LibreOffice on an instance picked by its index).
func (r *runner) direct(ctx context.Context, j *sched.Job) error {
	return r.convert(ctx, j, -1)
}

// convert is every worker's frame: copy the input aside while hashing
// it, check its content, convert the copy into a temporary file beside
// the output, post-process, check, and place it. Nothing half-written is
// left behind on failure. An error of the file system that a retry
// meets again (permanentFS), at any step, fails the file for good;
// LibreOffice's errors classify has judged already.
func (r *runner) convert(ctx context.Context, j *sched.Job, slot int) (err error) {
	defer func() {
		var ce *lo.ConvertError
		if err != nil && ctx.Err() == nil && !errors.As(err, &ce) && permanentFS(err) {
			err = sched.Permanent(err)
		}
		err = withClass(err)
	}()
	var p payload
	if err := json.Unmarshal(j.Payload, &p); err != nil || p.Index < 0 || p.Index >= len(r.items) {
		return sched.Permanent(fmt.Errorf("bad job payload %q", j.Payload))
	}
	i, it := p.Index, r.items[p.Index]
	// A URL has no file to copy: a page is of the kind that HTML is, and
	// toChromium sends it on.
	kind, snap, inSum := sniff.Office, "", ""
	if isURL(it.Input) {
		inSum = urlSum(it.Input)
	} else {
		if snap, inSum, err = r.snapshot(ctx, i, it.Input); err != nil {
			return err
		}
		defer os.Remove(snap)
		if inSum, err = r.withAssets(ctx, it, inSum); err != nil {
			return err
		}
		if kind, snap, err = r.sniff(i, snap); err != nil {
			return err
		}
	}
	tmp, err := r.tempBeside(it.Output)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if slot < 0 {
		slot = i
	}
	if err := r.produce(ctx, i, slot, kind, snap, tmp); err != nil {
		return r.hideWork(err, it.Input, tmp)
	}
	return r.place(ctx, it, tmp, inSum)
}

// snapshot copies the input into the work directory while hashing it:
// the bytes converted are the bytes hashed, whatever happens to the
// input meanwhile.
func (r *runner) snapshot(ctx context.Context, i int, in string) (string, string, error) {
	src, _, err := openRegular(in)
	if err != nil {
		return "", "", sched.Permanent(errors.New(readFailure(err)))
	}
	defer src.Close()
	path := filepath.Join(r.work.dir, strconv.Itoa(i)+lo.SafeExt(in))
	sum, err := copyHashed(ctx, src, path)
	if err != nil {
		return "", "", fmt.Errorf("copy the input aside: %w", err)
	}
	return path, sum, nil
}

// copyHashed copies src into a new private file at path while hashing
// it, and returns the SHA-256 of what it wrote; on failure it removes
// the file.
func copyHashed(ctx context.Context, src io.Reader, path string) (string, error) {
	dst, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	_, err = copyCtx(ctx, io.MultiWriter(dst, h), src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", err
	}
	return sumHex(h), nil
}

// sniff checks the copy's content. A file whose content is another
// format than its name says, one that the converters open, is renamed
// to that format's extension and converted as such, with a note.
func (r *runner) sniff(i int, snap string) (sniff.Kind, string, error) {
	if lowerExt(snap) == ".md" {
		return sniff.Office, snap, checkText(snap)
	}
	det, err := sniff.DetectFile(snap)
	if err != nil {
		if errors.Is(err, sniff.ErrPassword) && lowerExt(snap) == ".pdf" {
			return sniff.PDF, snap, nil // pdfcpu decides: it may only restrict printing
		}
		if errors.Is(err, sniff.ErrPassword) && r.o.Export.Password != "" {
			return sniff.Office, snap, nil // LibreOffice opens it with the password, or says it is wrong
		}
		// Its path is the private copy's: the reason alone.
		return sniff.Unknown, snap, sched.Permanent(&detected{err: err})
	}
	if det.Note != "" {
		r.mu.Lock()
		r.results[i].Note = det.Note
		r.mu.Unlock()
	}
	if det.As != "" && det.As != lowerExt(snap) {
		as := strings.TrimSuffix(snap, filepath.Ext(snap)) + det.As
		if err := os.Rename(snap, as); err != nil {
			return sniff.Unknown, snap, err
		}
		snap = as
	}
	return det.Kind, snap, nil
}

// hideWork names the input where err names calq's private copy of it (or
// a file made from it) in the work directory, or one of the temporary
// files also: a reason must point the user at their file, not at a
// temporary one that is gone.
func (r *runner) hideWork(err error, input string, also ...string) error {
	msg := err.Error()
	for _, tmp := range also {
		msg = strings.ReplaceAll(msg, tmp, filepath.Base(input))
	}
	if strings.Contains(msg, r.work.dir) {
		re := regexp.MustCompile(regexp.QuoteMeta(r.work.dir+string(filepath.Separator)) + `[^\s:]*`)
		msg = re.ReplaceAllLiteralString(msg, filepath.Base(input))
	}
	if msg == err.Error() {
		return err
	}
	return &renamed{err: err, msg: msg}
}

// renamed is an error with another message; errors.Is and As see the
// original.
type renamed struct {
	err error
	msg string
}

func (e *renamed) Error() string { return e.msg }
func (e *renamed) Unwrap() error { return e.err }

// tempBeside reserves a hidden temporary file beside output, after
// removing what dead runs left in that directory.
func (r *runner) tempBeside(output string) (string, error) {
	dir := filepath.Dir(output)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create the output directory: %w", err)
	}
	r.sweepOnce(dir)
	f, err := os.CreateTemp(dir, debris.Pattern("part", true))
	if err != nil {
		return "", fmt.Errorf("create a temporary file: %w", err)
	}
	name := f.Name()
	f.Close()
	return name, nil
}

// sweepOnce sweeps dir of dead runs' debris, once a run: the record is
// the run's, so that a long-lived process (calq serve runs one a job)
// does not keep every directory it ever wrote to.
func (r *runner) sweepOnce(dir string) {
	if _, done := r.swept.LoadOrStore(dir, true); !done {
		debris.Sweep(dir)
	}
}

// produce converts in (of kind) into tmp and post-processes it. The
// file's timeout covers the conversion, not LibreOffice's start-up.
func (r *runner) produce(ctx context.Context, i, slot int, kind sniff.Kind, in, tmp string) error {
	limit := r.limits[i]
	if r.o.PDFA != 0 {
		return r.producePDFA(ctx, i, slot, kind, in, tmp)
	}
	if err := r.produceAs(ctx, i, slot, kind, in, tmp, 0); err != nil {
		return classify(ctx, kind, err, limit)
	}
	if !r.o.Post.Empty() && r.o.Merge == "" {
		return r.post(ctx, tmp, limit, r.o.Post)
	}
	return nil
}

// produceAs converts in (of kind) into tmp, as PDF/A-pdfa unless 0.
func (r *runner) produceAs(ctx context.Context, i, slot int, kind sniff.Kind, in, tmp string, pdfa int) error {
	limit := r.limits[i]
	switch {
	case kind == sniff.Office && r.toChromium(i, in):
		return r.pageAs(ctx, i, slot, in, tmp, limit, pdfa)
	case kind == sniff.Office && lowerExt(in) == ".md":
		return r.markdownOffice(ctx, i, slot, in, tmp, limit, pdfa)
	case kind == sniff.Office:
		return r.office(ctx, slot, in, tmp, limit, pdfa)
	case kind == sniff.Image:
		return r.image(ctx, i, slot, in, tmp, limit, pdfa)
	default:
		return r.passPDF(ctx, slot, in, tmp, limit, pdfa)
	}
}

// producePDFA makes the PDF/A of in in the order of pdf.AroundPDFA: a
// plain PDF first when the pages change, those changes, LibreOffice's
// PDF/A export of that PDF, then what PDF/A allows after it, with the
// XMP made to repeat the information dictionary. Check refused what
// cannot go with the level (a merge; anything after a PDF/A-1 export).
func (r *runner) producePDFA(ctx context.Context, i, slot int, kind sniff.Kind, in, tmp string) error {
	limit := r.limits[i]
	before, after := pdf.AroundPDFA(r.o.Post)
	if before.Empty() {
		if err := r.produceAs(ctx, i, slot, kind, in, tmp, r.o.PDFA); err != nil {
			return classify(ctx, kind, err, limit)
		}
	} else {
		pages := filepath.Join(r.work.dir, strconv.Itoa(i)+"-pages.pdf")
		defer os.Remove(pages)
		if err := r.produceAs(ctx, i, slot, kind, in, pages, 0); err != nil {
			return classify(ctx, kind, err, limit)
		}
		if err := r.post(ctx, pages, limit, before); err != nil {
			return err
		}
		if err := r.onInstance(ctx, slot, pages, tmp, r.pdfaOptions(limit)); err != nil {
			return classify(ctx, sniff.PDF, err, limit)
		}
	}
	if !after.Empty() {
		after.SyncXMP = true
		if err := r.post(ctx, tmp, limit, after); err != nil {
			return err
		}
	}
	return r.checkPDFA(ctx, tmp, limit)
}

// pdfaOptions are LibreOffice's options to export a PDF it imports as
// the run's PDF/A (and PDF/UA, when asked).
func (r *runner) pdfaOptions(limit time.Duration) lo.ConvertOptions {
	return lo.ConvertOptions{PDFA: r.o.PDFA, Export: lo.Export{PDFUA: r.o.Export.PDFUA}, Timeout: limit}
}

// post post-processes the PDF at path in place with p, within limit.
func (r *runner) post(ctx context.Context, path string, limit time.Duration, p pdf.Post) error {
	err := r.pdf.Apply(ctx, limit, path, path, p)
	if err != nil && ctx.Err() == nil {
		return sched.Permanent(fmt.Errorf("post-process: %w", err))
	}
	return err
}

// office converts an office document on the slot-th LibreOffice
// instance, with the run's export options.
func (r *runner) office(ctx context.Context, slot int, in, out string, limit time.Duration, pdfa int) error {
	return r.onInstance(ctx, slot, in, out, lo.ConvertOptions{PDFA: pdfa, Export: r.o.Export, Timeout: limit})
}

// onInstance converts on Options.Office when set, else on the slot-th
// LibreOffice instance.
func (r *runner) onInstance(ctx context.Context, slot int, in, out string, o lo.ConvertOptions) error {
	if r.o.Office != nil {
		return r.o.Office.Convert(ctx, in, out, o)
	}
	pool, err := r.pool.get()
	if err != nil {
		r.noteMissing(err)
		return sched.Permanent(err)
	}
	insts := pool.Instances()
	return insts[slot%len(insts)].Convert(ctx, in, out, o)
}

// image converts an image through pdfcpu, and for PDF/A hands that PDF
// to LibreOffice, which imports it and exports PDF/A.
func (r *runner) image(ctx context.Context, i, slot int, in, out string, limit time.Duration, pdfa int) error {
	if pdfa == 0 {
		return r.pdf.FromImages(ctx, limit, []string{in}, out)
	}
	mid := filepath.Join(r.work.dir, strconv.Itoa(i)+"-image.pdf")
	defer os.Remove(mid)
	if err := r.pdf.FromImages(ctx, limit, []string{in}, mid); err != nil {
		return err
	}
	// Export is for office documents: an image's page stays as pdfcpu
	// made it, with or without PDF/A.
	return r.onInstance(ctx, slot, mid, out, lo.ConvertOptions{PDFA: pdfa, Timeout: limit})
}

// passPDF passes a PDF within its limits through pdfcpu, or for PDF/A
// keeps it as it is when it is PDF/A of the part asked for already, else
// hands it to LibreOffice, which imports it and exports PDF/A (as images
// go, and as calq serve's pdfengines/convert does).
func (r *runner) passPDF(ctx context.Context, slot int, in, out string, limit time.Duration, pdfa int) error {
	if err := pdf.CheckLimits(ctx, in, r.o.PDFLimits); err != nil {
		return err
	}
	if pdfa == 0 {
		return r.pdf.PassThrough(ctx, limit, in, out)
	}
	c, err := r.pdf.PDFA(ctx, limit, in)
	if err != nil {
		return err
	}
	if c.Part != pdfa {
		return r.onInstance(ctx, slot, in, out, lo.ConvertOptions{PDFA: pdfa, Timeout: limit})
	}
	return copyFile(ctx, in, out)
}

func describePDFA(c pdf.Conformance) string {
	if c.Part == 0 {
		return "the PDF is not PDF/A"
	}
	return fmt.Sprintf("the PDF is PDF/A-%d%s", c.Part, strings.ToLower(c.Level))
}

// checkPDFA fails a result that does not identify as the PDF/A asked
// for: no file is called converted without meeting --pdfa.
func (r *runner) checkPDFA(ctx context.Context, path string, limit time.Duration) error {
	if r.o.PDFA == 0 {
		return nil
	}
	c, err := r.pdf.PDFA(ctx, limit, path)
	if err != nil {
		return sched.Permanent(fmt.Errorf("check PDF/A: %w", err))
	}
	if c.Part != r.o.PDFA {
		return sched.Permanent(fmt.Errorf("the result is not PDF/A-%d (%s)", r.o.PDFA, describePDFA(c)))
	}
	return nil
}

func copyFile(ctx context.Context, in, out string) error {
	src, _, err := openRegular(in)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(out, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = copyCtx(ctx, dst, src)
	return errors.Join(err, dst.Close())
}

// place moves tmp to the item's output, recording its provenance around
// the rename: pending before, placed after, so that a run killed in
// between leaves a file the next run knows as calq's.
func (r *runner) place(ctx context.Context, it Item, tmp, inSum string) error {
	if err := os.Chmod(tmp, outputMode()); err != nil && !errors.Is(err, os.ErrPermission) {
		return fmt.Errorf("set the PDF's mode: %w", err)
	}
	outSum, err := fileSum(ctx, tmp)
	if err != nil {
		return fmt.Errorf("digest the PDF: %w", err)
	}
	if err := r.mayReplace(ctx, it); err != nil {
		return err
	}
	rec := Record{Output: it.Output, Input: it.Real, InputSum: inSum, Options: r.opts, PendingSum: outSum, Converted: time.Now()}
	if err := r.o.Store.Pending(ctx, rec); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := fsio.Rename(tmp, it.Output); err != nil {
		return fmt.Errorf("move the PDF into place: %w", err)
	}
	return r.o.Store.Placed(context.WithoutCancel(ctx), it.Output)
}

// mayReplace checks, just before the rename, that whatever is at the
// item's output now is calq's PDF of this input (or absent), unless
// Overwrite: an overlapping run may have placed another input's there.
func (r *runner) mayReplace(ctx context.Context, it Item) error {
	if r.o.Overwrite {
		return nil
	}
	output := it.Output
	fi, err := os.Lstat(output)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err == nil && !fi.Mode().IsRegular() {
		return sched.Permanent(fmt.Errorf("the output %s is %s; calq replaces only regular files", output, modeKind(fi.Mode())))
	}
	sum, err := fileSum(ctx, output)
	if err != nil {
		return fmt.Errorf("read the output %s: %w", output, unwrapPath(err))
	}
	rec, ok, err := r.o.Store.Record(ctx, output)
	if err != nil {
		return err
	}
	if !ok {
		rec, ok = r.legacyRecord(ctx, output, sum)
	}
	switch {
	case !ours(rec, ok, sum):
		return sched.Permanent(errors.New(overwriteReason(output, ok)))
	case !sameInput(rec.Input, it):
		return sched.Permanent(errors.New(otherInputReason(output, rec.Input, it.Input)))
	}
	return nil
}

// classify marks errors that a retry cannot fix as permanent, so that no
// deterministic failure costs its time twice: a document LibreOffice
// cannot load or that hangs it (its own timeout), what pdfcpu or an image
// decoder rejects (the same bytes give the same error), a password, a
// missing tool, and errors of the file system that fail the same way
// again (permanentErrnos: a read-only or missing output directory).
// Transient are an instance that died or could not start and the other
// errors of the file system (a full disk may have room again).
func classify(ctx context.Context, kind sniff.Kind, err error, limit time.Duration) error {
	var ce *lo.ConvertError
	switch {
	case ctx.Err() == nil && (errors.Is(err, sched.ErrTimeout) || errors.Is(err, context.DeadlineExceeded)):
		return sched.Permanent(&timeoutError{limit: limit})
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, pdf.ErrEncrypted), errors.Is(err, pdf.ErrTooLarge), errors.Is(err, lo.ErrNotInstalled):
		return sched.Permanent(err)
	case errors.As(err, &ce):
		ioReason := ce.Reason == lo.ReasonInput || ce.Reason == lo.ReasonOutput
		if permanentReason[ce.Reason] || ioReason && permanentFS(err) {
			return sched.Permanent(err)
		}
		return err
	case permanentFS(err):
		return sched.Permanent(err)
	case isFSError(err):
		return err
	case kind != sniff.Office && sched.IsPermanent(err):
		return err // calq's own verdict (PDF/A), not the content's
	case kind != sniff.Office:
		return sched.Permanent(&contentError{kind: kind, err: err})
	}
	return err
}

// permanentReason are the LibreOffice failures that recur on the same
// document.
var permanentReason = map[string]bool{lo.ReasonLoadFailed: true, lo.ReasonBadOutput: true, lo.ReasonTimeout: true,
	lo.ReasonMemoryLimit: true, lo.ReasonPassword: true, lo.ReasonOptions: true, lo.ReasonEncryption: true,
	lo.ReasonExport: true}

// permanentErrnos are the file system's errors that a retry meets
// again: only a person changes permissions, mounts or paths.
var permanentErrnos = []syscall.Errno{syscall.EACCES, syscall.EPERM, syscall.ENOENT, syscall.EROFS,
	syscall.ENOTDIR, syscall.EISDIR, syscall.ENAMETOOLONG, syscall.ELOOP}

// permanentFS says whether err is one of permanentErrnos.
func permanentFS(err error) bool {
	for _, e := range permanentErrnos {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// isFSError says whether err came from the file system rather than from
// the content.
func isFSError(err error) bool {
	var pe *fs.PathError
	var le *os.LinkError
	var errno syscall.Errno
	return errors.As(err, &pe) || errors.As(err, &le) || errors.As(err, &errno)
}

func (r *runner) noteMissing(err error) {
	if errors.Is(err, lo.ErrNotInstalled) {
		r.mu.Lock()
		r.missing = err
		r.mu.Unlock()
	}
}

// lowerExt is path's extension in lower case.
func lowerExt(path string) string { return strings.ToLower(filepath.Ext(path)) }
