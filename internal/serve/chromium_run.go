package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"calq/convert/chromium"
	"calq/convert/markdown"
	"calq/internal/serve/form"
	"calq/internal/serve/jobs"
)

// chromiumJob runs a /forms/chromium job in dir: the page (the uploads
// laid out as a site, or the URL) printed by a browser of the pool and
// then through the PDF steps the LibreOffice route takes (split,
// PDF/A, metadata, watermarks, encryption...), or captured as an image.
func (s *Server) chromiumJob(ctx context.Context, j *jobs.Job, dir, out string, t Task) (*jobs.Result, error) {
	if err := s.chromiumReady(); err != nil {
		return nil, err
	}
	c := t.Chromium
	if c == nil {
		return nil, fmt.Errorf("job %s of route %s has no Chromium options", j.ID, j.Route)
	}
	req := chromium.Request{URL: c.URL, Load: c.Load, Timeout: s.opts.FileTimeout}
	if sitePage(j.Route) {
		page, err := s.site(ctx, j, dir, c.Index)
		if err != nil {
			return nil, err
		}
		req.URL, req.Dir = "file://"+page, filepath.Dir(page)
	}
	name := chromiumName(j.ID, j.Request.Filename)
	if c.Screenshot != nil {
		return s.screenshot(ctx, j, req, *c.Screenshot, dir, out, name)
	}
	if c.PDF == nil {
		return nil, fmt.Errorf("job %s of route %s has neither PDF nor screenshot options", j.ID, j.Route)
	}
	page := namedPDF{path: filepath.Join(out, "page.pdf"), name: name + ".pdf"}
	if err := s.opts.Chromium.PDF(ctx, req, *c.PDF, page.path); err != nil {
		return nil, chromiumError(ctx, err, c)
	}
	pdfs := []namedPDF{page}
	if pdfaWanted(t) || t.Split != nil || !t.Post.Empty() {
		var err error
		if pdfs, err = s.pdfEngines(ctx, j, pdfs, out, t); err != nil {
			return nil, err
		}
	}
	return s.pack(j, pdfs, dir)
}

// screenshot captures the page of req as an image, the job's result.
func (s *Server) screenshot(ctx context.Context, j *jobs.Job, req chromium.Request, o chromium.Screenshot, dir, out, name string) (*jobs.Result, error) {
	ext, contentType := screenshotType(o.Format)
	path := filepath.Join(out, "page"+ext)
	if err := s.opts.Chromium.Screenshot(ctx, req, o, path); err != nil {
		return nil, chromiumError(ctx, err, &ChromiumTask{Load: req.Load, Screenshot: &o})
	}
	result := "result" + ext
	if err := os.Rename(path, filepath.Join(dir, result)); err != nil {
		return nil, err
	}
	return &jobs.Result{Path: result, ContentType: contentType, Name: name + ext}, nil
}

// site lays out job j's uploads in dir/site under the names the client
// gave them (hard links to the stored files, made again at each run), so
// that the page finds its assets by their names, and returns the path
// of the page, the upload named index (index.html), rendered first with
// its Markdown files on the markdown routes. The names were checked when the job was accepted
// (checkSite) and are checked again here, as read from the journal;
// os.Root keeps every link inside the job's directory besides.
func (s *Server) site(ctx context.Context, j *jobs.Job, dir, index string) (string, error) {
	site := filepath.Join(dir, siteDirName)
	if err := os.RemoveAll(site); err != nil { // a run before a crash
		return "", err
	}
	if err := os.Mkdir(site, 0o700); err != nil {
		return "", err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	template := ""
	for _, f := range j.Request.Files {
		if form.BaseName(f.Name) != f.Name || form.BaseName(f.Stored) != f.Stored {
			return "", fmt.Errorf("lay out the page's file %q: not a plain file name", f.Name)
		}
		stored := filepath.Join(inputDirName, f.Stored)
		if err := root.Link(stored, filepath.Join(siteDirName, f.Name)); err != nil {
			return "", fmt.Errorf("lay out the page's file %q: %w", f.Name, err)
		}
		if f.Name == index {
			template = filepath.Join(dir, stored)
		}
	}
	if template == "" {
		return "", badRequest("Invalid form data: form file '%s' is required", chromiumIndex)
	}
	page := filepath.Join(site, index)
	if isMarkdown(j.Route) {
		return page, renderMarkdown(ctx, template, site, page)
	}
	return page, nil
}

// renderMarkdown executes the template at index with the Markdown files
// of site, replacing the page's link to index by the rendered page.
func renderMarkdown(ctx context.Context, index, site, page string) error {
	tmpl, err := os.ReadFile(index)
	if err != nil {
		return err
	}
	var html bytes.Buffer
	err = markdown.Template(ctx, tmpl, site, &html)
	var nf *markdown.NotFoundError
	switch {
	case errors.As(err, &nf): // Gotenberg's sentence
		return badRequest("Markdown file(s) not found: %s", nf.Quoted())
	case errors.Is(err, markdown.ErrTooLarge):
		return badRequest("Invalid form data: %v", err)
	case err != nil && ctx.Err() == nil:
		return badRequest("Invalid form data: file '%s' is not a valid template: %v", chromiumIndex, err)
	case err != nil:
		return context.Cause(ctx)
	}
	if err := os.Remove(page); err != nil {
		return err
	}
	return os.WriteFile(page, html.Bytes(), 0o600)
}
