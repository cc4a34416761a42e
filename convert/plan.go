package convert

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Item is one input file and where its PDF goes.
type Item struct {
	Input  string // the file, as found (absolute)
	Rel    string // its path below the root it was found under, slash-separated
	Output string // the PDF's path (absolute)
}

// Plan finds the files under inputs (files, or directories walked
// recursively), keeps those that match include and none of exclude
// (globs on the base name or on the path below the root, path.Match
// syntax), and names each one's PDF under out, mirroring the tree below
// each root. Names are deterministic: a file whose stem is shared with
// another in the same directory (report.docx and report.xlsx) keeps its
// extension in the PDF's name (report.docx.pdf, report.xlsx.pdf); every
// other file gets stem.pdf. The order is that of the inputs, then of the
// walk (lexical). Out itself, when inside an input directory, is skipped.
func Plan(inputs []string, out string, include, exclude []string) ([]Item, error) {
	for _, g := range append(slices.Clone(include), exclude...) {
		if _, err := path.Match(g, ""); err != nil {
			return nil, fmt.Errorf("glob %q: %w", g, err)
		}
	}
	outAbs, err := filepath.Abs(out)
	if err != nil {
		return nil, fmt.Errorf("output directory %s: %w", out, err)
	}
	var items []Item
	seen := map[string]bool{}
	for _, in := range inputs {
		// With several inputs, each directory's tree goes under its own
		// name, so that two trees do not mix.
		found, err := walk(in, outAbs, include, exclude, len(inputs) > 1)
		if err != nil {
			return nil, err
		}
		for _, it := range found {
			if !seen[it.Input] {
				seen[it.Input] = true
				items = append(items, it)
			}
		}
	}
	name(items, outAbs)
	for _, it := range items {
		if it.Output == it.Input {
			return nil, fmt.Errorf("%s: its PDF would overwrite it; choose another --out", it.Input)
		}
	}
	return items, nil
}

// walk lists the files of one input: the file itself (Rel its base name),
// or a directory's files below it.
func walk(in, outAbs string, include, exclude []string, prefixed bool) ([]Item, error) {
	abs, err := filepath.Abs(in)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", in, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", in, errors.Unwrap(err))
	}
	if !fi.IsDir() {
		// A file named on the command line is always taken: the globs
		// select within directories.
		return []Item{{Input: abs, Rel: filepath.Base(abs)}}, nil
	}
	if abs == outAbs {
		return nil, fmt.Errorf("input %s is the output directory; choose another --out", in)
	}
	var items []Item
	err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("walk %s: %w", p, err)
		}
		if d.IsDir() {
			if p == outAbs || (p != abs && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		rel, _ := filepath.Rel(abs, p)
		if prefixed {
			rel = filepath.Join(filepath.Base(abs), rel)
		}
		rel = filepath.ToSlash(rel)
		if selected(rel, include, exclude) {
			items = append(items, Item{Input: p, Rel: rel})
		}
		return nil
	})
	return items, err
}

// selected says whether rel passes the globs: some include (if any) and
// no exclude matches its base name or the whole relative path.
func selected(rel string, include, exclude []string) bool {
	match := func(globs []string) bool {
		for _, g := range globs {
			if ok, _ := path.Match(g, path.Base(rel)); ok {
				return true
			}
			if ok, _ := path.Match(g, rel); ok {
				return true
			}
		}
		return false
	}
	return (len(include) == 0 || match(include)) && !match(exclude)
}

// name sets each item's Output: out/dir/stem.pdf, or out/dir/name.pdf
// where two items would otherwise share a PDF.
func name(items []Item, out string) {
	stem := func(rel string) string {
		return strings.TrimSuffix(rel, path.Ext(rel)) + ".pdf"
	}
	count := map[string]int{}
	for _, it := range items {
		count[strings.ToLower(stem(it.Rel))]++
	}
	taken := map[string]int{}
	for i := range items {
		rel := stem(items[i].Rel)
		if count[strings.ToLower(rel)] > 1 {
			rel = items[i].Rel + ".pdf"
		}
		// Still shared (two inputs of one name from different places):
		// number them in input order.
		key := strings.ToLower(rel)
		if n := taken[key]; n > 0 {
			rel = fmt.Sprintf("%s (%d).pdf", strings.TrimSuffix(rel, ".pdf"), n+1)
		}
		taken[key]++
		items[i].Output = filepath.Join(out, filepath.FromSlash(rel))
	}
}
