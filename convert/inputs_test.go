package convert

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPlanInputsOnce: an input reached twice, under whatever path, is
// planned once, is listed as a duplicate of the input that holds it, and
// does not move the other PDFs under their roots' names.
func TestPlanInputsOnce(t *testing.T) {
	tests := []struct {
		name    string
		inputs  []string // below the tree; "@x" is the tree's symlink x
		exclude []string
		want    []string // rel -> output below out
		dups    []string // input -> of (same)
	}{
		{"a file twice", []string{"d/a.png", "d/a.png"}, nil,
			[]string{"a.png -> a.pdf"}, []string{"d/a.png -> d/a.png (same)"}},
		{"./a and a", []string{"d/a.png", "./d/a.png"}, nil,
			[]string{"a.png -> a.pdf"}, []string{"./d/a.png -> d/a.png (same)"}},
		{"a symlink to a file also given", []string{"d/a.png", "@alink.png"}, nil,
			[]string{"a.png -> a.pdf"}, []string{"alink.png -> d/a.png (same)"}},
		{"a directory twice", []string{"d", "d"}, nil,
			[]string{"a.png -> a.pdf", "sub/b.png -> sub/b.pdf"}, []string{"d -> d (same)"}},
		{"a symlink to a directory also given", []string{"@dlink", "d"}, nil,
			[]string{"a.png -> a.pdf", "sub/b.png -> sub/b.pdf"}, []string{"d -> dlink (same)"}},
		{"dir and dir/sub", []string{"d", "d/sub"}, nil,
			[]string{"a.png -> a.pdf", "sub/b.png -> sub/b.pdf"}, []string{"d/sub -> d"}},
		{"dir/sub before dir", []string{"d/sub", "d"}, nil,
			[]string{"a.png -> a.pdf", "sub/b.png -> sub/b.pdf"}, []string{"d/sub -> d"}},
		{"a file inside a directory also given", []string{"d", "d/sub/b.png"}, nil,
			[]string{"a.png -> a.pdf", "sub/b.png -> sub/b.pdf"}, []string{"d/sub/b.png -> d"}},
		{"a symlink into a directory also given", []string{"@alink.png", "d"}, nil,
			[]string{"a.png -> a.pdf", "sub/b.png -> sub/b.pdf"}, []string{"alink.png -> d"}},
		{"an excluded file named too keeps its place", []string{"d", "d/sub/b.png"}, []string{"sub"},
			[]string{"a.png -> a.pdf", "sub/b.png -> sub/b.pdf"}, nil},
		{"two roots keep their names", []string{"d", "e", "d/sub"}, nil,
			[]string{"d/a.png -> d/a.pdf", "d/sub/b.png -> d/sub/b.pdf", "e/c.png -> e/c.pdf"}, []string{"d/sub -> d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tree(t, "d/a.png", "d/sub/b.png", "e/c.png")
			if err := os.Symlink("d/a.png", filepath.Join(dir, "alink.png")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("d", filepath.Join(dir, "dlink")); err != nil {
				t.Fatal(err)
			}
			t.Chdir(dir)
			var inputs []string
			for _, in := range tt.inputs {
				inputs = append(inputs, strings.TrimPrefix(in, "@"))
			}
			out := filepath.Join(t.TempDir(), "out")
			p, err := PlanFiles(PlanOptions{Inputs: inputs, Out: out, Exclude: tt.exclude})
			if err != nil {
				t.Fatal(err)
			}
			if got := rels(p.Items, out); !slices.Equal(got, tt.want) {
				t.Errorf("items %q, want %q", got, tt.want)
			}
			var dups []string
			for _, d := range p.Duplicates {
				s := d.Input + " -> " + d.Of
				if d.Same {
					s += " (same)"
				}
				dups = append(dups, s)
			}
			if !slices.Equal(dups, tt.dups) {
				t.Errorf("duplicates %q, want %q", dups, tt.dups)
			}
			if len(p.Empty) > 0 {
				t.Errorf("empty %q, want none: a duplicate is not empty", p.Empty)
			}
		})
	}
}

// TestPlanRealPaths: each item carries its input's real path, the
// identity its PDF's record keeps, whichever path reached it.
func TestPlanRealPaths(t *testing.T) {
	dir := tree(t, "d/a.png")
	if err := os.Symlink("d", filepath.Join(dir, "dlink")); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(dir, "d", "a.png"))
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"d", "dlink", "d/a.png", "dlink/a.png"} {
		items, err := Plan([]string{filepath.Join(dir, in)}, t.TempDir(), nil, nil)
		if err != nil || len(items) != 1 || items[0].Real != real {
			t.Errorf("%s: %+v, %v; want one item whose real path is %s", in, items, err, real)
		}
	}
}

// TestPlanOutputsNeverInputs: the output directory and the --merge
// target are never walked as inputs, by whatever path; named as inputs
// they are usage errors.
func TestPlanOutputsNeverInputs(t *testing.T) {
	dir := tree(t, "in/a.png", "out/old.png", "in/all.pdf")
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	if err := os.Symlink(out, filepath.Join(in, "outlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(dir, "outlink")); err != nil {
		t.Fatal(err)
	}
	merge := filepath.Join(in, "all.pdf")
	p, err := PlanFiles(PlanOptions{Inputs: []string{in}, Out: out, Merge: merge})
	if got := rels(p.Items, out); err != nil || !slices.Equal(got, []string{"a.png -> a.pdf"}) {
		t.Errorf("walk: %q, %v; want only a.png (not out through a symlink, not the merge target)", got, err)
	}
	for _, tt := range []struct{ name, input, merge, want string }{
		{"the output directory through a symlink", filepath.Join(dir, "outlink"), "", "is the output directory"},
		{"the merge target", merge, merge, "is the --merge target"},
	} {
		_, err := PlanFiles(PlanOptions{Inputs: []string{tt.input}, Out: out, Merge: tt.merge})
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v; want a usage error saying %q", tt.name, err, tt.want)
		}
	}
}
