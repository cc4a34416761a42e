package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
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
	// SMSTo are the recipients of the SMS the job's end sends (calq's
	// smsTo field, on every route): numbers or contact names.
	SMSTo []string `json:"sms_to,omitempty"`
	// Title is the title of the profile the job used, for names.
	Title string `json:"title,omitempty"`
	// Partial keeps the PDFs of the files that converted when others
	// failed (a page's request): the job is done, its failed files
	// marked; an API request fails whole, as Gotenberg's does.
	Partial bool `json:"partial,omitempty"`
	// FileBookmarks are bookmarks by the stored name of the PDF whose
	// outline they replace (see postFor).
	FileBookmarks map[string][]pdf.Bookmark `json:"file_bookmarks,omitempty"`
	// AutoIndexBookmarks and TitleBookmarks build a merge's outline
	// from its inputs' (see withMergeOutline).
	AutoIndexBookmarks bool `json:"auto_index_bookmarks,omitempty"`
	TitleBookmarks     bool `json:"title_bookmarks,omitempty"`
	// Chromium is the page of a /forms/chromium route and how it is
	// loaded, printed or captured (chromium_task.go).
	Chromium *ChromiumTask `json:"chromium,omitempty"`
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

// replyRoutes answer with JSON, a reply rather than a file.
var replyRoutes = []string{routeMetaRead, routeBookmarksRead}

// errNoFile fails a job of a reply route that has a webhook, which takes
// files only: its webhook gets the failure, in Gotenberg's words (which
// its clients match).
var errNoFile = &jobError{status: http.StatusBadRequest,
	msg: "The webhook middleware can only work with multipart/form-data routes that results in output files"}

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
	if len(j.Request.Webhook) > 0 && slices.Contains(replyRoutes, j.Route) {
		return nil, errNoFile
	}
	if isChromium(j.Route) {
		return s.chromiumJob(ctx, j, dir, out, t)
	}
	ins := make([]string, len(j.Request.Files))
	uploads := make([]namedPDF, len(j.Request.Files))
	for i, f := range j.Request.Files {
		ins[i] = filepath.Join(dir, inputDirName, f.Stored)
		uploads[i] = namedPDF{path: ins[i], name: f.Name}
	}
	var pdfs []namedPDF
	var err error
	switch j.Route {
	case routeConvert:
		pdfs, err = s.convert(ctx, j, ins, out, t)
	case routeMerge:
		merged := namedPDF{path: filepath.Join(out, "merged.pdf"), name: mergedName(j, t)}
		if t, err = s.withMergeOutline(ctx, j, ins, t); err != nil {
			break
		}
		if err = s.pdf.Merge(ctx, s.fileLimit(ins...), ins, merged.path); err == nil {
			pdfs, err = s.pdfEngines(ctx, j, []namedPDF{merged}, out, t)
		}
	case routePDFA:
		pdfs, err = s.toPDFA(ctx, j, uploads, out, t)
	case routeMetaRead:
		return s.readMetadata(ctx, j, ins, dir)
	case routeBookmarksRead:
		return s.readBookmarks(ctx, j, ins, dir)
	case routeFacturX:
		pdfs, err = s.facturX(ctx, j, uploads, out, t)
	default:
		pdfs, err = s.pdfEngines(ctx, j, uploads, out, t)
	}
	if err != nil {
		return nil, err
	}
	return s.pack(j, pdfs, dir)
}

