package serve

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"calq/convert/pdf"
)

// outlinedPDF is a PDF of the first n pages of pages_3.pdf ("Page 1",
// ...), with title as its Title ("" none) and outline as its outline.
func outlinedPDF(t *testing.T, n int, title string, outline []pdf.Bookmark) string {
	t.Helper()
	ctx, dir := context.Background(), t.TempDir()
	parts, err := pdf.Split(ctx, filepath.Join(repoTestdata, "convert", "pages_3.pdf"), dir,
		pdf.SplitSpec{Mode: pdf.SplitPages, Span: "1-" + string(rune('0'+n)), Unify: true})
	if err != nil {
		t.Fatal(err)
	}
	post := pdf.Post{Bookmarks: outline}
	if title != "" {
		post.Metadata = &pdf.Metadata{Title: title}
	}
	out := filepath.Join(dir, "out.pdf")
	if err := pdf.Apply(ctx, parts[0], out, post); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMergeOutline: the merge route's bookmarks by input file,
// titleBookmarks and autoIndexBookmarks, as Gotenberg's: each input's
// bookmarks (those the request gives it, else with autoIndexBookmarks or
// titleBookmarks its own outline) move to where its pages land in the
// merged PDF; titleBookmarks puts them under an entry per input, titled
// by its Title, else its file name without extension.
func TestMergeOutline(t *testing.T) {
	ts := newTestServer(t, nil)
	type bm = pdf.Bookmark
	plain1, plain2 := outlinedPDF(t, 1, "", nil), outlinedPDF(t, 2, "", nil)
	alpha := outlinedPDF(t, 2, "Alpha", []bm{{Title: "A1", Page: 1}, {Title: "A2", Page: 2}})
	bravo := outlinedPDF(t, 1, "Bravo", nil)
	own1 := outlinedPDF(t, 1, "", []bm{{Title: "Own 1", Page: 1}})
	own2 := outlinedPDF(t, 2, "", []bm{{Title: "Own 2", Page: 1, Children: []bm{{Title: "Own 2 sub", Page: 2}}}})
	tests := []struct {
		name   string
		parts  []part
		status int
		want   []bm   // the merged PDF's outline, for status 200
		body   string // what the error says, otherwise
	}{
		{"bookmarks by file move with their file", []part{{"files", "a.pdf", plain2}, {"files", "b.pdf", plain1},
			{"bookmarks", "", `{"a.pdf":[{"title":"A","page":1,"children":[{"title":"A sub","page":2}]}],"b.pdf":[{"title":"B","page":1}]}`}},
			200, []bm{{Title: "A", Page: 1, Children: []bm{{Title: "A sub", Page: 2}}}, {Title: "B", Page: 3}}, ""},
		{"bookmarks for one file only", []part{{"files", "a.pdf", plain2}, {"files", "b.pdf", plain1},
			{"bookmarks", "", `{"b.pdf":[{"title":"B","page":1}]}`}}, 200, []bm{{Title: "B", Page: 3}}, ""},
		{"titleBookmarks: Title, else the file name", []part{{"files", "alpha.pdf", alpha}, {"files", "bravo.pdf", bravo},
			{"files", "untitled_gamma.pdf", plain1}, {"titleBookmarks", "", "true"}}, 200,
			[]bm{{Title: "Alpha", Page: 1, Children: []bm{{Title: "A1", Page: 1}, {Title: "A2", Page: 2}}},
				{Title: "Bravo", Page: 3}, {Title: "untitled_gamma", Page: 4}}, ""},
		{"titleBookmarks over bookmarks by file", []part{{"files", "alpha.pdf", alpha}, {"files", "bravo.pdf", bravo},
			{"bookmarks", "", `{"bravo.pdf":[{"title":"Given","page":1}]}`}, {"titleBookmarks", "", "true"}}, 200,
			[]bm{{Title: "Alpha", Page: 1, Children: []bm{{Title: "A1", Page: 1}, {Title: "A2", Page: 2}}},
				{Title: "Bravo", Page: 3, Children: []bm{{Title: "Given", Page: 3}}}}, ""},
		{"autoIndexBookmarks keeps each file's outline", []part{{"files", "a.pdf", own2}, {"files", "b.pdf", plain1},
			{"files", "c.pdf", own1}, {"autoIndexBookmarks", "", "true"}}, 200,
			[]bm{{Title: "Own 2", Page: 1, Children: []bm{{Title: "Own 2 sub", Page: 2}}}, {Title: "Own 1", Page: 4}}, ""},
		{"autoIndexBookmarks with bookmarks by file", []part{{"files", "a.pdf", plain1}, {"files", "b.pdf", own1},
			{"bookmarks", "", `{"a.pdf":[{"title":"Index","page":1}]}`}, {"autoIndexBookmarks", "", "true"}}, 200,
			[]bm{{Title: "Index", Page: 1}, {Title: "Own 1", Page: 2}}, ""},
		{"bookmarks by file replace a file's own", []part{{"files", "a.pdf", own1}, {"files", "b.pdf", own1},
			{"bookmarks", "", `{"a.pdf":[{"title":"Given","page":1}]}`}, {"autoIndexBookmarks", "", "true"}}, 200,
			[]bm{{Title: "Given", Page: 1}, {Title: "Own 1", Page: 2}}, ""},
		{"a list for the merged PDF wins", []part{{"files", "a.pdf", own1}, {"files", "b.pdf", own1},
			{"bookmarks", "", `[{"title":"List","page":2}]`}, {"autoIndexBookmarks", "", "true"}, {"titleBookmarks", "", "true"}}, 200,
			[]bm{{Title: "List", Page: 2}}, ""},
		{"a file's bookmark past its own pages", []part{{"files", "a.pdf", plain1}, {"files", "b.pdf", plain2},
			{"bookmarks", "", `{"a.pdf":[{"title":"X","page":2}]}`}}, 400, nil, "Invalid form data: a.pdf: bookmarks"},
		{"bookmarks for a file not uploaded", []part{{"files", "a.pdf", plain1}, {"files", "b.pdf", plain1},
			{"bookmarks", "", `{"c.pdf":[{"title":"X","page":1}]}`}}, 400, nil, `"c.pdf" names no uploaded PDF`},
		{"autoIndexBookmarks not a boolean", []part{{"files", "a.pdf", plain1}, {"autoIndexBookmarks", "", "foo"}}, 400, nil,
			`Invalid form data: form field 'autoIndexBookmarks' is invalid (got 'foo', resulting to strconv.ParseBool: parsing "foo": invalid syntax)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, b := postRoute(t, ts.URL, "merge", tt.parts, tt.status)
			if tt.status != http.StatusOK {
				wantBody(tt.body)(t, resp, b)
				return
			}
			if got := bookmarksOf(t, pdfs(t, resp, b)[""]); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got bookmarks %+v, want %+v", got, tt.want)
			}
		})
	}
}
