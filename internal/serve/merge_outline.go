package serve

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"calq/convert/pdf"
	"calq/internal/serve/jobs"
)

// mergedDoc is what the outline of a merge needs of one input: its page
// count, the title of its entry and the bookmarks that go under it.
type mergedDoc struct {
	pages   int
	title   string
	outline []pdf.Bookmark
}

// mergeOutline is the outline of the PDF merging docs in order: each
// one's outline moved to where its pages land, under an entry titled
// after it that opens its first page when titles is set.
func mergeOutline(docs []mergedDoc, titles bool) []pdf.Bookmark {
	var all []pdf.Bookmark
	offset := 0
	for _, d := range docs {
		moved := shiftBookmarks(d.outline, offset)
		if titles {
			all = append(all, pdf.Bookmark{Title: d.title, Page: offset + 1, Children: moved})
		} else {
			all = append(all, moved...)
		}
		offset += d.pages
	}
	return all
}

// shiftBookmarks is bms with every page n pages later.
func shiftBookmarks(bms []pdf.Bookmark, n int) []pdf.Bookmark {
	if len(bms) == 0 {
		return nil
	}
	out := make([]pdf.Bookmark, len(bms))
	for i, b := range bms {
		out[i] = pdf.Bookmark{Title: b.Title, Page: b.Page + n, Children: shiftBookmarks(b.Children, n)}
	}
	return out
}

// withMergeOutline returns t with the outline of the merge of ins (job
// j's inputs, in order) in t.Post.Bookmarks, when the request gave
// bookmarks by file, autoIndexBookmarks or titleBookmarks, as Gotenberg
// builds it: an input's bookmarks are those the request gave it, else,
// with either flag, its own outline. A list of bookmarks for the merged
// PDF wins over all of them, as in Gotenberg.
func (s *Server) withMergeOutline(ctx context.Context, j *jobs.Job, ins []string, t Task) (Task, error) {
	if len(t.Post.Bookmarks) > 0 || t.FileBookmarks == nil && !t.AutoIndexBookmarks && !t.TitleBookmarks {
		return t, nil
	}
	docs := make([]mergedDoc, len(ins))
	for i, in := range ins {
		d, err := s.mergedDoc(ctx, in, j.Request.Files[i].Name, t)
		if err != nil {
			return t, err
		}
		docs[i] = d
	}
	t.Post.Bookmarks, t.FileBookmarks = mergeOutline(docs, t.TitleBookmarks), nil
	if err := (pdf.Post{Bookmarks: t.Post.Bookmarks}).Check(); err != nil {
		return t, badRequest("Invalid form data: %v", err)
	}
	return t, nil
}

// mergedDoc reads what the outline of a merge needs of the input at
// path, which the client named name.
func (s *Server) mergedDoc(ctx context.Context, path, name string, t Task) (mergedDoc, error) {
	meta, err := s.pdf.ReadMetadata(ctx, s.fileLimit(path), path)
	if err != nil {
		return mergedDoc{}, readError(ctx, path, name, err)
	}
	d := mergedDoc{title: outlineTitle(meta["Title"])}
	if d.title == "" {
		d.title = stem(name)
	}
	if d.pages, err = strconv.Atoi(meta["PageCount"]); err != nil {
		return mergedDoc{}, stepError(path, err)
	}
	d.outline = t.FileBookmarks[filepath.Base(path)]
	if last := lastPage(d.outline); last > d.pages {
		return mergedDoc{}, badRequest("Invalid form data: %s: bookmarks page %d is past the document's end (%d pages)", name, last, d.pages)
	}
	if len(d.outline) == 0 && (t.AutoIndexBookmarks || t.TitleBookmarks) {
		own, err := s.pdf.ReadBookmarks(ctx, s.fileLimit(path), path)
		if err != nil {
			return mergedDoc{}, readError(ctx, path, name, err)
		}
		d.outline = cleanOutline(own)
	}
	return d, nil
}

// readError is the failure to read the input at path, which the client
// named name: a 400 naming it for what is wrong with the file.
func readError(ctx context.Context, path, name string, err error) error {
	if ctx.Err() == nil && !stopped(err) {
		err = badRequest("%s: %v", name, err)
	}
	return stepError(path, err)
}

// lastPage is the highest page bms open.
func lastPage(bms []pdf.Bookmark) int {
	last := 0
	for _, b := range bms {
		last = max(last, b.Page, lastPage(b.Children))
	}
	return last
}

// outlineTitle is a title read from a PDF made fit for an outline entry:
// control characters (a line break) become spaces, runs of spaces one.
func outlineTitle(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
}

// cleanOutline is an outline read from an input with outlineTitle's
// titles, so that a PDF's odd title does not refuse the request.
func cleanOutline(bms []pdf.Bookmark) []pdf.Bookmark {
	for i := range bms {
		bms[i].Title = outlineTitle(bms[i].Title)
		bms[i].Children = cleanOutline(bms[i].Children)
	}
	return bms
}
