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
	Real   string // the file with every symlink resolved: what identifies the input a PDF belongs to
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
	Items      []Item
	Skipped    []Skip
	Hidden     int         // hidden files and directories passed over (a directory counts once)
	Empty      []string    // inputs, as given, that held nothing to convert
	Duplicates []Duplicate // inputs given more than once, taken once
	Roots      []string    // the real paths of the inputs not inside another: what a merge is of
}

// PlanOptions says what to plan.
type PlanOptions struct {
	Inputs           []string
	Out              string
	Include, Exclude []string // see filter
	Merge            string   // the --merge target: never an input, passed over when walking
	URLs             []string // web pages to archive (see urlItems), after the files
	// Remembered, when set, returns the output an earlier run gave to an
	// input (by its real path, else its absolute path as walked), so
	// that a name once given stays.
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
// An input is identified by its real path. One given twice (./a.docx
// and a.docx, a symlink to a file also given, a directory twice) or
// lying inside a directory also given (dir and dir/sub) is taken once,
// as part of the outermost, and listed in Duplicates; it neither counts
// as a root of its own nor moves the others' PDFs under their roots'
// names. A file inside a given directory that its walk passes over
// (hidden, excluded) is still taken, at its place in that tree.
//
// Names are deterministic: a file whose stem is shared with another in
// the same directory (report.docx and report.xlsx) keeps its extension
// in the PDF's name (report.docx.pdf, report.xlsx.pdf), a name shared
// across inputs is numbered, and a name Remembered keeps its PDF. The
// order is that of the inputs, then of the walk (lexical). Out itself
// and the Merge target, inside an input directory, are passed over; a
// PDF that would land on an input fails. An input that is Out, or the
// Merge target, is an error wrapping ErrUsage.
func PlanFiles(o PlanOptions) (Planned, error) {
	f, err := newFilter(o.Include, o.Exclude)
	if err != nil {
		return Planned{}, err
	}
	out, err := filepath.Abs(o.Out)
	if err != nil {
		return Planned{}, fmt.Errorf("output directory %s: %w", o.Out, err)
	}
	ins, err := resolveInputs(o.Inputs)
	if err != nil {
		return Planned{}, err
	}
	w := &walker{out: out, filter: f, seen: map[fileID]int{}, walked: map[fileID]int{}, ins: ins}
	w.outFI, _ = os.Stat(out)
	if o.Merge != "" {
		if w.merge, err = filepath.Abs(o.Merge); err != nil {
			return Planned{}, fmt.Errorf("--merge %s: %w", o.Merge, err)
		}
		w.mergeFI, _ = os.Stat(w.merge)
	}
	for i, g := range ins {
		if g.dup < 0 && g.root == i {
			w.p.Roots = append(w.p.Roots, g.real)
		}
	}
	w.prefixed = len(w.p.Roots) > 1
	// Roots first, so that what lies inside them is found as part of
	// them; then the inputs inside.
	for _, pass := range []bool{true, false} {
		for i, g := range ins {
			if g.dup >= 0 || (g.root == i) != pass {
				continue
			}
			if err := w.plan(i); err != nil {
				return Planned{}, err
			}
		}
	}
	for _, g := range ins {
		if g.dup >= 0 {
			w.p.Duplicates = append(w.p.Duplicates, Duplicate{Input: g.name, Of: ins[g.dup].name, Same: true})
		}
	}
	items, dups := urlItems(o.URLs)
	w.p.Items, w.p.Duplicates = append(w.p.Items, items...), append(w.p.Duplicates, dups...)
	name(w.p.Items, out, o.Remembered)
	w.overInputs()
	return w.p, nil
}

// plan plans input i, noting it as empty or as a duplicate when it adds
// nothing.
func (w *walker) plan(i int) error {
	before := len(w.p.Items)
	of, err := w.input(i)
	if err != nil {
		return err
	}
	switch {
	case of >= 0:
		w.p.Duplicates = append(w.p.Duplicates, Duplicate{Input: w.ins[i].name, Of: w.ins[of].name})
	case len(w.p.Items) == before:
		w.p.Empty = append(w.p.Empty, w.ins[i].name)
	}
	return nil
}

// overInputs fails the items whose PDF would land on an input: on its
// own (-o D D/a.pdf) or another's.
func (w *walker) overInputs() {
	inputs := map[string]string{}
	for _, it := range w.p.Items {
		inputs[it.Real] = it.Input
	}
	dirs := map[string]string{}
	for i, it := range w.p.Items {
		if it.Fail != "" {
			continue
		}
		in, ok := inputs[realOutput(it.Output, dirs)]
		switch {
		case !ok:
		case in == it.Input:
			w.p.Items[i] = Item{Input: it.Input, Real: it.Real, Rel: it.Rel, Fail: "its PDF would overwrite it; choose another --out"}
		default:
			w.p.Items[i] = Item{Input: it.Input, Real: it.Real, Rel: it.Rel, Fail: "its PDF would overwrite the input " + in + "; choose another --out"}
		}
	}
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
	outFI    os.FileInfo // nil: Out does not exist yet
	merge    string      // the --merge target, absolute; "" for none
	mergeFI  os.FileInfo
	filter   filter
	prefixed bool // several roots: each tree goes under its root's name
	ins      []*given
	cur      int            // the input being planned
	seen     map[fileID]int // real files planned, by the input that planned them
	walked   map[fileID]int // directories walked into, by the input that walked them
	p        Planned
}

// input plans input i. It returns the input that already holds it, or
// -1: a file planned before, a directory walked before.
func (w *walker) input(i int) (int, error) {
	g := w.ins[i]
	w.cur = i
	if g.err != nil {
		w.fail(g.abs, g.real, filepath.Base(g.abs), statFailure(g.abs, g.err))
		return -1, nil
	}
	root := ""
	if w.prefixed {
		root = filepath.Base(w.ins[g.root].abs)
	}
	if g.below != "" {
		root = path.Join(root, g.below)
	}
	switch {
	case w.merge != "" && (g.abs == w.merge || sameFile(g.fi, w.mergeFI)):
		return -1, usagef("input %s is the --merge target; choose another --merge", g.name)
	case !g.fi.IsDir():
		if g.below == "" {
			root = filepath.Base(g.abs)
		}
		return w.named(g, root), nil
	case g.abs == w.out || sameFile(g.fi, w.outFI):
		return -1, usagef("input %s is the output directory; choose another --out", g.name)
	}
	id, _ := idOf(g.fi)
	if by, ok := w.walked[id]; ok {
		return by, nil
	}
	w.walked[id] = i
	w.dir(g.abs, g.real, "", root, map[fileID]bool{id: true})
	return -1, nil
}

// named plans a file named on the command line, as rel: taken whatever
// the globs say, failing at once when it cannot be converted. It returns
// the input that planned the file already, or -1.
func (w *walker) named(g *given, rel string) int {
	switch {
	case !g.fi.Mode().IsRegular():
		w.fail(g.abs, g.real, rel, fmt.Sprintf("%s, not a regular file", modeKind(g.fi.Mode())))
	case !supported(g.abs):
		w.fail(g.abs, g.real, rel, unsupportedReason(g.abs))
	default:
		if by, ok := w.once(g.fi); !ok {
			return by
		}
		w.p.Items = append(w.p.Items, Item{Input: g.abs, Real: g.real, Rel: rel})
	}
	return -1
}

func (w *walker) fail(abs, real, rel, reason string) {
	w.p.Items = append(w.p.Items, Item{Input: abs, Real: real, Rel: rel, Fail: reason})
}

// once says whether fi is a real file not planned yet, and marks it as
// the current input's; else it returns the input that planned it.
func (w *walker) once(fi os.FileInfo) (int, bool) {
	id, ok := idOf(fi)
	if !ok {
		return -1, true
	}
	if by, seen := w.seen[id]; seen {
		return by, false
	}
	w.seen[id] = w.cur
	return -1, true
}

// dir walks a directory (real: its real path): rel is its path below
// the root (filters match it), root the prefix of output names.
func (w *walker) dir(dir, real, rel, root string, ancestors map[fileID]bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		w.fail(dir, real, path.Join(root, rel), "cannot read the directory: "+unwrapPath(err).Error())
		return
	}
	for _, e := range entries {
		p, rp := filepath.Join(dir, e.Name()), filepath.Join(real, e.Name())
		if e.Type()&os.ModeSymlink != 0 {
			rp = realPath(p)
		}
		w.entry(p, rp, path.Join(rel, e.Name()), root, ancestors)
	}
}

