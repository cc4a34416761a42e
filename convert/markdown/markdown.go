// Package markdown renders Markdown (CommonMark with GitHub's tables,
// strikethrough, autolinks and task lists) to HTML for calq's Chromium
// conversions: in Gotenberg's way, through an HTML template whose
// {{ toHTML "file.md" }} calls render Markdown files beside it, and as a
// page of its own for a lone .md file.
package markdown

import (
	"context"
	"errors"
	"io"
)

// Template executes the HTML template index (Go's html/template) with a
// toHTML function that renders the Markdown file of that name in dir;
// only files in dir are readable, and the output is bounded.
func Template(ctx context.Context, index []byte, dir string, w io.Writer) error {
	return errors.New("markdown: not yet")
}

// Page renders a lone Markdown document as a whole HTML page titled
// title, with a plain print stylesheet.
func Page(md []byte, title string, w io.Writer) error {
	return errors.New("markdown: not yet")
}
