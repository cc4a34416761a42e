package lo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"calq/convert/sniff"
	"calq/internal/debris"
	"calq/internal/proc"
)

// ConvertOptions say how to convert one document.
type ConvertOptions struct {
	PDFA int // 0: plain PDF; 1, 2, 3: PDF/A-1b, PDF/A-2b, PDF/A-3b
	// Export holds the export filter's options and the source's
	// password; its zero value is LibreOffice's defaults.
	Export Export
	// Timeout, when positive, bounds the conversion alone: its clock
	// starts once the instance is ready, so that an instance (re)starting
	// does not eat a document's time. ctx still bounds everything.
	Timeout time.Duration
}

// Convert converts the file in to a PDF written at out (a path the caller
// chose in an existing directory; an existing file there is replaced).
//
// The input is linked or copied under a private ASCII name into the
// instance's work directory and converted into a private output
// directory, so that names, stems and odd characters cannot collide. The
// verdict is the output file, never soffice's exit status. When ctx is
// done first, the instance's process group is killed, any output removed
// and the instance restarted by the next call. Errors are *ConvertError.
func (i *Instance) Convert(ctx context.Context, in, out string, o ConvertOptions) error {
	if o.PDFA < 0 || o.PDFA > 3 {
		return &ConvertError{Input: in, Reason: ReasonOptions, Err: fmt.Errorf("PDF/A part %d: want 0, 1, 2 or 3", o.PDFA)}
	}
	if err := o.Export.Check(); err != nil {
		return &ConvertError{Input: in, Reason: ReasonOptions, Err: err}
	}
	if err := i.acquire(ctx); err != nil {
		return &ConvertError{Input: in, Reason: stopReason(err), Err: err}
	}
	defer i.release()
	i.setFlag(&i.busy, true)
	defer i.setFlag(&i.busy, false)
	r, err := i.ensure(ctx)
	if err != nil {
		return &ConvertError{Input: in, Reason: stopReason(err), Err: err}
	}
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	defer os.RemoveAll(i.l.work())
	src, err := i.stage(in)
	if err != nil {
		return &ConvertError{Input: in, Reason: ReasonInput, Err: err}
	}
	if o.Export.SinglePageSheets && (SafeExt(src) == ".xlsx" || SafeExt(src) == ".xlsm") {
		if err := unscroll(src); err != nil {
			return &ConvertError{Input: in, Reason: ReasonInput, Err: err}
		}
	}
	pdf, cerr := i.hand(ctx, r, src, o)
	if cerr != nil {
		cerr.Input = in
		i.count(cerr)
		return cerr
	}
	if err := place(pdf, out); err != nil {
		i.count(err)
		return &ConvertError{Input: in, Reason: ReasonOutput, Err: err}
	}
	i.count(nil)
	i.recycle(r)
	return nil
}

// stopReason names why a wait ended: the context or the pool.
func stopReason(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return ReasonTimeout
	case errors.Is(err, context.Canceled):
		return ReasonCanceled
	case errors.Is(err, ErrClosed):
		return ReasonClosed
	}
	return ReasonStartFailed
}

// stage links (or copies) in into a fresh work directory as in.EXT and
// returns that path.
func (i *Instance) stage(in string) (string, error) {
	work := i.l.work()
	if err := os.RemoveAll(work); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(work, "out"), 0o700); err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(in)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("not a regular file")
	}
	src := filepath.Join(work, "in"+SafeExt(in))
	if safe, err := i.neutralized(real); err != nil || safe != nil {
		if err == nil {
			err = os.WriteFile(src, safe, 0o600)
		}
		return src, err
	}
	if os.Link(real, src) == nil {
		return src, nil
	}
	return src, copyFile(real, src)
}

// neutralized returns the RTF file at path with its including fields
// blanked (see neutralizeRTF), or nil when path is not RTF or has none.
func (i *Instance) neutralized(path string) ([]byte, error) {
	if i.p.opts.noHardening {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, 64)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if !isRTF(head[:n]) {
		return nil, nil
	}
	rest, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	safe, changed := neutralizeRTF(append(head[:n], rest...))
	if !changed {
		return nil, nil
	}
	return safe, nil
}

