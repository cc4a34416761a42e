package serve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"calq/convert/pdf"
	"calq/internal/serve/jobs"
)

// A PDF/A asked for with other changes is made in the order of
// pdf.AroundPDFA, LibreOffice's export done as pdfengines/convert does
// it. Encryption, which PDF/A forbids, and any change after a PDF/A-1
// export (pdfcpu's save is PDF 1.7 with object streams, which PDF/A-1
// forbids) are refused before the job is queued (checkPDFA).

// pdfaWanted says whether t asks LibreOffice for a PDF/A or PDF/UA
// export.
func pdfaWanted(t Task) bool { return t.PDFA > 0 || t.Export.PDFUA }

// checkPDFA refuses, naming the fields, what cannot give a file that is
// the PDF/A it claims.
func checkPDFA(t Task) error {
	if t.PDFA == 0 {
		return nil
	}
	level := fmt.Sprintf("PDF/A-%db", t.PDFA)
	_, after := pdf.AroundPDFA(t.Post)
	switch {
	case after.Encrypt != nil:
		return badRequest("Invalid form data: PDF/A format is incompatible with encryption")
	case len(t.Post.Embeds) > 0 && t.PDFA != 3:
		return badRequest("Invalid form data: PDF format '%s' does not support embedded files; only PDF/A-3 variants allow attachments", level)
	case t.Post.FacturX != nil && t.PDFA != 3:
		return badRequest("Invalid form data: Factur-X requires a PDF/A-3 variant (PDF/A-3b), got '%s'", level)
	case t.PDFA == 1 && pdf.Marked(t.Post):
		return badRequest("Invalid form data: form field 'pdfa' PDF/A-1b cannot go with watermarks or stamps: " +
			"PDF/A-1 forbids their transparency, and LibreOffice's PDF/A-1 export turns the pages they cover into pictures, their text lost; ask for PDF/A-2b or PDF/A-3b")
	case t.PDFA == 1 && !after.Empty():
		return badRequest("Invalid form data: form field 'pdfa' PDF/A-1b cannot go with metadata or bookmarks: " +
			"calq writes them after the PDF/A export, and that rewrite (PDF 1.7, object streams) is not PDF/A-1; ask for PDF/A-2b or PDF/A-3b")
	}
	return nil
}

// afterPDFA runs on PDFs the pdfengines steps of t around a PDF/A or
// PDF/UA export, in the order above: split, the changes of the pages,
// LibreOffice's export, then the additions, each file on its own.
func (s *Server) afterPDFA(ctx context.Context, j *jobs.Job, ins []namedPDF, out string, t Task) ([]namedPDF, error) {
	before, _ := pdf.AroundPDFA(t.Post)
	files := ins
	if t.Split != nil || !before.Empty() {
		var err error
		if files, err = s.after(ctx, ins, out, Task{Split: t.Split, Post: before}); err != nil {
			return nil, err
		}
	}
	res := make([]namedPDF, len(files))
	for i, f := range files {
		res[i] = f
		res[i].path = filepath.Join(out, fmt.Sprintf("pdfa-%04d.pdf", i))
		if err := s.officePDFA(ctx, j, f.name, f.path, res[i].path, t.PDFA, t.Export.PDFUA); err != nil {
			return nil, err
		}
	}
	return s.addAfterPDFA(ctx, res, out, t)
}

// addAfterPDFA adds to PDFs that LibreOffice just exported as t asked
// the steps PDF/A allows after its export (see pdf.AroundPDFA).
func (s *Server) addAfterPDFA(ctx context.Context, res []namedPDF, out string, t Task) ([]namedPDF, error) {
	_, after := pdf.AroundPDFA(t.Post)
	if t.PDFA == 3 {
		after.Embeds = pdf.PDFAEmbeds(after.Embeds)
	}
	if !after.Empty() {
		after.SyncXMP = t.PDFA > 0
		var err error
		if res, err = s.afterIn(ctx, res, filepath.Join(out, "after-pdfa"), after); err != nil {
			return nil, err
		}
	}
	if t.Post.FacturX != nil {
		return s.afterIn(ctx, res, filepath.Join(out, "factur-x"), pdf.Post{FacturX: t.Post.FacturX})
	}
	return res, nil
}

// afterIn runs the post-processing p on PDFs, writing into the new
// directory dir.
func (s *Server) afterIn(ctx context.Context, ins []namedPDF, dir string, p pdf.Post) ([]namedPDF, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return s.after(ctx, ins, dir, Task{Post: p})
}

// pdfEngines runs the pdfengines steps of t on PDFs: around a PDF/A or
// PDF/UA export when t asks for one, else as they come (after).
func (s *Server) pdfEngines(ctx context.Context, j *jobs.Job, ins []namedPDF, out string, t Task) ([]namedPDF, error) {
	if pdfaWanted(t) {
		return s.afterPDFA(ctx, j, ins, out, t)
	}
	return s.after(ctx, ins, out, t)
}
