package convert

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestPageSum: an HTML page's digest changes with the files below its
// directory that it, or its stylesheets, reference, and with nothing
// else.
func TestPageSum(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("site/index.html", `<link rel=stylesheet href="css/style.css?v=2"><img src='img/a.png'>
<a href="https://example.com/x.png">x</a><img src="/etc/hostname"><img src="../outside.png"><a href="#top">top</a>
<div style="background: url( img/bg.png )"></div><script src=js/app.js></script>`)
	write("site/css/style.css", `@import "more.css"; body { background: url('../img/css-bg.png') }`)
	write("site/css/more.css", `h1 { color: red }`)
	write("site/img/a.png", "a")
	write("site/img/bg.png", "bg")
	write("site/img/css-bg.png", "css-bg")
	write("site/js/app.js", "1")
	write("site/unrelated.png", "u")
	write("outside.png", "o")
	page := filepath.Join(dir, "site/index.html")
	sum := func() string {
		t.Helper()
		s, err := pageSum(context.Background(), page, "main")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tests := []struct {
		name, file string
		counts     bool
	}{
		{"an image it shows", "site/img/a.png", true},
		{"an image of an inline style", "site/img/bg.png", true},
		{"its stylesheet", "site/css/style.css", true},
		{"a stylesheet that stylesheet imports", "site/css/more.css", true},
		{"an image of its stylesheet", "site/img/css-bg.png", true},
		{"its script", "site/js/app.js", true},
		{"a file it does not reference", "site/unrelated.png", false},
		{"a file outside its directory", "outside.png", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := sum()
			old, err := os.ReadFile(filepath.Join(dir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			write(tt.file, string(old)+"\n/* changed */")
			if changed := sum() != before; changed != tt.counts {
				t.Errorf("after %s changed, the page's digest changed: %v, want %v", tt.file, changed, tt.counts)
			}
		})
	}
	before := sum()
	if err := os.Remove(filepath.Join(dir, "site/img/a.png")); err != nil {
		t.Fatal(err)
	}
	if sum() == before {
		t.Errorf("after an asset was removed, the page's digest is the same")
	}
	if s, _ := pageSum(context.Background(), page, "other"); s == sum() {
		t.Errorf("pages of other bytes, same assets: got the same digest")
	}
}

// TestCheckText: a Markdown file must be UTF-8 text; a character cut at
// the end of what is read is not a fault.
func TestCheckText(t *testing.T) {
	long := make([]byte, maxTextCheck+10)
	for i := range long {
		long[i] = 'a'
	}
	copy(long[maxTextCheck-1:], "é") // 2 bytes across the edge
	tests := []struct {
		name    string
		content []byte
		want    string
	}{
		{"text", []byte("# Title\n\nSome *text*, déjà vu.\n"), ""},
		{"a character cut at the edge", long, ""},
		{"empty", nil, "the file is empty"},
		{"binary", []byte("PK\x03\x04\x00\x00"), "content is not Markdown: not UTF-8 text"},
		{"latin-1", []byte("caf\xe9"), "content is not Markdown: not UTF-8 text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "x.md")
			if err := os.WriteFile(p, tt.content, 0o644); err != nil {
				t.Fatal(err)
			}
			got := ""
			if err := checkText(p); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("checkText: got %q, want %q", got, tt.want)
			}
		})
	}
}
