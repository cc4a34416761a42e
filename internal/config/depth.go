package config

import "fmt"

// MaxDepth bounds how deep a config file may nest arrays, inline tables
// and dotted keys. The TOML decoder recurses once per level, so a file of
// a megabyte of "[" would take it far past any real config (which nests
// three or four levels) into a fatal stack overflow.
const MaxDepth = 64

// checkDepth returns an error naming the line where data first nests
// deeper than MaxDepth. It scans as the TOML grammar does, far enough to
// skip strings and comments; a dot or bracket in either does not count.
func checkDepth(path, data string) error {
	depth, dots, line := 0, 0, 1
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '\n':
			line++
			dots = 0
		case '#':
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			end := skipString(data, i)
			line += countNewlines(data[i:end])
			i = end - 1
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		case '=', ',':
			dots = 0
		case '.':
			dots++
		}
		if depth+dots > MaxDepth {
			return fmt.Errorf("%s:%d: nested deeper than %d levels", path, line, MaxDepth)
		}
	}
	return nil
}

// skipString returns the index just past the string that starts at
// data[i] (a quote), or len(data) when it does not end.
func skipString(data string, i int) int {
	q := data[i]
	delim := string(q)
	if i+2 < len(data) && data[i+1] == q && data[i+2] == q {
		delim = string([]byte{q, q, q})
	}
	for j := i + len(delim); j < len(data); j++ {
		if q == '"' && data[j] == '\\' {
			j++
			continue
		}
		if len(data)-j >= len(delim) && data[j:j+len(delim)] == delim {
			return j + len(delim)
		}
		if len(delim) == 1 && data[j] == '\n' {
			return j // an unterminated one-line string: the decoder reports it
		}
	}
	return len(data)
}

func countNewlines(s string) int {
	n := 0
	for i := range len(s) {
		if s[i] == '\n' {
			n++
		}
	}
	return n
}
