package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"calq/convert"
	"calq/convert/lo"
	"calq/convert/pdf"
	"calq/convert/pdfpool"
	"calq/internal/exitcode"
	"calq/internal/serve/jobs"
	"calq/internal/zipfile"
	"calq/sched"
)

// Task is what a job does, kept as its request's options in the journal
// so that a server started again does the same. The route says which
// steps run; the fields are those the route's form gave, over the user's
// profile.
type Task struct {
	PDFA   int            `json:"pdfa,omitempty"`
	Export lo.Export      `json:"export"`
	Merge  bool           `json:"merge,omitempty"`
	Split  *pdf.SplitSpec `json:"split,omitempty"`
	Post   pdf.Post       `json:"post"`
	MailTo []string       `json:"mail_to,omitempty"`
	// Title is the title of the profile the job used, for names.
	Title string `json:"title,omitempty"`
	// Partial keeps the PDFs of the files that converted when others
	// failed (a page's request): the job is done, its failed files
	// marked; an API request fails whole, as Gotenberg's does.
	Partial bool `json:"partial,omitempty"`
	// FileBookmarks are bookmarks by the stored name of the PDF whose
	// outline they replace (see postFor).
	FileBookmarks map[string][]pdf.Bookmark `json:"file_bookmarks,omitempty"`
}

// The routes a job can be: Gotenberg's, below /forms/.
const (
	routeConvert    = "libreoffice/convert"
	routeMerge      = "pdfengines/merge"
	routeSplit      = "pdfengines/split"
	routePDFA       = "pdfengines/convert"
	routeMetaRead   = "pdfengines/metadata/read"
	routeMetaWrite  = "pdfengines/metadata/write"
	routeEncrypt    = "pdfengines/encrypt"
	routeWatermark  = "pdfengines/watermark"
	routeStamp      = "pdfengines/stamp"
	routeRotate     = "pdfengines/rotate"
	routeFlatten    = "pdfengines/flatten"
	routeOptimize   = "pdfengines/optimize"
	resultDirName   = "out"
	inputDirName    = "in"
	contentTypePDF  = "application/pdf"
	contentTypeZip  = "application/zip"
	contentTypeJSON = "application/json"
)

// jobError is a job's failure with the HTTP status it answers; err,
// when set, is its cause for errors.Is.
type jobError struct {
	status int
	msg    string
	err    error
}

func (e *jobError) Error() string { return e.msg }
func (e *jobError) Unwrap() error { return e.err }

