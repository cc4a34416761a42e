package serve

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"calq/internal/serve/form"
	"calq/internal/serve/jobs"
)

// siteJob is a job of route whose uploads (client name: content) are
// stored in dir/in under calq's names.
func siteJob(t *testing.T, route string, files [][2]string) (*jobs.Job, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, inputDirName), 0o700); err != nil {
		t.Fatal(err)
	}
	j := &jobs.Job{ID: "j1", Route: route}
	for i, f := range files {
		stored := filepath.Base(t.Name()) + string(rune('a'+i)) + filepath.Ext(f[0])
		if err := os.WriteFile(filepath.Join(dir, inputDirName, stored), []byte(f[1]), 0o600); err != nil {
			t.Fatal(err)
		}
		j.Request.Files = append(j.Request.Files, jobs.File{Name: f[0], Stored: stored})
	}
	return j, dir
}

// TestSite: the uploads are laid out under their client names beside
// index.html; the markdown routes render index.html's toHTML calls.
func TestSite(t *testing.T) {
	tests := []struct {
		name    string
		route   string
		files   [][2]string
		page    string // a part of the page's content
		assets  []string
		status  int // of the error; 0 none
		message string
	}{
		{name: "html and assets", route: routeChromiumHTML,
			files: [][2]string{{"index.html", `<img src="logo.png">`}, {"logo.png", "PNG"}, {"style.css", "p{}"}},
			page:  `<img src="logo.png">`, assets: []string{"logo.png", "style.css"}},
		{name: "markdown rendered", route: routeChromiumMarkdown,
			files: [][2]string{{"index.html", `<body>{{ toHTML "page_1.md" }}</body>`}, {"page_1.md", "# Page 1"}},
			page:  `<h1 id="page-1">Page 1</h1>`, assets: []string{"page_1.md"}},
		{name: "markdown screenshot rendered", route: routeScreenshotMarkdown,
			files: [][2]string{{"index.html", `{{ toHTML "a.md" }}`}, {"a.md", "~~x~~"}},
			page:  `<del>x</del>`},
		{name: "markdown files missing", route: routeChromiumMarkdown,
			files:  [][2]string{{"index.html", `{{ toHTML "page_1.md" }}{{ toHTML "page_2.md" }}{{ toHTML "page_3.md" }}`}, {"page_1.md", "x"}},
			status: 400, message: "Markdown file(s) not found: 'page_2.md'\n'page_3.md'"},
		{name: "markdown template broken", route: routeChromiumMarkdown,
			files:  [][2]string{{"index.html", `{{ toHTML "a.md" `}, {"a.md", "x"}},
			status: 400, message: "Invalid form data: file 'index.html' is not a valid template"},
		{name: "html keeps template text", route: routeChromiumHTML,
			files: [][2]string{{"index.html", `{{ toHTML "a.md" }}`}, {"a.md", "x"}},
			page:  `{{ toHTML "a.md" }}`},
		{name: "no index", route: routeChromiumHTML, files: [][2]string{{"a.html", "x"}},
			status: 400, message: "Invalid form data: form file 'index.html' is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, dir := siteJob(t, tt.route, tt.files)
			page, err := (&Server{}).site(context.Background(), j, dir, "index.html")
			if tt.status != 0 {
				var je *jobError
				if !errors.As(err, &je) || je.status != tt.status || !strings.HasPrefix(je.msg, tt.message) {
					t.Fatalf("got %v, want %d %q", err, tt.status, tt.message)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(dir, siteDirName, "index.html"); page != want {
				t.Errorf("got page %s, want %s", page, want)
			}
			b, err := os.ReadFile(page)
			if err != nil || !strings.Contains(string(b), tt.page) {
				t.Errorf("got page %q (%v), want it to contain %q", b, err, tt.page)
			}
			for _, a := range tt.assets {
				if _, err := os.Stat(filepath.Join(dir, siteDirName, a)); err != nil {
					t.Errorf("asset %s: %v", a, err)
				}
			}
			// The stored template is left as it was: a run again renders it again.
			if b, _ := os.ReadFile(filepath.Join(dir, inputDirName, j.Request.Files[0].Stored)); string(b) != tt.files[0][1] {
				t.Errorf("got stored index %q, want the upload %q", b, tt.files[0][1])
			}
			if _, err := (&Server{}).site(context.Background(), j, dir, "index.html"); err != nil {
				t.Errorf("a second run: %v", err)
			}
		})
	}
}

// TestSiteNamesStayInside: a name that is not a plain base name (a
// journal edited by hand) fails the job; nothing is made outside the
// job's directory.
func TestSiteNamesStayInside(t *testing.T) {
	for _, name := range []string{"../escape.html", "/tmp/escape.html", "a/../../escape.html"} {
		t.Run(name, func(t *testing.T) {
			j, dir := siteJob(t, routeChromiumHTML, [][2]string{{"index.html", "x"}, {name, "y"}})
			_, err := (&Server{}).site(context.Background(), j, dir, "index.html")
			if err == nil {
				t.Errorf("got no error for the name %q, want one", name)
			}
			if _, err := os.Stat(filepath.Join(dir, "escape.html")); err == nil {
				t.Errorf("a file was made outside the site directory")
			}
		})
	}
}

// TestCheckSite: what cannot be laid out as one directory under the
// client's names is refused before the job is queued.
func TestCheckSite(t *testing.T) {
	tests := []struct {
		name  string
		route string
		files []string
		want  string // "" accepted
	}{
		{"page and assets", routeChromiumHTML, []string{"index.html", "a.png", "b.css"}, ""},
		{"url takes no file", routeChromiumURL, nil, ""},
		{"url ignores files", routeScreenshotURL, []string{"a.png"}, ""},
		{"no index", routeChromiumHTML, []string{"page.html"}, "Invalid form data: form file 'index.html' is required"},
		{"no files", routeScreenshotHTML, nil, "Invalid form data: form file 'index.html' is required"},
		{"markdown", routeChromiumMarkdown, []string{"index.html", "a.md"}, ""},
		{"index in capitals", routeChromiumMarkdown, []string{"index.HTML", "a.md"}, "Invalid form data: form file 'index.html' is required"},
		{"same name twice", routeChromiumMarkdown, []string{"index.html", "a.md", "a.md"},
			"Invalid form data: two files are named 'a.md'; the page's files must have distinct names"},
		{"index twice", routeChromiumHTML, []string{"index.html", "index.html"},
			"Invalid form data: two files are named 'index.html'; the page's files must have distinct names"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in []form.File
			for _, n := range tt.files {
				in = append(in, form.File{Name: n})
			}
			err := checkSite(tt.route, in, Task{Chromium: &ChromiumTask{Index: "index.html"}})
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
