package convert

import (
	"errors"
	"fmt"

	"calq/convert/pdf"
)

// ErrNoOwnerPassword is Check's error for encryption without an owner
// password; a caller that has said why (a password file it could not
// read) may leave it out.
var ErrNoOwnerPassword = errors.New("--encrypt: needs an owner password: --owner-password-file FILE or CALQ_OWNER_PASSWORD")

// Check refuses what no conversion may be asked, before any work: a
// glob that does not parse, an input outside SharedRoot, a negative
// count or duration, a PDF/A level other than 1, 2 or 3, a watermark
// that is both a text and an image, encryption without an owner
// password, bad post-processing (pdf.Post.Check), bad LibreOffice export
// options (lo.Export.Check, naming Gotenberg's form fields), a document
// password with the shared queue (it would be stored with the job), and
// whatever would break PDF/A conformance, an unknown HTML engine or page
// options out of range (HTMLOptions), and URLs with the shared queue. It names every problem, one
// per line, in an error wrapping ErrUsage; the messages name the command
// line's flags.
// It looks at the files a watermark names and at SharedRoot, nothing
// else.
func (o Options) Check() error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	for _, g := range append(append([]string{}, o.Include...), o.Exclude...) {
		if err := CheckGlob(g); err != nil {
			add("--include/--exclude: %w", err)
		}
	}
	if o.SharedRoot != "" {
		for _, in := range o.Inputs {
			if _, err := BelowRoot(o.SharedRoot, in); err != nil {
				add("%s: %w", in, err)
			}
		}
	}
	if o.Timeout < 0 || o.SharedJobs < 0 || o.Retries < 0 || o.LibreOffice.Instances < 0 || o.LibreOffice.MemoryLimit < 0 {
		add("--timeout, --retries, --instances, --jobs and --memory-limit must not be negative")
	}
	if o.PDFWork.MemoryLimit < 0 || o.PDFLimits.MaxPages < 0 || o.PDFLimits.MaxInflated < 0 {
		add("--pdf-memory-limit, --max-pdf-pages and --max-pdf-inflated must not be negative")
	}
	if o.PDFA < 0 || o.PDFA > 3 {
		add("--pdfa: %d, want 1, 2 or 3", o.PDFA)
	}
	if err := o.Export.Check(); err != nil {
		errs = append(errs, err)
	}
	if o.Export.Password != "" && o.Shared != nil {
		add("a document password and the shared queue: the queue keeps each job's options in the database; convert without it")
	}
	errs = append(errs, o.postErrors()...)
	errs = append(errs, o.HTML.errors(len(o.URLs) > 0 && o.Shared != nil)...)
	if err := errors.Join(errs...); err != nil {
		return &usageError{err}
	}
	return nil
}

// postErrors refuses bad post-processing, and any with PDF/A.
func (o Options) postErrors() []error {
	var errs []error
	post := o.Post
	if w := post.Watermark; w != nil && w.Text != "" && w.Image != "" {
		errs = append(errs, errors.New("--watermark and --watermark-image: give one"))
	}
	if e := post.Encrypt; e != nil && e.OwnerPassword == "" {
		errs = append(errs, ErrNoOwnerPassword)
		post.Encrypt = nil // said once, not again by post.Check
	}
	if o.PDFA != 0 && o.Post.Encrypt != nil {
		errs = append(errs, errors.New("--pdfa and --encrypt: encryption breaks PDF/A conformance; choose one"))
	}
	if err := post.Check(); err != nil {
		errs = append(errs, err)
	}
	if o.PDFA != 0 {
		errs = append(errs, pdfaConflicts(o.PDFA, post, o.Merge, o.Shared != nil)...)
	}
	return errs
}

// pdfaConflicts refuses what cannot give a file that is the PDF/A it
// claims. The pages' changes are made before LibreOffice's PDF/A export
// and the rest after it (pdf.AroundPDFA, as calq serve does), but a
// merge is made after each file's export, and after a PDF/A-1 export
// nothing may be changed: pdfcpu's save is PDF 1.7 with object streams.
func pdfaConflicts(pdfa int, post pdf.Post, merge string, shared bool) []error {
	var errs []error
	if shared && !post.Empty() {
		// A worker exports the PDF/A; the changes would come after it.
		errs = append(errs, errors.New("--pdfa, post-processing and the shared queue: the workers export the PDF/A and the changes would come after it; convert on this machine"))
	}
	if merge != "" {
		errs = append(errs, errors.New("--pdfa and --merge: calq convert merges after each file's PDF/A export, and the merge is not PDF/A; choose one"))
	}
	if pdfa == 1 && pdf.Marked(post) {
		errs = append(errs, errors.New("--pdfa 1 and a watermark or stamp: PDF/A-1 forbids their transparency, "+
			"and LibreOffice's PDF/A-1 export turns the pages they cover into pictures, their text lost; use --pdfa 2 or 3"))
	}
	if _, after := pdf.AroundPDFA(post); pdfa == 1 && (after.Metadata != nil || len(after.CustomMetadata) > 0) {
		errs = append(errs, errors.New("--pdfa 1 and --title, --author, --subject or --keywords: calq writes them after the PDF/A export, "+
			"and that rewrite (PDF 1.7, object streams) is not PDF/A-1; use --pdfa 2 or 3"))
	}
	return errs
}
