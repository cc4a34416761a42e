package pdfpool

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"calq/convert/pdf"
	"calq/internal/debris"
	"calq/internal/fsio"
)

// Each operation is package pdf's function of the same name, done in a
// helper; limit, when not 0, bounds its time once a helper is its own
// (the wait for one is bounded by ctx alone). Errors name the operation
// and its input as pdf's do.

// Apply is pdf.Apply.
func (p *Pool) Apply(ctx context.Context, limit time.Duration, in, out string, post pdf.Post) error {
	_, err := p.write(ctx, limit, "post-process "+in, out, request{Op: "apply", In: []string{in}, Post: &post})
	return err
}

// PassThrough is pdf.PassThrough.
func (p *Pool) PassThrough(ctx context.Context, limit time.Duration, in, out string) error {
	_, err := p.write(ctx, limit, "pass through "+in, out, request{Op: "pass-through", In: []string{in}})
	return err
}

// Merge is pdf.Merge.
func (p *Pool) Merge(ctx context.Context, limit time.Duration, ins []string, out string) error {
	_, err := p.write(ctx, limit, "merge", out, request{Op: "merge", In: ins})
	return err
}

// FromImages is pdf.FromImages.
func (p *Pool) FromImages(ctx context.Context, limit time.Duration, images []string, out string) error {
	_, err := p.write(ctx, limit, "images to pdf", out, request{Op: "images", In: images})
	return err
}

// ReadMetadata is pdf.ReadMetadata.
func (p *Pool) ReadMetadata(ctx context.Context, limit time.Duration, path string) (map[string]string, error) {
	rep, err := p.read(ctx, limit, "read metadata of "+path, request{Op: "metadata", In: []string{path}})
	return rep.Meta, err
}

// ReadBookmarks is pdf.ReadBookmarks; a PDF without bookmarks gives an
// empty list, never nil.
func (p *Pool) ReadBookmarks(ctx context.Context, limit time.Duration, path string) ([]pdf.Bookmark, error) {
	rep, err := p.read(ctx, limit, "read bookmarks of "+path, request{Op: "bookmarks", In: []string{path}})
	if err == nil && rep.Marks == nil {
		rep.Marks = []pdf.Bookmark{}
	}
	return rep.Marks, err
}

// PDFA is pdf.PDFA.
func (p *Pool) PDFA(ctx context.Context, limit time.Duration, path string) (pdf.Conformance, error) {
	rep, err := p.read(ctx, limit, "read the PDF/A identification of "+path, request{Op: "pdfa", In: []string{path}})
	return rep.PDFA, err
}

// Split is pdf.Split.
func (p *Pool) Split(ctx context.Context, limit time.Duration, in, outDir string, s pdf.SplitSpec) ([]string, error) {
	op := "split " + in
	st, err := newStage(outDir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	defer os.RemoveAll(st)
	rep, err := p.read(ctx, limit, op, request{Op: "split", In: []string{in}, Out: st, Split: &s})
	if err != nil {
		return nil, err
	}
	outs, err := place(ctx, rep.Parts, outDir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return outs, nil
}

// read runs req, whose paths it makes absolute: a helper's working
// directory is calq's when it started.
func (p *Pool) read(ctx context.Context, limit time.Duration, op string, req request) (reply, error) {
	for i, in := range req.In {
		abs, err := filepath.Abs(in)
		if err != nil {
			return reply{}, fmt.Errorf("%s: %w", op, err)
		}
		req.In[i] = abs
	}
	rep, err := p.run(ctx, limit, req)
	if err != nil {
		return reply{}, fmt.Errorf("%s: %w", op, err)
	}
	return rep, rep.Err.err() // pdf's errors name the operation
}

// write runs req with its output in a private directory beside out,
// then renames it onto out: nothing is left when the helper is killed.
func (p *Pool) write(ctx context.Context, limit time.Duration, op, out string, req request) (reply, error) {
	st, err := newStage(filepath.Dir(out))
	if err != nil {
		return reply{}, fmt.Errorf("%s: %w", op, err)
	}
	defer os.RemoveAll(st)
	req.Out = filepath.Join(st, "out.pdf")
	rep, err := p.read(ctx, limit, op, req)
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		err = fsio.Rename(req.Out, out)
	}
	if err != nil {
		return reply{}, err
	}
	return rep, nil
}

// newStage makes a private directory in dir, named so that a later run
// removes it after calq's death; its path is absolute.
func newStage(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return os.MkdirTemp(abs, debris.Pattern("pdf", true))
}

// place renames the parts, written in a stage, into outDir under their
// own names, removing those placed already if one fails.
func place(ctx context.Context, parts []string, outDir string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	outs := make([]string, len(parts))
	for i, part := range parts {
		outs[i] = filepath.Join(outDir, filepath.Base(part))
	}
	if err := fsio.RenameAll(parts, outs); err != nil {
		return nil, err
	}
	return outs, nil
}
