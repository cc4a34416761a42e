package webbench

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGenerate(t *testing.T) {
	dir := t.TempDir()
	docs, err := Generate(dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(docs.HTML); got != 3 {
		t.Fatalf("got %d HTML documents, want 3", got)
	}
	tests := []struct {
		doc       Doc
		wantPages int
		wantFiles []string
		wantIndex []string // in index.html
	}{
		{docs.HTML[0], 1, []string{"index.html", "style.css", "logo.png"}, []string{`href="style.css"`, `src="logo.png"`}},
		{docs.HTML[1], LongPages, []string{"index.html", "style.css", "logo.png"}, []string{`class="break"`, `src="logo.png"`}},
		{docs.HTML[2], 1, []string{"index.html", "style.css", "logo.png"}, []string{`href="style.css"`}},
		{docs.OnePage, 1, []string{"index.html", "style.css", "logo.png"}, []string{`href="style.css"`}},
		{docs.Markdown, 1, []string{"index.html", "style.css", "doc.md", "logo.png"}, []string{`{{ toHTML "doc.md" }}`}},
	}
	for _, tt := range tests {
		t.Run(tt.doc.Name, func(t *testing.T) {
			if tt.doc.Pages != tt.wantPages {
				t.Errorf("got %d pages, want %d", tt.doc.Pages, tt.wantPages)
			}
			if got := tt.doc.Files; len(got) == 0 || got[0] != "index.html" || len(got) != len(tt.wantFiles) {
				t.Errorf("got files %v, want %v (index.html first)", got, tt.wantFiles)
			}
			for _, f := range tt.wantFiles {
				if _, err := os.Stat(filepath.Join(tt.doc.Dir, f)); err != nil {
					t.Errorf("%s: %v", f, err)
				}
			}
			index, _ := os.ReadFile(filepath.Join(tt.doc.Dir, "index.html"))
			for _, s := range tt.wantIndex {
				if !strings.Contains(string(index), s) {
					t.Errorf("index.html has no %s", s)
				}
			}
			if got := strings.Count(string(index), `class="break"`); tt.doc.Name != "markdown" && got != tt.wantPages-1 {
				t.Errorf("got %d page breaks, want %d", got, tt.wantPages-1)
			}
			logo, _ := os.ReadFile(filepath.Join(tt.doc.Dir, "logo.png"))
			if _, err := png.Decode(bytes.NewReader(logo)); err != nil {
				t.Errorf("logo.png: %v", err)
			}
		})
	}
}

func TestGenerateRefuses(t *testing.T) {
	if _, err := Generate(t.TempDir(), 0); err == nil || !strings.Contains(err.Error(), "0, want at least 1") {
		t.Errorf("Generate(0): got %v, want an error naming 0", err)
	}
}
