package base

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/term"
)

// QuoteName prints a path as it is when that is safe, else quoted in Go
// (C-like) syntax as git quotes paths: control characters, bytes that are
// not UTF-8 and invisible format characters become escapes, so a name
// holding a newline cannot forge a line.
func QuoteName(s string) string {
	if s == "" || !needsQuote(s) {
		return s
	}
	return strconv.Quote(s)
}

func needsQuote(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, c := range s {
		if Escaped(c) || c == '"' || c == '\\' {
			return true
		}
	}
	return false
}

// Escaped reports whether c is printed as an escape: a control character,
// or an invisible format character (a bidi override, a zero-width space, a
// BOM), but not the zero-width joiner and non-joiner, which emoji
// sequences and scripts such as Persian and Devanagari are written with,
// and which move nothing.
func Escaped(c rune) bool {
	return unicode.IsControl(c) || unicode.Is(unicode.Cf, c) && c != '\u200c' && c != '\u200d'
}

// SafeText escapes control characters and bytes that are not UTF-8 in a
// message (which may quote a path), without quoting the whole.
func SafeText(s string) string {
	if !needsQuote(s) {
		return s
	}
	var b strings.Builder
	for i, w := 0, 0; i < len(s); i += w {
		c, width := utf8.DecodeRuneInString(s[i:])
		w = width
		switch {
		case c == utf8.RuneError && width == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case Escaped(c):
			q := strconv.QuoteRune(c)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// IsTerminal reports whether w is a terminal: progress lines help a person
// watching and would only clutter a log or a test's captured stderr.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Within says whether dir is out or below it: calq creates --out.
func Within(dir, out string) bool {
	rel, err := filepath.Rel(filepath.Clean(out), filepath.Clean(dir))
	return out != "" && err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