func badRequest(format string, args ...any) error {
	return &jobError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

// execute runs job j in dir (its directory: the inputs under in/) and
// returns its result, a file in dir.
func (s *Server) execute(ctx context.Context, j *jobs.Job, dir string, t Task) (*jobs.Result, error) {
	out := filepath.Join(dir, resultDirName)
	if err := os.RemoveAll(out); err != nil { // a run before a crash
		return nil, err
	}
	if err := os.MkdirAll(out, 0o700); err != nil {
		return nil, err
	}
	ins := make([]string, len(j.Request.Files))
	for i, f := range j.Request.Files {
		ins[i] = filepath.Join(dir, inputDirName, f.Stored)
	}
	var pdfs []string
	var err error
	switch j.Route {
	case routeConvert:
		pdfs, err = s.convert(ctx, j, ins, out, t)
	case routeMerge:
		merged := filepath.Join(out, "merged.pdf")
		if err = s.pdf.Merge(ctx, s.fileLimit(ins...), ins, merged); err == nil {
			pdfs, err = s.after(ctx, []string{merged}, out, t)
		}
	case routePDFA:
		pdfs, err = s.toPDFA(ctx, j, ins, out, t)
	case routeMetaRead:
		return s.readMetadata(ctx, j, ins, dir)
	case routeBookmarksRead:
		return s.readBookmarks(ctx, j, ins, dir)
	case routeFacturX:
		pdfs, err = s.facturX(ctx, j, ins, out, t)
	default:
		pdfs, err = s.after(ctx, ins, out, t)
	}
	if err != nil {
		return nil, err
	}
	return s.pack(j, pdfs, dir, t)
}

// convert runs calq convert's conversion on the inputs, on the fair share
// of the warm pool of this job's user, or through the shared queue: the
// same code, provenance checks and post-processing as the command. Split,
// when asked, comes after the merge and before the post-processing, as in
// Gotenberg.
func (s *Server) convert(ctx context.Context, j *jobs.Job, ins []string, out string, t Task) ([]string, error) {
	var mu sync.Mutex
	var failed []string
	var fault error // a file failed for the server's own fault
	timedOut := false
	o := convert.Options{
		Inputs: ins, Out: out, PDFA: t.PDFA, Export: t.Export,
		Office: &fairOffice{s: s, job: j.ID, user: j.Owner, class: j.Class}, OfficeSlots: s.instances,
		PDF: s.pdf, PDFLimits: s.opts.Limits.PDF,
		Class: j.Class, Timeout: s.opts.FileTimeout, Workers: s.opts.Workers, Retries: officeRetries,
		Journal: s.opts.Journal, Label: sharedLabel(j.ID),
		Progress: func(f convert.FileResult) {
			s.progress(j, f)
			if f.State == convert.StateConverted || f.State == convert.StateSkipped || f.State == convert.StateRetry || f.Reason == "" {
				return
			}
			mu.Lock()
			failed = append(failed, clientName(j, f.Input)+": "+s.clientText(j, f.Reason))
			if f.Err != nil && (diskFull(f.Err) || sqliteCode(f.Err) >= 0) {
				fault = f.Err
			}
			timedOut = timedOut || f.State == convert.StateTimedOut
			mu.Unlock()
		},
	}
	if s.shared != nil && t.Export.Password == "" {
		o.Shared, o.Office, o.Journal = s.shared, nil, nil
	}
	if t.Split == nil {
		o.Post = t.Post
	}
	if t.Merge && len(ins) > 1 {
		o.Merge = filepath.Join(out, "merged.pdf")
	}
	sum, err := convert.Run(ctx, o)
	if t.Partial && errors.Is(err, exitcode.ErrPartial) {
		err = nil // the failed files are marked in the job's states
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		mu.Lock()
		defer mu.Unlock()
		if fault != nil {
			return nil, fault
		}
		if len(failed) == 0 {
			failed = []string{s.clientText(j, err.Error())}
		}
		if timedOut { // the file timeout, as the pdfengines routes' and Gotenberg's: 503
			return nil, &jobError{status: http.StatusServiceUnavailable, msg: strings.Join(failed, "; ")}
		}
		return nil, badRequest("%s", strings.Join(failed, "; "))
	}
	pdfs := sum.Outputs
	if o.Merge != "" {
		pdfs = []string{o.Merge}
	}
	if t.Split == nil {
		return pdfs, nil
	}
	return s.after(ctx, pdfs, out, Task{Split: t.Split, Post: t.Post})
}

// fileLimit is the time pdfcpu's work on files may take: --file-timeout
// for each, else convert's default for its size, added up.
func (s *Server) fileLimit(files ...string) time.Duration {
	return convert.FilesTimeout(s.opts.FileTimeout, files...)
}

// stopped says whether err is a helper's stop for the file's time or
// memory, which the job's end reports as such.
func stopped(err error) bool {
	return errors.Is(err, sched.ErrTimeout) || errors.Is(err, pdfpool.ErrMemoryLimit)
}

// sharedLabel is the label of job id's batch in the shared queue, as
// calq history shows it.
func sharedLabel(id string) string { return "serve-" + id }

// clientName is the client's name of the input at path.
func clientName(j *jobs.Job, path string) string {
	base := filepath.Base(path)
	for _, f := range j.Request.Files {
		if f.Stored == base {
			return f.Name
		}
	}
	return base
}

// after runs the pdfengines steps on PDFs: split, then the
// post-processing, each file on its own.
func (s *Server) after(ctx context.Context, ins []string, out string, t Task) ([]string, error) {
	files := ins
	if t.Split != nil {
		files = nil
		for i, in := range ins {
			dir := filepath.Join(out, "split-"+strconv.Itoa(i))
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, err
			}
			parts, err := s.pdf.Split(ctx, s.fileLimit(in), in, dir, *t.Split)
			if err != nil {
				return nil, stepError(in, err)
			}
			files = append(files, parts...)
		}
	}
	res := make([]string, len(files))
	for i, f := range files {
		res[i] = filepath.Join(out, fmt.Sprintf("post-%04d.pdf", i))
		if err := s.pdf.Apply(ctx, s.fileLimit(f), f, res[i], t.postFor(f)); err != nil {
			return nil, stepError(f, err)
		}
	}
	return res, nil
}

