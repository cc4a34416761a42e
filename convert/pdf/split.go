package pdf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	"calq/internal/fsio"
)

// Split modes, as Gotenberg's splitMode field names them.
const (
	SplitIntervals = "intervals"
	SplitPages     = "pages"
)

// SplitSpec says how Split cuts a PDF, as Gotenberg's splitMode, splitSpan
// and splitUnify fields do (with pdfcpu, Gotenberg's default engine).
// Mode "intervals": Span is a page count N and every N pages make a file,
// the last one holding the rest. Mode "pages": Span is a page selection
// ("1-2,4", "2-", "even", "!3", or qpdf's and pdftk's "2-z", "2-end",
// "r1"; see pageSelection); every selected page makes a
// file of its own, or with Unify the selected pages make one file. Pages
// keep the document's order whatever the order of the selection.
type SplitSpec struct {
	Mode  string
	Span  string
	Unify bool
}

// Check rejects a bad spec before any file is read; its errors are
// *FieldError naming splitMode or splitSpan.
func (s SplitSpec) Check() error {
	_, _, err := s.parse()
	return err
}

// parse returns the interval of mode intervals or the page selection of
// mode pages.
func (s SplitSpec) parse() (int, []string, error) {
	span := strings.TrimSpace(s.Span)
	switch s.Mode {
	case SplitIntervals:
		n, err := strconv.Atoi(span)
		if err != nil || n < 1 {
			return 0, nil, &FieldError{Field: "splitSpan", Value: s.Span, Err: errors.New("want a page count of at least 1 for mode intervals")}
		}
		return n, nil, nil
	case SplitPages:
		if span == "" {
			return 0, nil, &FieldError{Field: "splitSpan", Value: s.Span, Err: errors.New("want the pages to extract, such as 1-2,4")}
		}
		sel, err := pageSelection("splitSpan", span)
		return 0, sel, err
	}
	return 0, nil, &FieldError{Field: "splitMode", Value: s.Mode, Err: errors.New("want intervals or pages")}
}

// groups returns the page numbers of each output file for a document of
// pageCount pages.
func (s SplitSpec) groups(pageCount int) ([][]int, error) {
	n, sel, err := s.parse()
	if err != nil {
		return nil, err
	}
	var groups [][]int
	if n > 0 {
		for from := 1; from <= pageCount; from += n {
			groups = append(groups, api.PagesForPageRange(from, min(from+n-1, pageCount)))
		}
		return groups, nil
	}
	set, err := api.PagesForPageSelection(pageCount, sel, false, false)
	if err != nil {
		return nil, &FieldError{Field: "splitSpan", Value: s.Span, Err: err}
	}
	var pages []int
	for p, ok := range set {
		if ok && p >= 1 && p <= pageCount {
			pages = append(pages, p)
		}
	}
	if len(pages) == 0 {
		return nil, &FieldError{Field: "splitSpan", Value: s.Span, Err: fmt.Errorf("selects none of the %d pages", pageCount)}
	}
	slices.Sort(pages)
	if s.Unify {
		return [][]int{pages}, nil
	}
	for _, p := range pages {
		groups = append(groups, []int{p})
	}
	return groups, nil
}

// Split cuts the PDF in into files in outDir as s says and returns their
// paths in page order. They are named <stem>_<n>.pdf after in's name
// without its extension, n counting from 0 as Gotenberg's names do; files
// of those names already in outDir are replaced. Every file is built in a
// stage first and only then renamed into place, so on an error before the
// renames nothing is written; should a rename fail, the files already
// placed are removed. An input that needs a password gives ErrEncrypted.
func Split(ctx context.Context, in, outDir string, s SplitSpec) ([]string, error) {
	op := "split " + in
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	stem := strings.TrimSuffix(filepath.Base(in), filepath.Ext(in))
	st, err := newStage(filepath.Join(outDir, stem+".pdf"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	defer st.remove()
	parts, err := splitParts(ctx, st, in, s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	outs, err := place(ctx, parts, outDir, stem)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return outs, nil
}

// splitParts writes the parts of in into the stage.
func splitParts(ctx context.Context, st *stage, in string, s SplitSpec) ([]string, error) {
	src, err := readContext(in, "", model.SPLIT)
	if err != nil {
		return nil, err
	}
	groups, err := s.groups(src.PageCount)
	if err != nil {
		return nil, err
	}
	parts := make([]string, 0, len(groups))
	for _, pages := range groups {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		part, err := st.write(func(w io.Writer) error {
			return protect("split", func() error {
				dst, err := pdfcpu.ExtractPages(src, pages, false)
				if err != nil {
					return err
				}
				return api.WriteContext(dst, w)
			})
		})
		if err != nil {
			return nil, fmt.Errorf("pages %d-%d: %w", pages[0], pages[len(pages)-1], err)
		}
		parts = append(parts, part)
	}
	return parts, nil
}

// place renames the staged parts to <stem>_<n>.pdf in outDir, removing
// those already placed if one fails.
func place(ctx context.Context, parts []string, outDir, stem string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	outs := make([]string, len(parts))
	for i := range parts {
		outs[i] = filepath.Join(outDir, stem+"_"+strconv.Itoa(i)+".pdf")
	}
	if err := fsio.RenameAll(parts, outs); err != nil {
		return nil, err
	}
	return outs, nil
}