// SafeExt is in's extension in lower case when it is plain ASCII letters
// and digits; LibreOffice's type detection uses it. Otherwise "".
func SafeExt(in string) string {
	ext := strings.ToLower(filepath.Ext(in))
	if len(ext) < 2 || len(ext) > 10 {
		return ""
	}
	for _, c := range ext[1:] {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return ""
		}
	}
	return ext
}

// hand gives src to the instance and returns the path of the PDF made.
// On ctx done, the pool closing or the instance dying, it kills the
// instance and the client; the caller's deferred removal of the work
// directory takes any output with it.
func (i *Instance) hand(ctx context.Context, r *run, src string, o ConvertOptions) (string, *ConvertError) {
	if r.uno != nil {
		return i.handUNO(ctx, r, src, o)
	}
	outDir := filepath.Join(filepath.Dir(src), "out")
	if o.Export.Landscape || o.Export.Password != "" || o.Export.UpdateIndexes {
		return "", &ConvertError{Reason: ReasonOptions, Err: errClientExport}
	}
	args := []string{"--convert-to", target(src, o.PDFA, o.Export), "--outdir", outDir}
	if f := importFilter(src); f != "" {
		args = append(args, "--infilter="+f)
	}
	client := i.command(proc.Child, filepath.Dir(src), append(args, src)...)
	clog := newTailLog(4 << 10)
	client.Stdout, client.Stderr = clog, clog
	mark := r.log.mark()
	if err := client.Start(); err != nil {
		return "", &ConvertError{Reason: ReasonStartFailed, Err: err}
	}
	i.setClient(client)
	defer i.setClient(nil)
	waited := make(chan struct{})
	go func() {
		client.Wait()
		close(waited)
	}()
	fail := func(reason string, err error) (string, *ConvertError) {
		i.stop(r) // kills the client too: it carries the profile
		select {
		case <-waited:
		default:
			killGroup(client.Process.Pid)
			<-waited
		}
		return "", &ConvertError{Reason: reason, Err: err, Detail: said(r.log.since(mark))}
	}
	if _, _, reason, err := await(ctx, i, r, waited); reason != "" {
		return fail(reason, err)
	}
	pdf := filepath.Join(outDir, strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))+".pdf")
	if _, err := os.Stat(pdf); err != nil {
		if !i.alive(r) {
			return fail(ReasonInstanceDied, nil)
		}
		return "", &ConvertError{Reason: ReasonLoadFailed, Detail: said(r.log.since(mark) + clog.String())}
	}
	return pdf, checkOutput(pdf)
}

// handUNO is hand through the instance's UNO helper: one request on its
// stdin, one answer on its stdout, no process started.
func (i *Instance) handUNO(ctx context.Context, r *run, src string, o ConvertOptions) (string, *ConvertError) {
	pdf := filepath.Join(filepath.Dir(src), "out", "out.pdf")
	mark := r.log.mark()
	fail := func(reason string, err error) (string, *ConvertError) {
		i.stop(r) // the helper with it
		return "", &ConvertError{Reason: reason, Err: err, Detail: said(r.log.since(mark))}
	}
	h := r.uno
	req := helperRequest{In: src, Out: pdf, InFilter: importFilter(src), PDFA: o.PDFA,
		Lossless: o.PDFA > 0 && SafeExt(src) == ".pdf", Filter: o.Export.filterData(),
		Landscape: o.Export.Landscape, Password: o.Export.Password, UpdateIndexes: o.Export.UpdateIndexes}
	if err := h.send(req); err != nil {
		return fail(ReasonInstanceDied, fmt.Errorf("the UNO helper: %w", err))
	}
	i.handing.Store(true)
	defer i.handing.Store(false)
	rep, ok, reason, err := await(ctx, i, r, h.replies)
	switch {
	case reason != "":
		return fail(reason, err)
	case !ok || rep.Stage == "connection" || rep.Stage == "request":
		// The helper is gone or out of step: the instance with it.
		return fail(ReasonInstanceDied, helperError(rep, h))
	case !rep.OK:
		if !i.alive(r) {
			return fail(ReasonInstanceDied, nil)
		}
		switch {
		case rep.Stage == "password":
			return "", &ConvertError{Reason: ReasonPassword, Err: ErrWrongPassword}
		case rep.Stage == "export":
			return "", &ConvertError{Reason: ReasonExport, Detail: rep.Error}
		case o.Export.Password != "" && encrypted(src):
			// LibreOffice did not ask for the password of an encrypted
			// document: it does not know the encryption.
			return "", &ConvertError{Reason: ReasonEncryption, Detail: rep.Error}
		}
		return "", &ConvertError{Reason: ReasonLoadFailed, Detail: rep.Error}
	}
	return pdf, checkOutput(pdf)
}

