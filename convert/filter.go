package convert

import (
	"fmt"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// filter is --include and --exclude: doublestar globs on a file's path
// below its input root.
//
//   - A glob matches the whole relative path ("drafts/*", "2024/**/*.xlsx").
//   - A glob without '/' also matches the base name at any depth ("*.docx").
//   - A glob that matches a directory on the way takes its whole subtree
//     ("drafts", "a/drafts").
//   - Extensions match whatever their case ("*.png" takes "UP.PNG"); the
//     rest is case-sensitive.
type filter struct {
	include, exclude []string
}

// CheckGlob says what is wrong with a --include or --exclude glob.
func CheckGlob(g string) error {
	if !doublestar.ValidatePattern(g) {
		return fmt.Errorf("glob %q: bad pattern", g)
	}
	return nil
}

func newFilter(include, exclude []string) (filter, error) {
	for _, g := range append(append([]string{}, include...), exclude...) {
		if err := CheckGlob(g); err != nil {
			return filter{}, err
		}
	}
	return filter{include: include, exclude: exclude}, nil
}

// selected says whether the file at rel (slash-separated, below its root)
// passes: some include (if any) and no exclude matches it.
func (f filter) selected(rel string) bool {
	return (len(f.include) == 0 || matchAny(f.include, rel)) && !matchAny(f.exclude, rel)
}

func matchAny(globs []string, rel string) bool {
	for _, g := range globs {
		if matchPath(strings.TrimSuffix(g, "/"), rel) {
			return true
		}
	}
	return false
}

// matchPath matches g against rel and each directory above it; a glob
// without '/' also against each element alone.
func matchPath(g, rel string) bool {
	for p := rel; p != "." && p != ""; p = path.Dir(p) {
		if match(g, p) || (!strings.Contains(g, "/") && match(g, path.Base(p))) {
			return true
		}
	}
	return false
}

// match is doublestar's, once as written and once with both extensions
// in lower case.
func match(g, name string) bool {
	if ok, _ := doublestar.Match(g, name); ok {
		return true
	}
	lg, ln := lowerExtOf(g), lowerExtOf(name)
	if lg == g && ln == name {
		return false
	}
	ok, _ := doublestar.Match(lg, ln)
	return ok
}

// lowerExtOf lowers the extension of a path's last element.
func lowerExtOf(p string) string {
	base := p[strings.LastIndex(p, "/")+1:]
	i := strings.LastIndex(base, ".")
	if i <= 0 {
		return p
	}
	cut := len(p) - len(base) + i
	return p[:cut] + strings.ToLower(p[cut:])
}
