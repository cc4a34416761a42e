package markdown

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// dir writes files into a fresh directory and returns it.
func dir(t *testing.T, files map[string]string) string {
	t.Helper()
	d := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func TestTemplate(t *testing.T) {
	outside := dir(t, map[string]string{"secret.md": "# secret"})
	tests := []struct {
		name    string
		index   string
		files   map[string]string
		want    []string // substrings of the output
		missing []string // names of a *NotFoundError
		wantErr string
	}{
		{name: "one file", index: `<body>{{ toHTML "page_1.md" }}</body>`,
			files: map[string]string{"page_1.md": "# Page 1"},
			want:  []string{`<body><h1 id="page-1">Page 1</h1>`}},
		{name: "gfm table and strikethrough", index: `{{ toHTML "t.md" }}`,
			files: map[string]string{"t.md": "|a|b|\n|-|-|\n|1|2|\n\n~~x~~"},
			want:  []string{"<table>", "<td>1</td>", "<del>x</del>"}},
		{name: "raw html left out", index: `{{ toHTML "x.md" }}`,
			files: map[string]string{"x.md": "<script>alert(1)</script>\n\ntext"},
			want:  []string{"<!-- raw HTML omitted -->", "<p>text</p>"}},
		{name: "template html kept", index: `<p class="a">{{ "<b>" }}</p>`,
			want: []string{`<p class="a">&lt;b&gt;</p>`}},
		{name: "missing files listed in order", index: `{{ toHTML "page_2.md" }}{{ toHTML "page_3.md" }}`,
			files:   map[string]string{"page_1.md": "x"},
			missing: []string{"page_2.md", "page_3.md"}},
		{name: "parent path refused", index: `{{ toHTML "../` + filepath.Base(outside) + `/secret.md" }}`,
			missing: []string{"../" + filepath.Base(outside) + "/secret.md"}},
		{name: "absolute path refused", index: `{{ toHTML "` + outside + `/secret.md" }}`,
			missing: []string{outside + "/secret.md"}},
		{name: "not markdown refused", index: `{{ toHTML "index.html" }}`,
			files:   map[string]string{"index.html": "<p>"},
			missing: []string{"index.html"}},
		{name: "bad template", index: `{{ toHTML }`, wantErr: "parse template"},
		{name: "unknown function", index: `{{ readFile "x" }}`, wantErr: `function "readFile" not defined`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := Template(context.Background(), []byte(tt.index), dir(t, tt.files), &out)
			var nf *NotFoundError
			switch {
			case tt.missing != nil:
				if !errors.As(err, &nf) || strings.Join(nf.Names, "|") != strings.Join(tt.missing, "|") {
					t.Fatalf("got error %v, want not found %q", err, tt.missing)
				}
				if out.Len() != 0 {
					t.Errorf("got output %q with an error, want none", out.String())
				}
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tt.wantErr)
				}
			case err != nil:
				t.Fatalf("got error %v, want none", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("got %q, want it to contain %q", out.String(), w)
				}
			}
		})
	}
}

func TestTemplateSymlinkOutside(t *testing.T) {
	outside := dir(t, map[string]string{"secret.md": "# secret"})
	d := dir(t, nil)
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(d, "link.md")); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := Template(context.Background(), []byte(`{{ toHTML "link.md" }}`), d, &out)
	if err == nil || strings.Contains(out.String(), "secret") {
		t.Fatalf("got %q, %v; want an error and no content from outside the directory", out.String(), err)
	}
}

func TestNotFoundQuoted(t *testing.T) {
	e := &NotFoundError{Names: []string{"page_2.md", "page_3.md"}}
	if got, want := e.Quoted(), "'page_2.md'\n'page_3.md'"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestTemplateBounded(t *testing.T) {
	d := dir(t, map[string]string{"big.md": strings.Repeat("word ", MaxFile/5+1)})
	var out bytes.Buffer
	err := Template(context.Background(), []byte(`{{ toHTML "big.md" }}`), d, &out)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge for a file over MaxFile", err)
	}
	// Many calls on one small file: the output bound stops the loop.
	d = dir(t, map[string]string{"p.md": strings.Repeat("x", MaxFile-1)})
	err = Template(context.Background(), []byte(`{{ range 10 }}{{ toHTML "p.md" }}{{ end }}`), d, &out)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge for output over MaxOutput", err)
	}
}

func TestTemplateCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := dir(t, map[string]string{"p.md": "x"})
	err := Template(ctx, []byte(`{{ toHTML "p.md" }}`), d, &bytes.Buffer{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

// TestPageGolden compares Page's output with testdata/feature.html
// (go test -update rewrites it).
func TestPageGolden(t *testing.T) {
	src, err := os.ReadFile("testdata/feature.md")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Page(src, "Notes <draft>", &out); err != nil {
		t.Fatal(err)
	}
	path := "testdata/feature.html"
	if *update {
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("Page differs from %s (go test -update rewrites it)\n got %s", path, out.Bytes())
	}
}
