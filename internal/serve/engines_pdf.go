package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"calq/convert/pdf"
	"calq/internal/serve/form"
	"calq/internal/serve/jobs"
)

// The pdfengines routes of bookmarks and attached files.
const (
	routeBookmarksRead  = "pdfengines/bookmarks/read"
	routeBookmarksWrite = "pdfengines/bookmarks/write"
	routeEmbed          = "pdfengines/embed"
	routeFacturX        = "pdfengines/factur-x"
)

// fileBookmarks turns bookmarks by the client's file name into
// bookmarks by the name calq stored the file under, which Task keeps. A
// name that is no uploaded PDF is refused: its bookmarks would be lost.
func fileBookmarks(byName map[string][]pdf.Bookmark, inputs []form.File) (map[string][]pdf.Bookmark, error) {
	if byName == nil {
		return nil, nil
	}
	stored := map[string][]pdf.Bookmark{}
	for name, bms := range byName {
		found := false
		for _, in := range inputs {
			if in.Name == name {
				stored[filepath.Base(in.Path)], found = bms, true
			}
		}
		if !found {
			return nil, fieldError("bookmarks", fmt.Sprintf("is invalid (%q names no uploaded PDF)", name))
		}
		if err := (pdf.Post{Bookmarks: bms}).Check(); err != nil {
			return nil, badRequest("Invalid form data: %s: %v", name, err)
		}
	}
	return stored, nil
}

// postFor is the post-processing of the PDF at path: t.Post, with the
// bookmarks a request gave for that file by name.
func (t Task) postFor(path string) pdf.Post {
	if t.FileBookmarks == nil {
		return t.Post
	}
	p := t.Post
	p.Bookmarks = t.FileBookmarks[filepath.Base(path)]
	return p
}

// readBookmarks answers pdfengines/bookmarks/read: a JSON object of each
// file's bookmarks by file name, an empty list for a file without.
func (s *Server) readBookmarks(ctx context.Context, j *jobs.Job, ins []string, dir string) (*jobs.Result, error) {
	all := map[string][]pdf.Bookmark{}
	for i, in := range ins {
		bms, err := s.pdf.ReadBookmarks(ctx, s.fileLimit(in), in)
		if err != nil {
			return nil, readError(ctx, in, j.Request.Files[i].Name, err)
		}
		all[j.Request.Files[i].Name] = bms
	}
	b, err := json.Marshal(all)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "bookmarks.json"), b, 0o600); err != nil {
		return nil, err
	}
	return &jobs.Result{Path: "bookmarks.json", ContentType: contentTypeJSON, Name: "bookmarks.json"}, nil
}

// fieldStepError is a 400 for a step refused for what a field asked of
// this file (bookmarks past its last page), naming the file; other errors
// are returned as they are.
func fieldStepError(path string, err error) error {
	var fe *pdf.FieldError
	if errors.As(err, &fe) {
		return &jobError{status: http.StatusBadRequest, msg: fmt.Sprintf("Invalid form data: %s: %v", filepath.Base(path), fe), err: err}
	}
	return err
}

// facturX answers pdfengines/factur-x: each PDF that is not PDF/A-3 is
// made PDF/A-3b by LibreOffice first, then the invoice is attached and
// declared as an incremental update, which keeps it PDF/A-3.
func (s *Server) facturX(ctx context.Context, j *jobs.Job, ins []namedPDF, out string, t Task) ([]namedPDF, error) {
	a3 := make([]namedPDF, len(ins))
	for i, in := range ins {
		c, err := s.pdf.PDFA(ctx, s.fileLimit(in.path), in.path)
		if err != nil {
			return nil, stepError(in.path, err)
		}
		if a3[i] = in; c.Part == 3 {
			continue
		}
		a3[i].path = filepath.Join(out, fmt.Sprintf("pdfa3-%04d.pdf", i))
		if err := s.officePDFA(ctx, j, in.name, in.path, a3[i].path, 3, false); err != nil {
			return nil, err
		}
	}
	return s.after(ctx, a3, out, Task{Post: pdf.Post{FacturX: t.Post.FacturX}})
}