// entry plans one entry found while walking (real: its real path).
func (w *walker) entry(p, real, rel, root string, ancestors map[fileID]bool) {
	if strings.HasPrefix(path.Base(rel), ".") {
		w.p.Hidden++
		return
	}
	fi, err := os.Stat(p)
	if err != nil {
		if lfi, lerr := os.Lstat(p); lerr == nil && lfi.Mode()&os.ModeSymlink != 0 && errors.Is(err, os.ErrNotExist) {
			w.skip(p, "broken-link", "a dangling symbolic link")
		} else {
			w.fail(p, real, path.Join(root, rel), readFailure(err))
		}
		return
	}
	switch mode := fi.Mode(); {
	case fi.IsDir():
		w.subdir(p, real, rel, root, fi, ancestors)
	case p == w.merge || sameFile(fi, w.mergeFI):
		// The merged PDF is an output, not an input.
	case !w.filter.selected(rel):
	case mode.IsRegular() && !supported(p):
		w.skip(p, "unsupported", unsupportedReason(p))
	case mode.IsRegular():
		if _, ok := w.once(fi); ok {
			w.p.Items = append(w.p.Items, Item{Input: p, Real: real, Rel: path.Join(root, rel)})
		}
	default:
		w.skip(p, specialKind(mode), modeKind(mode))
	}
}

// subdir walks into a directory found while walking, unless it is the
// output directory (by any path), a loop, or excluded whole.
func (w *walker) subdir(p, real, rel, root string, fi os.FileInfo, ancestors map[fileID]bool) {
	if p == w.out || sameFile(fi, w.outFI) || (len(w.filter.exclude) > 0 && matchAny(w.filter.exclude, rel)) {
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
		if _, walked := w.walked[id]; !walked {
			w.walked[id] = w.cur
		}
	}
	w.dir(p, real, rel, root, ancestors)
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
	m[".md"] = true // Markdown: rendered to a page (see runner.page)
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
		o, ok := remembered(it.Real)
		if !ok {
			o, ok = remembered(it.Input)
		}
		if ok && filepath.Dir(o) == filepath.Join(out, filepath.FromSlash(path.Dir(it.Rel))) && !taken[strings.ToLower(o)] {
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