// stepError is a pdfengines step's failure on the file at path: a stop
// for its time, its memory or a crash of its helper is said as "name:
// what happened", without the step's internal name ("post-process").
func stepError(path string, err error) error {
	var te *pdfpool.TimeoutError
	var me *pdfpool.MemoryError
	var ce *pdfpool.CrashError
	switch {
	case errors.As(err, &te):
		return fmt.Errorf("%s: %w", filepath.Base(path), te)
	case errors.As(err, &me):
		return fmt.Errorf("%s: %w", filepath.Base(path), me)
	case errors.As(err, &ce):
		return fmt.Errorf("%s: %w", filepath.Base(path), ce)
	}
	return fieldStepError(path, err)
}

// toPDFA turns PDFs into PDF/A, PDF/UA or both through LibreOffice, as
// Gotenberg's pdfengines/convert does. The result is LibreOffice's export
// as it wrote it: any rewrite after it (pdfcpu's, to PDF 1.7 with object
// streams) would break what it claims.
func (s *Server) toPDFA(ctx context.Context, j *jobs.Job, ins []string, out string, t Task) ([]string, error) {
	if t.PDFA == 0 && !t.Export.PDFUA {
		return nil, badRequest("Invalid form data: either 'pdfa' or 'pdfua' form fields must be provided")
	}
	res := make([]string, len(ins))
	for i, in := range ins {
		res[i] = filepath.Join(out, fmt.Sprintf("pdfa-%04d.pdf", i))
		if err := s.officePDFA(ctx, j, i, in, res[i], t.PDFA, t.Export.PDFUA); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// officePDFA has LibreOffice export the job's i-th file, in, as PDF/A-pdfa
// (0: none) and, with ua, PDF/UA at out; its failure is said in words for
// people, by the client's name.
func (s *Server) officePDFA(ctx context.Context, j *jobs.Job, i int, in, out string, pdfa int, ua bool) error {
	office := &fairOffice{s: s, user: j.Owner, class: j.Class, retries: officeRetries}
	o := lo.ConvertOptions{PDFA: pdfa, Export: lo.Export{PDFUA: ua}, Timeout: s.opts.FileTimeout}
	if err := office.Convert(ctx, in, out, o); err != nil {
		var ce *lo.ConvertError
		if errors.As(err, &ce) {
			return &jobError{status: http.StatusBadRequest, msg: j.Request.Files[i].Name + ": " + ce.Explain(), err: err}
		}
		return err
	}
	return nil
}

// readMetadata answers pdfengines/metadata/read: a JSON object of each
// file's metadata by file name.
func (s *Server) readMetadata(ctx context.Context, j *jobs.Job, ins []string, dir string) (*jobs.Result, error) {
	all := map[string]map[string]string{}
	for i, in := range ins {
		m, err := s.pdf.ReadMetadata(ctx, s.fileLimit(in), in)
		if err != nil && ctx.Err() == nil && !stopped(err) {
			err = badRequest("%s: %v", j.Request.Files[i].Name, err)
		}
		if err != nil {
			return nil, err
		}
		all[j.Request.Files[i].Name] = m
	}
	b, err := json.Marshal(all)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "metadata.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return nil, err
	}
	return &jobs.Result{Path: "metadata.json", ContentType: contentTypeJSON, Name: "metadata.json"}, nil
}

// pack makes the job's result: one PDF as it is, several in a zip, each
// under its input's name with .pdf (a split's parts numbered). The
// result is named after Gotenberg-Output-Filename when the request has
// one; else one PDF after its input, or when merged after the title of
// the profile t came from; a zip after the job (see peopleName for the
// name people see).
func (s *Server) pack(j *jobs.Job, pdfs []string, dir string, t Task) (*jobs.Result, error) {
	if len(pdfs) == 0 {
		return nil, badRequest("nothing was converted")
	}
	names := outputNames(j, pdfs)
	stem := j.Request.Filename
	if len(pdfs) == 1 {
		if merged := j.Route == routeMerge || t.Merge && len(j.Request.Files) > 1; stem == "" && merged {
			stem = fileStem(t.Title)
		}
		if stem == "" {
			stem = strings.TrimSuffix(names[0], ".pdf")
		}
		if err := os.Rename(pdfs[0], filepath.Join(dir, "result.pdf")); err != nil {
			return nil, err
		}
		return &jobs.Result{Path: "result.pdf", ContentType: contentTypePDF, Name: stem + ".pdf"}, nil
	}
	if stem == "" {
		stem = j.ID
	}
	tmp := filepath.Join(dir, "result.zip.part")
	if err := writeZip(tmp, pdfs, names); err != nil {
		os.Remove(tmp)
		return nil, err
	}
	if err := os.Rename(tmp, filepath.Join(dir, "result.zip")); err != nil {
		return nil, err
	}
	for _, p := range pdfs {
		os.Remove(p)
	}
	return &jobs.Result{Path: "result.zip", ContentType: contentTypeZip, Name: stem + ".zip", Files: names}, nil
}

// outputNames names the PDFs after the job's files: a PDF made from one
// input (its name is the input's stored name) after that input
// (name.pdf); one per input, in order; else the first input's name
// numbered. Repeated names get a number.
func outputNames(j *jobs.Job, pdfs []string) []string {
	n := len(pdfs)
	names := make([]string, n)
	seen := map[string]int{}
	stem := func(s string) string { return strings.TrimSuffix(s, filepath.Ext(s)) }
	byStored := map[string]string{}
	for _, f := range j.Request.Files {
		byStored[stem(f.Stored)] = stem(f.Name)
	}
	for i := range names {
		base, ok := byStored[stem(filepath.Base(pdfs[i]))]
		switch {
		case ok:
		case n == len(j.Request.Files):
			base = stem(j.Request.Files[i].Name)
		default:
			base = fmt.Sprintf("%s_%d", stem(j.Request.Files[0].Name), i+1)
		}
		name := base + ".pdf"
		for seen[name] > 0 {
			seen[base]++
			name = fmt.Sprintf("%s (%d).pdf", base, seen[base])
		}
		seen[name]++
		names[i] = name
	}
	return names
}

func writeZip(path string, files, names []string) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	zw := zipfile.NewWriter(f)
	for i, p := range files {
		if err := zw.AddFile(names[i], p); err != nil {
			return err
		}
	}
	return zw.Close()
}

// clientText replaces, in a message, the server's own paths with
// nothing and the names calq gave the uploads with the client's names:
// a client learns nothing of the server's files.
func (s *Server) clientText(j *jobs.Job, msg string) string {
	dir := s.jobDir(j.ID)
	for _, sub := range []string{inputDirName, resultDirName, ""} {
		msg = strings.ReplaceAll(msg, filepath.Join(dir, sub)+string(filepath.Separator), "")
	}
	msg = strings.ReplaceAll(msg, dir, "")
	for _, f := range j.Request.Files {
		msg = strings.ReplaceAll(msg, f.Stored, f.Name)
	}
	return msg
}
