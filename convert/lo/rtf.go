package lo

import (
	"bytes"
	"strconv"
	"strings"
)

// LibreOffice's RTF import loads the image an INCLUDEPICTURE field names,
// a local file included, whatever the profile says (measured with 7.4:
// BlockUntrustedRefererLinks stops every other linked image, not this
// one). So before conversion the instructions of fields that include
// other files are blanked in a copy of the input; the field then shows
// its stored result, as Word does for a field it cannot update.

// includingFields are the field types that pull in another file.
var includingFields = map[string]bool{
	"INCLUDEPICTURE": true, "INCLUDETEXT": true, "INCLUDE": true, "IMPORT": true,
	"LINK": true, "DDE": true, "DDEAUTO": true,
}

// isRTF reports whether head, the start of a file, is RTF: LibreOffice
// detects RTF by content, whatever the extension.
func isRTF(head []byte) bool {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	return bytes.HasPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte(`{\rtf`))
}

// neutralizeRTF returns rtf with the instruction groups (\fldinst) of
// including fields emptied, and whether it changed anything.
func neutralizeRTF(rtf []byte) ([]byte, bool) {
	var (
		stack []int // offsets of the open groups' '{'
		inst  = map[int]bool{}
		cut   []span
	)
	for i := 0; i < len(rtf); i++ {
		switch rtf[i] {
		case '{':
			stack = append(stack, i)
		case '}':
			if len(stack) == 0 {
				continue
			}
			start := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if inst[start] && includingField(rtf[start:i+1]) {
				cut = append(cut, span{start, i + 1})
			}
		case '\\':
			word, param, next := controlWord(rtf, i)
			switch {
			case word == "fldinst" && len(stack) > 0:
				inst[stack[len(stack)-1]] = true
			case word == "bin" && param > 0:
				next += min(param, len(rtf)-next) // raw bytes, braces and all
			}
			i = next - 1
		}
	}
	// A group left open at the end of the file ends there.
	for _, start := range stack {
		if inst[start] && includingField(rtf[start:]) {
			cut = append(cut, span{start, len(rtf)})
			break
		}
	}
	if len(cut) == 0 {
		return rtf, false
	}
	// Groups close inner first: keep the outermost of nested cuts.
	var out bytes.Buffer
	last := 0
	for n, c := range cut {
		if c.start < last || containedLater(cut[n+1:], c) {
			continue
		}
		out.Write(rtf[last:c.start])
		out.WriteString(`{\*\fldinst }`)
		last = c.end
	}
	out.Write(rtf[last:])
	return out.Bytes(), true
}

// span is a byte range [start, end).
type span struct{ start, end int }

func containedLater(later []span, c span) bool {
	for _, o := range later {
		if o.start <= c.start && c.end <= o.end {
			return true
		}
	}
	return false
}

// controlWord reads the control word or symbol at rtf[i] == '\\' and
// returns its name ("'" for a hex escape, the symbol for others), its
// numeric parameter (the byte for a hex escape), and the offset after it
// and its delimiting space.
func controlWord(rtf []byte, i int) (word string, param, next int) {
	j := i + 1
	if j >= len(rtf) {
		return "", 0, j
	}
	c := rtf[j]
	if !isLetter(c) {
		if c == '\'' && j+2 < len(rtf) {
			v, err := strconv.ParseUint(string(rtf[j+1:j+3]), 16, 8)
			if err == nil {
				return "'", int(v), j + 3
			}
		}
		return string(c), 0, j + 1
	}
	for j < len(rtf) && isLetter(rtf[j]) {
		j++
	}
	word = string(rtf[i+1 : j])
	k := j
	if k < len(rtf) && rtf[k] == '-' {
		k++
	}
	for k < len(rtf) && rtf[k] >= '0' && rtf[k] <= '9' {
		k++
	}
	if k > j {
		param, _ = strconv.Atoi(string(rtf[j:k]))
		j = k
	}
	if j < len(rtf) && rtf[j] == ' ' {
		j++
	}
	return word, param, j
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// includingField reports whether the instruction group names an
// including field: its text, with groups and control words dropped and
// escapes decoded, starts with one of includingFields in any case.
func includingField(group []byte) bool {
	var text []byte
	skip := 0 // fallback characters after a \u escape
	add := func(b ...byte) {
		if skip > 0 {
			skip--
			return
		}
		text = append(text, b...)
	}
	for i := 0; i < len(group); i++ {
		switch c := group[i]; c {
		case '{', '}', '\r', '\n':
		case '\\':
			word, param, next := controlWord(group, i)
			switch word {
			case "'":
				add(byte(param))
			case "\\", "{", "}":
				add(word[0])
			case "u":
				text = append(text, string(rune(param))...)
				skip = 1
			case "bin":
				next += min(max(param, 0), len(group)-next)
			}
			i = next - 1
		default:
			add(c)
		}
	}
	s := strings.TrimLeft(string(text), " \t")
	n := 0
	for n < len(s) && isLetter(s[n]) {
		n++
	}
	return includingFields[strings.ToUpper(s[:n])]
}
