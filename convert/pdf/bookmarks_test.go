package pdf

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"
)

func TestBookmarks(t *testing.T) {
	nested := []Bookmark{{Title: "Index", Page: 1, Children: []Bookmark{{Title: "Sub-index", Page: 2}}}, {Title: "End", Page: 3}}
	tests := []struct {
		name  string
		write []Bookmark
		want  []Bookmark
	}{
		{"none", nil, []Bookmark{}},
		{"one", []Bookmark{{Title: "Index", Page: 1}}, []Bookmark{{Title: "Index", Page: 1}}},
		{"nested", nested, nested},
		{"latin and beyond", []Bookmark{{Title: "Größe — 表", Page: 2}}, []Bookmark{{Title: "Größe — 表", Page: 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.pdf")
			if err := Apply(context.Background(), testFile(t, "pages_3.pdf"), out, Post{Bookmarks: tt.write}); err != nil {
				t.Fatal(err)
			}
			got, err := ReadBookmarks(context.Background(), out)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 && len(tt.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestBookmarksReplace: writing bookmarks replaces those the PDF had.
func TestBookmarksReplace(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "1.pdf"), filepath.Join(dir, "2.pdf")
	if err := Apply(context.Background(), testFile(t, "pages_3.pdf"), first, Post{Bookmarks: []Bookmark{{Title: "Old", Page: 1}}}); err != nil {
		t.Fatal(err)
	}
	if err := Apply(context.Background(), first, second, Post{Bookmarks: []Bookmark{{Title: "New", Page: 2}}}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadBookmarks(context.Background(), second)
	if want := []Bookmark{{Title: "New", Page: 2}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, %v, want %+v", got, err, want)
	}
}

func TestBookmarksRefused(t *testing.T) {
	deep := []Bookmark{{Title: "x", Page: 1}}
	for range MaxBookmarkDepth {
		deep = []Bookmark{{Title: "x", Page: 1, Children: deep}}
	}
	tests := []struct {
		name    string
		bms     []Bookmark
		inCheck bool // refused by Check, before any file is read
		want    string
	}{
		{"no title", []Bookmark{{Page: 1}}, true, "needs a title"},
		{"page 0", []Bookmark{{Title: "A", Page: 0}}, true, "want 1 or more"},
		{"newline in title", []Bookmark{{Title: "A\nB", Page: 1}}, true, "control characters"},
		{"child without title", []Bookmark{{Title: "A", Page: 1, Children: []Bookmark{{Page: 1}}}}, true, "needs a title"},
		{"too deep", deep, true, "deeper than"},
		{"past the end", []Bookmark{{Title: "A", Page: 4}}, false, "past the document's end (3 pages)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Post{Bookmarks: tt.bms}
			if err := p.Check(); (err != nil) != tt.inCheck {
				t.Errorf("Check() = %v, want refused %v", err, tt.inCheck)
			}
			dir := t.TempDir()
			out := filepath.Join(dir, "out.pdf")
			err := Apply(context.Background(), testFile(t, "pages_3.pdf"), out, p)
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != "bookmarks" || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Apply() = %v, want a FieldError for bookmarks saying %q", err, tt.want)
			}
			onlyFiles(t, dir)
		})
	}
}

func TestReadBookmarksFailure(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadBookmarks(cancelled, testFile(t, "pages_3.pdf")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v, want context.Canceled", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.pdf")
	if err := os.WriteFile(bad, []byte("%PDF-1.4\nnot really"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadBookmarks(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "read bookmarks of "+bad) {
		t.Errorf("malformed: got %v, want an error naming the file", err)
	}
}

// attachments lists the names of the PDF's attachments.
func attachments(t *testing.T, path string) []string {
	t.Helper()
	aa, err := api.Attachments(openFile(t, path), newConf(""))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range aa {
		names = append(names, a.FileName)
	}
	return names
}
