// Package markdown renders Markdown (CommonMark with GitHub's tables,
// strikethrough, autolinks and task lists) to HTML for calq's Chromium
// conversions: in Gotenberg's way, through an HTML template whose
// {{ toHTML "file.md" }} calls render Markdown files beside it, and as a
// page of its own for a lone .md file.
//
// Raw HTML inside Markdown is left out of the output (goldmark's safe
// default), as Gotenberg sanitizes it away; the template itself is the
// client's own HTML and is kept as written. Both entry points are safe for
// concurrent use; their cost is linear in the input, and Template's output
// is cut at MaxOutput bytes.
package markdown

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
)

// MaxOutput bounds the HTML Template writes, and MaxFile each Markdown
// file it reads: a template calling toHTML in a loop cannot fill the disk.
const (
	MaxOutput = 64 << 20
	MaxFile   = 16 << 20
)

// ErrTooLarge is returned when a Markdown file or the rendered page is
// larger than MaxFile or MaxOutput.
var ErrTooLarge = errors.New("markdown: output too large")

// NotFoundError lists the files toHTML was asked for that are not
// Markdown files in the directory, in the order the template asked.
type NotFoundError struct{ Names []string }

func (e *NotFoundError) Error() string {
	return "markdown files not found: " + e.quoted(", ")
}

// Quoted lists the names each in single quotes, one a line, as
// Gotenberg's reply to a missing file spells them.
func (e *NotFoundError) Quoted() string { return e.quoted("\n") }

func (e *NotFoundError) quoted(sep string) string {
	q := make([]string, len(e.Names))
	for i, n := range e.Names {
		q[i] = "'" + n + "'"
	}
	return strings.Join(q, sep)
}

var md = goldmark.New(
	goldmark.WithExtensions(extension.GFM, extension.DefinitionList),
	goldmark.WithParserOptions(parser.WithAutoHeadingID()),
)

// Template executes the HTML template index (Go's html/template) with a
// toHTML function that renders the Markdown file of that name in dir;
// only files in dir are readable, and the output is bounded.
//
// toHTML accepts a bare file name ending in .md: a name with a path
// separator, or one that is not a regular .md file in dir, is collected
// and reported as a *NotFoundError once the whole template has run.
func Template(ctx context.Context, index []byte, dir string, w io.Writer) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("markdown: open %s: %w", dir, err)
	}
	defer root.Close()
	r := &renderer{ctx: ctx, root: root}
	tmpl, err := template.New("index.html").Funcs(template.FuncMap{"toHTML": r.toHTML}).Parse(string(index))
	if err != nil {
		return fmt.Errorf("markdown: parse template: %w", err)
	}
	var out bytes.Buffer
	if err := tmpl.Execute(&limited{w: &out, n: MaxOutput}, struct{}{}); err != nil {
		if errors.Is(err, ErrTooLarge) {
			return fmt.Errorf("markdown: execute template: %w (over %d bytes)", ErrTooLarge, MaxOutput)
		}
		return fmt.Errorf("markdown: execute template: %w", err)
	}
	if len(r.missing) > 0 {
		return &NotFoundError{Names: r.missing}
	}
	_, err = w.Write(out.Bytes())
	return err
}

type renderer struct {
	ctx     context.Context
	root    *os.Root
	missing []string
}

func (r *renderer) toHTML(name string) (template.HTML, error) {
	if err := r.ctx.Err(); err != nil {
		return "", err
	}
	src, err := r.read(name)
	if errors.Is(err, os.ErrNotExist) {
		r.missing = append(r.missing, name)
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read markdown file %q: %w", name, err)
	}
	var b bytes.Buffer
	if err := md.Convert(src, &b); err != nil {
		return "", fmt.Errorf("render markdown file %q: %w", name, err)
	}
	return template.HTML(b.String()), nil // #nosec: goldmark omits raw HTML
}

// read returns the content of the regular .md file name in the root, or
// an error wrapping os.ErrNotExist for any name that is not one.
func (r *renderer) read(name string) ([]byte, error) {
	if name != filepath.Base(name) || strings.ContainsAny(name, `/\`) || !strings.EqualFold(filepath.Ext(name), ".md") {
		return nil, os.ErrNotExist
	}
	f, err := r.root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, os.ErrNotExist
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err == nil && len(b) > MaxFile {
		err = fmt.Errorf("%w (over %d bytes)", ErrTooLarge, MaxFile)
	}
	return b, err
}

// limited fails a write that would take it past n bytes.
type limited struct {
	w io.Writer
	n int64
}

func (l *limited) Write(p []byte) (int, error) {
	if int64(len(p)) > l.n {
		return 0, ErrTooLarge
	}
	l.n -= int64(len(p))
	return l.w.Write(p)
}

// Page renders a lone Markdown document as a whole HTML page titled
// title, with a plain print stylesheet.
func Page(src []byte, title string, w io.Writer) error {
	if len(src) > MaxFile {
		return fmt.Errorf("markdown: %w (over %d bytes)", ErrTooLarge, MaxFile)
	}
	var body bytes.Buffer
	if err := md.Convert(src, &body); err != nil {
		return fmt.Errorf("markdown: render %s: %w", title, err)
	}
	return page.Execute(w, struct {
		Title string
		Body  template.HTML
	}{title, template.HTML(body.String())}) // #nosec: goldmark omits raw HTML
}

var page = template.Must(template.New("page").Parse(`<!doctype html>
<html>
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body { font-family: sans-serif; line-height: 1.45; max-width: 48em; margin: 0 auto; }
pre, code { font-family: monospace; background: #f4f4f4; }
pre { padding: .5em; white-space: pre-wrap; }
table { border-collapse: collapse; }
th, td { border: 1px solid #999; padding: .2em .5em; }
img { max-width: 100%; }
h1, h2, h3 { page-break-after: avoid; }
pre, table, img { page-break-inside: avoid; }
</style>
</head>
<body>
{{.Body}}
</body>
</html>
`))
