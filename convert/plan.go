package convert

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"calq/convert/sniff"
)

// Item is one input and where its PDF goes.
type Item struct {
	Input  string // the file, as found: absolute, through symlinks, not resolved; bytes as they are
	Rel    string // its path below the root it was found under, slash-separated; with several inputs, under the root's name
	Output string // the PDF's path (absolute); "" for a Fail item
	Fail   string // non-empty: the input fails at once with this reason, without a conversion
}

// Skip is an entry found while walking that is not converted: a FIFO,
// socket or device, a file of a type calq does not convert, a symlink
// loop, a dangling symlink.
type Skip struct {
	Path   string
	Kind   string // "fifo", "socket", "device", "unsupported", "loop", "broken-link"
	Reason string
}

// Planned is what PlanFiles found.
type Planned struct {
	Items   []Item
	Skipped []Skip
	Hidden  int      // hidden files and directories passed over (a directory counts once)
	Empty   []string // inputs, as given, that held nothing to convert
}

// PlanOptions says what to plan.
type PlanOptions struct {
	Inputs           []string
	Out              string
	Include, Exclude []string // see filter
	// Remembered, when set, returns the output an earlier run gave to an
	// input (by its absolute path as walked), so that a name once given
	// stays.
	Remembered func(input string) (output string, ok bool)
}

// PlanFiles finds the files under the inputs and names each one's PDF
// under Out, mirroring the tree below each root.
//
// Directories are walked with find -L semantics: symlinks are followed,
// each real file is planned once, and a directory that is its own
// ancestor is a loop, skipped. Hidden entries are counted, not taken;
// FIFOs, sockets, devices and unsupported types found while walking are
// Skipped; named on the command line they are Items that fail. A missing
// input or an unreadable directory is an Item that fails, so the rest
// goes on. Nothing is ever opened here: FIFOs cannot block.
//
// Names are deterministic: a file whose stem is shared with another in
// the same directory (report.docx and report.xlsx) keeps its extension
// in the PDF's name (report.docx.pdf, report.xlsx.pdf), a name shared
// across inputs is numbered, and a name Remembered keeps its PDF. The
// order is that of the inputs, then of the walk (lexical). Out itself,
// inside an input directory, is skipped.
func PlanFiles(o PlanOptions) (Planned, error) {
	f, err := newFilter(o.Include, o.Exclude)
	if err != nil {
		return Planned{}, err
	}
	out, err := filepath.Abs(o.Out)
	if err != nil {
		return Planned{}, fmt.Errorf("output directory %s: %w", o.Out, err)
	}
	w := &walker{out: out, filter: f, seen: map[fileID]bool{}, prefixed: len(o.Inputs) > 1}
	for _, in := range o.Inputs {
		before, skipped := len(w.p.Items), len(w.p.Skipped)
		if err := w.input(in); err != nil {
			return Planned{}, err
		}
		if len(w.p.Items) == before {
			w.p.Empty = append(w.p.Empty, in)
		}
		_ = skipped
	}
	name(w.p.Items, out, o.Remembered)
	for i, it := range w.p.Items {
		if it.Fail == "" && it.Output == it.Input {
			w.p.Items[i] = Item{Input: it.Input, Rel: it.Rel, Fail: "its PDF would overwrite it; choose another --out"}
		}
	}
	return w.p, nil
}

// Plan is PlanFiles with only the items, for callers that want no more.
func Plan(inputs []string, out string, include, exclude []string) ([]Item, error) {
	p, err := PlanFiles(PlanOptions{Inputs: inputs, Out: out, Include: include, Exclude: exclude})
	return p.Items, err
}

// fileID is a real file: its device and inode.
type fileID struct{ dev, ino uint64 }

func idOf(fi os.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, true
}

type walker struct {
	out      string
	filter   filter
	prefixed bool // several inputs: each tree goes under its root's name
	seen     map[fileID]bool
	p        Planned
}

// input plans one input named on the command line.
func (w *walker) input(in string) error {
	abs, err := filepath.Abs(in)
	if err != nil {
		return fmt.Errorf("input %s: %w", in, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		w.fail(abs, filepath.Base(abs), statFailure(abs, err))
		return nil
	}
	if !fi.IsDir() {
		w.named(abs, fi)
		return nil
	}
	if abs == w.out {
		return fmt.Errorf("input %s is the output directory; choose another --out", in)
	}
	root := ""
	if w.prefixed {
		root = filepath.Base(abs)
	}
	id, _ := idOf(fi)
	w.dir(abs, "", root, map[fileID]bool{id: true})
	return nil
}

// named plans a file named on the command line: taken whatever the
// globs say, failing at once when it cannot be converted.
func (w *walker) named(abs string, fi os.FileInfo) {
	rel := filepath.Base(abs)
	switch {
	case !fi.Mode().IsRegular():
		w.fail(abs, rel, fmt.Sprintf("%s, not a regular file", modeKind(fi.Mode())))
	case !supported(abs):
		w.fail(abs, rel, unsupportedReason(abs))
	case w.once(fi):
		w.p.Items = append(w.p.Items, Item{Input: abs, Rel: rel})
	}
}

func (w *walker) fail(abs, rel, reason string) {
	w.p.Items = append(w.p.Items, Item{Input: abs, Rel: rel, Fail: reason})
}

// once says whether fi is a real file not planned yet, and marks it.
func (w *walker) once(fi os.FileInfo) bool {
	id, ok := idOf(fi)
	if !ok {
		return true
	}
	if w.seen[id] {
		return false
	}
	w.seen[id] = true
	return true
}

// dir walks a directory: rel is its path below the root (filters match
// it), root the prefix of output names.
func (w *walker) dir(dir, rel, root string, ancestors map[fileID]bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		w.fail(dir, path.Join(root, rel), "cannot read the directory: "+unwrapPath(err).Error())
		return
	}
	for _, e := range entries {
		w.entry(filepath.Join(dir, e.Name()), path.Join(rel, e.Name()), root, ancestors)
	}
}

