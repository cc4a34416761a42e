package pdf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// Bookmark is one entry of a PDF's outline: a title that opens page Page
// (from 1), and the entries below it. Its JSON is Gotenberg's
// ({"title", "page", "children"}).
type Bookmark struct {
	Title    string     `json:"title"`
	Page     int        `json:"page"`
	Children []Bookmark `json:"children,omitempty"`
}

// Bounds of an outline Post.Bookmarks may ask for: pdfcpu builds it
// recursively, one object per entry.
const (
	MaxBookmarks     = 10000
	MaxBookmarkDepth = 32
)

// checkBookmarks refuses an outline that is too large or deep, or has an
// entry without a title, a page below 1 or a control character in its
// title; pages past the document's end are refused when it is written.
func checkBookmarks(bms []Bookmark) error {
	n := 0
	var walk func(bms []Bookmark, depth int) error
	walk = func(bms []Bookmark, depth int) error {
		if depth > MaxBookmarkDepth {
			return &FieldError{Field: "bookmarks", Err: fmt.Errorf("they nest deeper than %d levels", MaxBookmarkDepth)}
		}
		for _, b := range bms {
			if n++; n > MaxBookmarks {
				return &FieldError{Field: "bookmarks", Err: fmt.Errorf("more than %d of them", MaxBookmarks)}
			}
			if err := b.check(); err != nil {
				return &FieldError{Field: "bookmarks", Value: b.Title, Err: err}
			}
			if err := walk(b.Children, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(bms, 1)
}

func (b Bookmark) check() error {
	switch {
	case strings.TrimSpace(b.Title) == "":
		return errors.New("a bookmark needs a title")
	case hasControl(b.Title):
		return errors.New("a title may not hold control characters")
	case b.Page < 1:
		return fmt.Errorf("page %d: want 1 or more", b.Page)
	}
	return nil
}

// writeBookmarks returns the step that replaces the outline with bms.
func writeBookmarks(bms []Bookmark) func(rs io.ReadSeeker, w io.Writer) error {
	return func(rs io.ReadSeeker, w io.Writer) error {
		ctx, err := readFrom(rs, "", model.ADDBOOKMARKS)
		if err != nil {
			return err
		}
		if last := lastPage(bms); last > ctx.PageCount {
			return &FieldError{Field: "bookmarks", Value: strconv.Itoa(last), Err: fmt.Errorf("page %d is past the document's end (%s)", last, pagesInWords(ctx.PageCount))}
		}
		if err := pdfcpu.AddBookmarks(ctx, toPdfcpu(bms), true); err != nil {
			return err
		}
		return api.WriteContext(ctx, w)
	}
}

func lastPage(bms []Bookmark) int {
	last := 0
	for _, b := range bms {
		last = max(last, b.Page, lastPage(b.Children))
	}
	return last
}

func toPdfcpu(bms []Bookmark) []pdfcpu.Bookmark {
	out := make([]pdfcpu.Bookmark, len(bms))
	for i, b := range bms {
		out[i] = pdfcpu.Bookmark{Title: b.Title, PageFrom: b.Page, Kids: toPdfcpu(b.Children)}
	}
	return out
}

func fromPdfcpu(bms []pdfcpu.Bookmark) []Bookmark {
	out := make([]Bookmark, len(bms))
	for i, b := range bms {
		out[i] = Bookmark{Title: b.Title, Page: b.PageFrom}
		if len(b.Kids) > 0 {
			out[i].Children = fromPdfcpu(b.Kids)
		}
	}
	return out
}

// ReadBookmarks returns the outline of the PDF at path, an empty list when
// it has none. A PDF that needs a password gives ErrEncrypted.
func ReadBookmarks(ctx context.Context, path string) ([]Bookmark, error) {
	op := "read bookmarks of " + path
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	defer f.Close()
	var bms []pdfcpu.Bookmark
	err = protect(op, func() (err error) {
		bms, err = api.Bookmarks(f, newConf(""))
		if errors.Is(err, pdfcpu.ErrNoBookmarks) {
			err = nil
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return fromPdfcpu(bms), nil
}

// hasControl says whether s holds a control character (C0, DEL or C1):
// in a value calq writes into a PDF or a header, a line break could end
// it early and forge what follows.
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 })
}

// pagesInWords says n pages in words: "1 page", "3 pages".
func pagesInWords(n int) string {
	if n == 1 {
		return "1 page"
	}
	return strconv.Itoa(n) + " pages"
}
