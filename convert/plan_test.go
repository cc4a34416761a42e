package convert

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// tree makes files (slash paths) under a new directory and returns it.
func tree(t *testing.T, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// rels lists the items as "rel -> output below out".
func rels(items []Item, out string) []string {
	var s []string
	for _, it := range items {
		o, _ := filepath.Rel(out, it.Output)
		s = append(s, it.Rel+" -> "+filepath.ToSlash(o))
	}
	return s
}

func TestPlan(t *testing.T) {
	tests := []struct {
		name             string
		files            []string
		include, exclude []string
		want             []string
	}{
		{"mirrors the tree", []string{"a.docx", "sub/b.xlsx", "sub/deep/c.png"}, nil, nil,
			[]string{"a.docx -> a.pdf", "sub/b.xlsx -> sub/b.pdf", "sub/deep/c.png -> sub/deep/c.pdf"}},
		{"shared stems keep their extension", []string{"report.docx", "report.xlsx", "report.pdf", "other.odt"}, nil, nil,
			[]string{"other.odt -> other.pdf", "report.docx -> report.docx.pdf", "report.pdf -> report.pdf.pdf", "report.xlsx -> report.xlsx.pdf"}},
		{"same stem in another directory is no collision", []string{"a/r.docx", "b/r.xlsx"}, nil, nil,
			[]string{"a/r.docx -> a/r.pdf", "b/r.xlsx -> b/r.pdf"}},
		{"case-insensitive collision", []string{"Report.docx", "report.odt"}, nil, nil,
			[]string{"Report.docx -> Report.docx.pdf", "report.odt -> report.odt.pdf"}},
		{"include by base name", []string{"a.docx", "sub/b.docx", "c.xlsx"}, []string{"*.docx"}, nil,
			[]string{"a.docx -> a.pdf", "sub/b.docx -> sub/b.pdf"}},
		{"exclude by path", []string{"a.docx", "drafts/b.docx"}, nil, []string{"drafts/*"},
			[]string{"a.docx -> a.pdf"}},
		{"hidden files and directories are skipped", []string{"a.docx", ".b.docx", ".git/c.docx"}, nil, nil,
			[]string{"a.docx -> a.pdf"}},
		{"non-ASCII names", []string{"Übersicht – 報告.docx"}, nil, nil,
			[]string{"Übersicht – 報告.docx -> Übersicht – 報告.pdf"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tree(t, tt.files...)
			out := filepath.Join(t.TempDir(), "out")
			items, err := Plan([]string{dir}, out, tt.include, tt.exclude)
			if err != nil {
				t.Fatal(err)
			}
			got := rels(items, out)
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestPlanTwoRoots: each input directory goes under its own name, and a
// name shared across them is numbered.
func TestPlanTwoRoots(t *testing.T) {
	a, b := tree(t, "x.docx"), tree(t, "x.docx")
	out := t.TempDir()
	items, err := Plan([]string{a, b, filepath.Join(a, "x.docx")}, out, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := rels(items, out)
	want := []string{filepath.Base(a) + "/x.docx -> " + filepath.Base(a) + "/x.pdf", filepath.Base(b) + "/x.docx -> " + filepath.Base(b) + "/x.pdf"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q (a file named twice is planned once)", got, want)
	}
}

func TestPlanErrors(t *testing.T) {
	dir := tree(t, "a.pdf", "b.docx")
	if _, err := Plan([]string{dir}, dir, nil, nil); err == nil || !strings.Contains(err.Error(), "output directory") {
		t.Errorf("out = input: got %v, want an error", err)
	}
	// These fail the one input, and the rest of a batch goes on.
	if items, err := Plan([]string{filepath.Join(dir, "a.pdf")}, dir, nil, nil); err != nil || len(items) != 1 || !strings.Contains(items[0].Fail, "overwrite") {
		t.Errorf("a PDF onto itself: got %+v, %v; want an item that fails", items, err)
	}
	if items, err := Plan([]string{filepath.Join(dir, "missing.docx")}, t.TempDir(), nil, nil); err != nil || len(items) != 1 || !strings.Contains(items[0].Fail, "no such file") {
		t.Errorf("missing input: got %+v, %v; want an item that fails", items, err)
	}
	if _, err := Plan([]string{dir}, t.TempDir(), []string{"[bad"}, nil); err == nil {
		t.Error("bad glob: no error")
	}
	// Out inside the input tree is skipped, so a re-run never converts
	// its own PDFs.
	out := filepath.Join(dir, "pdf")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(out, "b.pdf"), []byte("%PDF"), 0o644)
	items, err := Plan([]string{dir}, out, nil, nil)
	if err != nil || len(items) != 2 {
		t.Errorf("out inside input: %d items, %v; want the 2 inputs", len(items), err)
	}
}

// TestDefaultTimeout: without --timeout a file gets 60 s plus 30 s per
// MiB, at most 10 minutes, and a given --timeout replaces it (the tests'
// collect gives files more; these are the defaults people get).
func TestDefaultTimeout(t *testing.T) {
	tests := []struct {
		name  string
		given time.Duration
		size  int64
		want  time.Duration
	}{
		{"empty file", 0, 0, time.Minute},
		{"1 MiB", 0, 1 << 20, 90 * time.Second},
		{"10 MiB", 0, 10 << 20, 6 * time.Minute},
		{"18 MiB reaches the cap", 0, 18 << 20, 10 * time.Minute},
		{"300 MiB, where size·30 s overflowed", 0, 300 << 20, 10 * time.Minute},
		{"1 GiB is capped", 0, 1 << 30, 10 * time.Minute},
		{"the largest size", 0, 1<<63 - 1, 10 * time.Minute},
		{"given", 3 * time.Second, 1 << 30, 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fileTimeout(tt.given, tt.size); got != tt.want {
				t.Errorf("fileTimeout(%v, %d) = %v, want %v", tt.given, tt.size, got, tt.want)
			}
		})
	}
}
