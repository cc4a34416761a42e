package convert

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrUsage marks a run refused before any work because what it was asked
// is contradictory: an input that is the output directory, a --merge
// target that is an input or one of the PDFs.
var ErrUsage = errors.New("usage error")

// usageError is an error that is ErrUsage without saying so in its
// message.
type usageError struct{ err error }

func (e *usageError) Error() string        { return e.err.Error() }
func (e *usageError) Unwrap() error        { return e.err }
func (e *usageError) Is(target error) bool { return target == ErrUsage }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// Duplicate is an input given more than once: the same file or
// directory under another name (./a.docx and a.docx, a symlink to it),
// or a path inside a directory also given. It is taken once.
type Duplicate struct {
	Input string `json:"input"` // as given
	Of    string `json:"of"`    // the input, as given, that already holds it
	Same  bool   `json:"same"`  // the same file or directory; else inside Of or reached through it
}

// given is an input named on the command line, resolved.
type given struct {
	name string // as given
	abs  string
	real string // symlinks resolved: what identifies it; abs when it cannot be resolved
	fi   os.FileInfo
	err  error // from stat
	dup  int   // index of an earlier input that is the same file, or -1
	root int   // index of the directory input whose tree holds it; itself when none
	// below is its path below root's real path, slash-separated; "" for a root.
	below string
}

// resolveInputs resolves the inputs and finds which repeat an earlier
// one and which lie inside a directory also given.
func resolveInputs(names []string) ([]*given, error) {
	ins := make([]*given, len(names))
	for i, n := range names {
		abs, err := filepath.Abs(n)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", n, err)
		}
		g := &given{name: n, abs: abs, real: realPath(abs), dup: -1, root: i}
		g.fi, g.err = os.Stat(abs)
		for j := range i {
			if ins[j].dup < 0 && ins[j].real == g.real {
				g.dup = j
				break
			}
		}
		ins[i] = g
	}
	for i, g := range ins {
		if g.dup >= 0 {
			continue
		}
		// The outermost directory that holds it.
		for j, d := range ins {
			if j == i || d.dup >= 0 || d.err != nil || !d.fi.IsDir() {
				continue
			}
			if rel, ok := below(d.real, g.real); ok && (g.root == i || len(d.real) < len(ins[g.root].real)) {
				g.root, g.below = j, rel
			}
		}
	}
	return ins, nil
}

// realPath is p with every symlink resolved, or p itself when that fails
// (p is missing, or a dangling link).
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// realOutput is where a PDF named p would land: its directory resolved
// (cached in dirs), its name as it is.
func realOutput(p string, dirs map[string]string) string {
	dir := filepath.Dir(p)
	r, ok := dirs[dir]
	if !ok {
		r = realPath(dir)
		dirs[dir] = r
	}
	return filepath.Join(r, filepath.Base(p))
}

// below says whether p lies strictly inside the directory dir (both
// clean and absolute), and returns its slash-separated path below it.
func below(dir, p string) (string, bool) {
	prefix := dir + string(filepath.Separator)
	if dir == string(filepath.Separator) {
		prefix = dir
	}
	if p == dir || !strings.HasPrefix(p, prefix) {
		return "", false
	}
	return filepath.ToSlash(p[len(prefix):]), true
}

// sameFile says whether a and b are one file, by device and inode.
func sameFile(a, b os.FileInfo) bool {
	return a != nil && b != nil && os.SameFile(a, b)
}