// entry plans one entry found while walking.
func (w *walker) entry(p, rel, root string, ancestors map[fileID]bool) {
	if strings.HasPrefix(path.Base(rel), ".") {
		w.p.Hidden++
		return
	}
	fi, err := os.Stat(p)
	if err != nil {
		if lfi, lerr := os.Lstat(p); lerr == nil && lfi.Mode()&os.ModeSymlink != 0 && errors.Is(err, os.ErrNotExist) {
			w.skip(p, "broken-link", "a dangling symbolic link")
		} else {
			w.fail(p, path.Join(root, rel), "cannot read it: "+unwrapPath(err).Error())
		}
		return
	}
	switch mode := fi.Mode(); {
	case fi.IsDir():
		w.subdir(p, rel, root, fi, ancestors)
	case !w.filter.selected(rel):
	case mode.IsRegular() && !supported(p):
		w.skip(p, "unsupported", unsupportedReason(p))
	case mode.IsRegular():
		if w.once(fi) {
			w.p.Items = append(w.p.Items, Item{Input: p, Rel: path.Join(root, rel)})
		}
	default:
		w.skip(p, specialKind(mode), modeKind(mode))
	}
}

// subdir walks into a directory found while walking, unless it is the
// output directory, a loop, or excluded whole.
func (w *walker) subdir(p, rel, root string, fi os.FileInfo, ancestors map[fileID]bool) {
	if p == w.out || (len(w.filter.exclude) > 0 && matchAny(w.filter.exclude, rel)) {
		return
	}
	id, ok := idOf(fi)
	if ok && ancestors[id] {
		w.skip(p, "loop", "a symbolic link loop: the directory is inside itself")
		return
	}
	if ok {
		ancestors[id] = true
		defer delete(ancestors, id)
	}
	w.dir(p, rel, root, ancestors)
}

func (w *walker) skip(p, kind, reason string) {
	w.p.Skipped = append(w.p.Skipped, Skip{Path: p, Kind: kind, Reason: reason})
}

func specialKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "fifo"
	case m&os.ModeSocket != 0:
		return "socket"
	}
	return "device"
}

// statFailure is the reason for an input named on the command line that
// cannot be looked at.
func statFailure(abs string, err error) string {
	if lfi, lerr := os.Lstat(abs); lerr == nil && lfi.Mode()&os.ModeSymlink != 0 {
		return "a dangling symbolic link"
	}
	return unwrapPath(err).Error()
}

var supportedExts = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, e := range sniff.Supported() {
		m[e] = true
	}
	return m
})

// supported says whether calq converts files named like p.
func supported(p string) bool { return supportedExts()[lowerExt(p)] }

func unsupportedReason(p string) string {
	if ext := filepath.Ext(p); ext != "" {
		return "unsupported file type " + ext
	}
	return "unsupported file type (no extension)"
}

// name sets each item's Output: a name Remembered for it, else
// out/dir/stem.pdf, or out/dir/name.pdf where two items would otherwise
// share a PDF; still shared (two inputs of one name from different
// places), numbered in input order.
func name(items []Item, out string, remembered func(string) (string, bool)) {
	stem := func(rel string) string {
		return strings.TrimSuffix(rel, path.Ext(rel)) + ".pdf"
	}
	count := map[string]int{}
	taken := map[string]bool{}
	for i, it := range items {
		if it.Fail != "" {
			continue
		}
		count[strings.ToLower(stem(it.Rel))]++
		if remembered == nil {
			continue
		}
		if o, ok := remembered(it.Input); ok && filepath.Dir(o) == filepath.Join(out, filepath.FromSlash(path.Dir(it.Rel))) && !taken[strings.ToLower(o)] {
			items[i].Output = o
			taken[strings.ToLower(o)] = true
		}
	}
	for i, it := range items {
		if it.Fail != "" || it.Output != "" {
			continue
		}
		rel := stem(it.Rel)
		if count[strings.ToLower(rel)] > 1 || taken[strings.ToLower(filepath.Join(out, filepath.FromSlash(rel)))] {
			rel = it.Rel + ".pdf"
		}
		base := strings.TrimSuffix(rel, ".pdf")
		for n := 2; taken[strings.ToLower(filepath.Join(out, filepath.FromSlash(rel)))]; n++ {
			rel = fmt.Sprintf("%s (%d).pdf", base, n)
		}
		items[i].Output = filepath.Join(out, filepath.FromSlash(rel))
		taken[strings.ToLower(items[i].Output)] = true
	}
}