// encrypted says whether the document at path is password-protected,
// as calq's content check sees it.
func encrypted(path string) bool {
	_, err := sniff.Detect(path)
	return errors.Is(err, sniff.ErrPassword)
}

// await waits for a value on ch while watching what else ends a
// conversion: ctx, the instance's exit, the pool closing, and the memory
// limit. The instance's memory is sampled while it converts and when it
// is done: a document
// can make it grow by gigabytes long before any timeout. reason is "" when
// ch delivered (ok false when it was closed), else the ConvertError reason,
// with err. A deadline that passes while the instance is, or was, stopped
// (SIGSTOP) is the instance's fault, not the document's: ReasonStopped.
func await[T any](ctx context.Context, i *Instance, r *run, ch <-chan T) (v T, ok bool, reason string, err error) {
	sample := time.NewTicker(memorySampleEvery)
	defer sample.Stop()
	stopped := false
	for {
		select {
		case v, ok = <-ch:
			// Sampled once more at the end: a conversion shorter than
			// the sampling period is held to the limit too.
			if err := i.overLimit(r.watch.rss()); ok && err != nil {
				return v, false, ReasonMemoryLimit, err
			}
			return v, ok, "", nil
		case <-ctx.Done():
			if _, now := r.watch.scan(); (stopped || now) && errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return v, false, ReasonStopped, ErrInstanceStopped
			}
			return v, false, stopReason(ctx.Err()), ctx.Err()
		case <-r.done:
			return v, false, ReasonInstanceDied, nil
		case <-i.p.closing:
			return v, false, ReasonClosed, ErrClosed
		case <-sample.C:
			rss, now := r.watch.scan()
			stopped = stopped || now
			if err := i.overLimit(rss); err != nil {
				return v, false, ReasonMemoryLimit, err
			}
		}
	}
}

// overLimit says whether rss, of an instance's process group, is more
// memory than Options.MemoryLimit, and by how much.
func (i *Instance) overLimit(rss int64) error {
	limit := i.p.opts.MemoryLimit
	if rss <= limit {
		return nil
	}
	// Rounded up: over a limit of whole MiB, the two numbers differ.
	return fmt.Errorf("LibreOffice used %d MiB, over the limit of %d MiB", (rss+1<<20-1)>>20, limit>>20)
}

// helperError says what the helper said, or printed on stderr, when it
// failed otherwise than on a document.
func helperError(rep helperReply, h *helper) error {
	if rep.Error != "" {
		return fmt.Errorf("the UNO helper: %s", rep.Error)
	}
	if s := lastLines(h.stderr.String(), 3); s != "" {
		return fmt.Errorf("the UNO helper exited: %s", s)
	}
	return errors.New("the UNO helper exited")
}

// checkOutput says whether the file at pdf starts as a PDF does.
func checkOutput(pdf string) *ConvertError {
	f, err := os.Open(pdf)
	if err != nil {
		return &ConvertError{Reason: ReasonBadOutput, Err: err}
	}
	defer f.Close()
	head := make([]byte, 5)
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, []byte("%PDF-")) {
		return &ConvertError{Reason: ReasonBadOutput, Err: err}
	}
	return nil
}

func (i *Instance) setClient(c *exec.Cmd) {
	i.mu.Lock()
	i.client = c
	i.mu.Unlock()
}

// alive reports whether r's soffice.bin still runs: when a client comes
// back empty-handed because the instance crashed, the instance's own exit
// may not have been noticed yet.
func (i *Instance) alive(r *run) bool {
	select {
	case <-r.done:
		return false
	default:
	}
	for _, pid := range marked(profileArg(r.marker)) {
		if pid != r.pgid && isBin(pid) && pgidOf(pid) == r.pgid {
			return true
		}
	}
	return false
}