// convert runs calq convert's conversion on the inputs, on the fair share
// of the warm pool of this job's user, or through the shared queue: the
// same code, provenance checks and post-processing as the command. Split,
// when asked, comes after the merge and before the post-processing, as in
// Gotenberg.
func (s *Server) convert(ctx context.Context, j *jobs.Job, ins []string, out string, t Task) ([]namedPDF, error) {
	var mu sync.Mutex
	var failed []string
	var fault error // a file failed for the server's own fault
	timedOut := false
	o := convert.Options{
		Inputs: ins, Out: out, PDFA: t.PDFA, Export: t.Export,
		Office: &fairOffice{s: s, job: j.ID, user: j.Owner, class: j.Class}, OfficeSlots: s.instances,
		PDF: s.pdf, PDFLimits: s.opts.Limits.PDF,
		Class: j.Class, Timeout: s.opts.FileTimeout, Workers: s.opts.Workers, Retries: officeRetries,
		Journal: s.opts.Journal, Store: s.store.get(ctx, s.opts.Journal), Label: sharedLabel(j.ID),
		Progress: func(f convert.FileResult) {
			s.progress(j, f)
			if f.State == convert.StateConverted || f.State == convert.StateSkipped || f.State == convert.StateRetry || f.Reason == "" {
				return
			}
			mu.Lock()
			line := clientName(j, f.Input) + ": " + s.clientText(j, f.Reason)
			if errors.Is(f.Err, lo.ErrWrongPassword) { // Gotenberg's sentence
				line = "The password for the document " + quoteName(clientName(j, f.Input)) + " is incorrect. Check the 'password' form field."
			}
			failed = append(failed, line)
			if f.Err != nil && (diskFull(f.Err) || sqliteCode(f.Err) >= 0) {
				fault = f.Err
			}
			timedOut = timedOut || f.State == convert.StateTimedOut
			mu.Unlock()
		},
	}
	if t.Partial && s.opts.Chromium != nil {
		// The convert page's web pages (.html, .htm, .xhtml) and
		// Markdown print with Chromium, as calq convert's do; an API
		// request to the LibreOffice route keeps LibreOffice's import.
		o.HTML = convert.HTMLOptions{Engine: convert.EngineChromium, Pool: s.opts.Chromium}
	}
	if s.shared != nil && t.Export.Password == "" {
		o.Shared, o.Office, o.Journal, o.Store = s.shared, nil, nil, nil
	}
	// With a PDF/A, LibreOffice exports it last (afterPDFA), unless no
	// step changes the pages: then its export of the documents is the
	// PDF/A, and only what PDF/A allows is added to it.
	before, _ := pdf.AroundPDFA(t.Post)
	direct := before.Empty() && t.Split == nil && !(t.Merge && len(ins) > 1)
	switch {
	case pdfaWanted(t) && !direct:
		o.PDFA = 0
	case pdfaWanted(t):
	case t.Split == nil:
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
	pdfs := converted(j, sum.Outputs, t.Split == nil, t.Partial)
	if o.Merge != "" {
		pdfs = []namedPDF{{path: o.Merge, name: mergedName(j, t)}}
	}
	switch {
	case pdfaWanted(t) && direct:
		return s.addAfterPDFA(ctx, pdfs, out, t)
	case pdfaWanted(t):
		return s.afterPDFA(ctx, j, pdfs, out, t)
	case t.Split == nil:
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
// post-processing, each file on its own. A file keeps its name; a split's
// parts are named after their PDF (splitNames).
func (s *Server) after(ctx context.Context, ins []namedPDF, out string, t Task) ([]namedPDF, error) {
	files := ins
	if t.Split != nil {
		files = nil
		for i, in := range ins {
			dir := filepath.Join(out, "split-"+strconv.Itoa(i))
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, err
			}
			parts, err := s.pdf.Split(ctx, s.fileLimit(in.path), in.path, dir, *t.Split)
			if err != nil {
				return nil, stepError(in.path, err)
			}
			files = append(files, splitNames(in.name, parts, t.Split.Unify)...)
		}
	}
	res := make([]namedPDF, len(files))
	for i, f := range files {
		res[i] = namedPDF{path: filepath.Join(out, fmt.Sprintf("post-%04d.pdf", i)), name: f.name, alone: f.alone}
		if err := s.pdf.Apply(ctx, s.fileLimit(f.path), f.path, res[i].path, t.postFor(f.path)); err != nil {
			return nil, stepError(f.path, err)
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
func (s *Server) toPDFA(ctx context.Context, j *jobs.Job, ins []namedPDF, out string, t Task) ([]namedPDF, error) {
	if t.PDFA == 0 && !t.Export.PDFUA {
		return nil, badRequest("Invalid form data: either 'pdfa' or 'pdfua' form fields must be provided")
	}
	res := make([]namedPDF, len(ins))
	for i, in := range ins {
		res[i] = namedPDF{path: filepath.Join(out, fmt.Sprintf("pdfa-%04d.pdf", i)), name: in.name}
		if err := s.officePDFA(ctx, j, in.name, in.path, res[i].path, t.PDFA, t.Export.PDFUA); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// officePDFA has LibreOffice export the job's file in, which the client
// calls name, as PDF/A-pdfa (0: none) and, with ua, PDF/UA at out; its
// failure is said in words for people, by that name.
func (s *Server) officePDFA(ctx context.Context, j *jobs.Job, name, in, out string, pdfa int, ua bool) error {
	office := &fairOffice{s: s, user: j.Owner, class: j.Class, retries: officeRetries}
	o := lo.ConvertOptions{PDFA: pdfa, Export: lo.Export{PDFUA: ua}, Timeout: s.opts.FileTimeout}
	if err := office.Convert(ctx, in, out, o); err != nil {
		var ce *lo.ConvertError
		if errors.As(err, &ce) {
			return &jobError{status: http.StatusBadRequest, msg: name + ": " + ce.Explain(), err: err}
		}
		return err
	}
	return nil
}

// readMetadata answers pdfengines/metadata/read: a JSON object of each
// file's metadata by file name, in ExifTool's shape as Gotenberg's.
func (s *Server) readMetadata(ctx context.Context, j *jobs.Job, ins []string, dir string) (*jobs.Result, error) {
	all := map[string]map[string]any{}
	for i, in := range ins {
		m, err := s.pdf.ReadMetadata(ctx, s.fileLimit(in), in)
		if err != nil && ctx.Err() == nil && !stopped(err) {
			err = badRequest("%s: %v", j.Request.Files[i].Name, err)
		}
		if err != nil {
			return nil, err
		}
		all[j.Request.Files[i].Name] = pdf.ExifToolJSON(m)
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

// clientText replaces, in a message, the server's own paths with
// nothing and the names calq gave the uploads with the client's names:
// a client learns nothing of the server's files.
func (s *Server) clientText(j *jobs.Job, msg string) string {
	dir := s.jobDir(j.ID)
	for _, sub := range []string{inputDirName, resultDirName, siteDirName, ""} {
		msg = strings.ReplaceAll(msg, filepath.Join(dir, sub)+string(filepath.Separator), "")
	}
	msg = strings.ReplaceAll(msg, dir, "")
	for _, f := range j.Request.Files {
		msg = strings.ReplaceAll(msg, f.Stored, f.Name)
	}
	return msg
}
