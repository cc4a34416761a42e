package form

import (
	"sort"
	"strings"
)

// sortFiles orders files by Name as Gotenberg orders its inputs, which is
// the merge order its clients rely on: names with a number come first; two
// leading numbers compare as numbers ("2 b.pdf" before "10 a.pdf"); two
// numbers at the end of the stem ("scan_2.pdf", "scan_10.pdf") compare after
// the rest of the name; other names compare byte by byte. Equal names keep
// their upload order.
func sortFiles(files []File) {
	keys := make([]nameKey, len(files))
	for i, f := range files {
		keys[i] = keyOf(f.Name)
	}
	idx := make([]int, len(files))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]].less(keys[idx[b]]) })
	sorted := make([]File, len(files))
	for i, j := range idx {
		sorted[i] = files[j]
	}
	copy(files, sorted)
}

// Where a name's number is, if it has one.
const (
	noNumber = iota
	leading
	trailing // at the end of the stem, or of a name without extension
)

// nameKey is a name split into its number (decimal digits, leading zeros
// dropped) and the rest.
type nameKey struct {
	name, num, rest string
	at              int
}

func keyOf(name string) nameKey {
	if d := digitsPrefix(name); d > 0 {
		return nameKey{name: name, num: trimZeros(name[:d]), rest: name[d:], at: leading}
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 && i+1 < len(name) {
		stem, ext := name[:i], name[i:]
		if d := digitsSuffix(stem); d > 0 {
			return nameKey{name: name, num: trimZeros(stem[len(stem)-d:]), rest: stem[:len(stem)-d] + ext, at: trailing}
		}
	}
	if d := digitsSuffix(name); d > 0 {
		return nameKey{name: name, num: trimZeros(name[len(name)-d:]), rest: name[:len(name)-d], at: trailing}
	}
	return nameKey{name: name, rest: name, at: noNumber}
}

func (a nameKey) less(b nameKey) bool {
	switch {
	case a.at == noNumber && b.at == noNumber:
		return a.name < b.name
	case a.at == noNumber:
		return false
	case b.at == noNumber:
		return true
	case a.at == leading && b.at == leading:
		if c := cmpNum(a.num, b.num); c != 0 {
			return c < 0
		}
		return a.rest < b.rest
	case a.rest != b.rest:
		return a.rest < b.rest
	case a.at != b.at:
		return a.at == leading
	}
	if c := cmpNum(a.num, b.num); c != 0 {
		return c < 0
	}
	return a.name < b.name
}

// cmpNum compares two decimal numbers without leading zeros, of any length.
func cmpNum(a, b string) int {
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

func trimZeros(s string) string {
	t := strings.TrimLeft(s, "0")
	if t == "" {
		return "0"
	}
	return t
}

func digitsPrefix(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

func digitsSuffix(s string) int {
	n := 0
	for n < len(s) && s[len(s)-1-n] >= '0' && s[len(s)-1-n] <= '9' {
		n++
	}
	return n
}