// rssCheckEvery is how often recycle reads the instance's memory.
const rssCheckEvery = 8

// recycle restarts the instance (by stopping it: the next call starts it)
// after MaxConversions conversions or above MaxRSS.
func (i *Instance) recycle(r *run) {
	i.mu.Lock()
	i.convs++
	n := i.convs
	i.mu.Unlock()
	// Reading the group's memory scans /proc (about a millisecond, while
	// the instance waits): every rssCheckEvery conversions is enough for
	// a limit that restarts an instance between documents (the first
	// conversion after a start, then every rssCheckEvery-th).
	if n >= i.p.opts.MaxConversions || (n-1)%rssCheckEvery == 0 && r.watch.rss() > i.p.opts.MaxRSS {
		i.stop(r)
	}
}

// target is the --convert-to argument: "pdf", or with filter options
// (PDF/A, Export's) the export filter of the document's kind with its
// FilterData (LibreOffice 7.4 takes filter options as JSON).
func target(src string, pdfa int, e Export) string {
	var data []filterProp
	if pdfa != 0 {
		data = append(data, longProp("SelectPdfVersion", pdfa))
		if SafeExt(src) == ".pdf" {
			// A PDF made from an image: keep its pixels, no JPEG again.
			data = append(data, boolProp("UseLosslessCompression", true), boolProp("ReduceImageResolution", false))
		}
	}
	data = mergeProps(data, e.filterData())
	if len(data) == 0 {
		return "pdf"
	}
	var b strings.Builder
	for i, p := range data {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(p.Name)
		value, _ := json.Marshal(p.Value)
		fmt.Fprintf(&b, `%s:{"type":"%s","value":%s}`, name, p.Type, value)
	}
	return fmt.Sprintf("pdf:%s:{%s}", exportFilter(src), b.String())
}

// importFilter is the filter to open src with when LibreOffice's own
// choice is wrong, else "". An HTML template (.oth, ODF text-web) opens in
// Writer/Web, whose PDF export writes empty pages (LibreOffice 7.4); opened
// as a Writer document it prints its text. XHTML, which LibreOffice
// opens in Writer/Web too, is read as HTML into Writer.
func importFilter(src string) string {
	switch SafeExt(src) {
	case ".oth":
		return "writer8"
	case ".xhtml":
		return "HTML (StarWriter)"
	}
	return ""
}

// exportFilter is the PDF export filter of the module that opens src.
func exportFilter(src string) string {
	switch strings.TrimPrefix(SafeExt(src), ".") {
	case "html", "htm":
		return "writer_web_pdf_Export"
	case "xls", "xlsx", "xlsm", "xlsb", "xlt", "xltx", "xltm", "ods", "ots", "fods", "csv", "tsv", "dif", "slk", "sxc", "numbers",
		"stc", "sdc", "xlw", "123", "wk1", "wks", "wb2", "dbf":
		return "calc_pdf_Export"
	case "ppt", "pptx", "pptm", "pps", "ppsx", "pot", "potx", "potm", "odp", "otp", "fodp", "sxi", "key", "sti", "sdd", "cgm":
		return "impress_pdf_Export"
	case "odg", "otg", "fodg", "vsd", "vsdx", "svg", "png", "jpg", "jpeg", "gif", "bmp", "tif", "tiff", "webp", "emf", "wmf", "pdf", "cdr", "pub",
		"vsdm", "vdx", "sxd", "std", "sda", "cmx", "wpg", "dxf", "eps", "svm", "met", "pct", "pcd", "pcx", "psd", "ras", "tga",
		"pbm", "pgm", "ppm", "xbm", "xpm":
		return "draw_pdf_Export"
	}
	return "writer_pdf_Export"
}

// place moves the PDF to out, copying through a temporary file beside out
// when they are on different file systems, so that out is never
// half-written.
func place(pdf, out string) error {
	if os.Rename(pdf, out) == nil {
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), debris.Pattern("lo", true))
	if err != nil {
		return err
	}
	tmp.Close()
	if err := copyFile(pdf, tmp.Name()); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	return errors.Join(err, dst.Close())
}
