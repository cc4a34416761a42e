package pdf

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
)

// pageSelection reads a page selection (splitSpan, rotatePages,
// watermarkPages, stampPages) into pdfcpu's tokens. It takes pdfcpu's
// syntax ("1-3,5", "2-", "even", "!4", "l" for the last page) and the
// names qpdf and pdftk give the pages Gotenberg's other engines select:
// "z" or "end" for the last page and "rN" for the Nth page from the end
// (r1 the last), alone or as the end of a range ("2-z", "1-end",
// "1-r2", "r3-z"). What pdfcpu would not read is refused here, whole,
// rather than when a page count is known.
func pageSelection(field, sel string) ([]string, error) {
	s := strings.TrimSpace(sel)
	bad := &FieldError{Field: field, Value: sel, Err: errors.New(`not a page selection such as "1-3,5", "2-", "2-z", "even" or "!4"`)}
	if s == "" {
		return nil, nil
	}
	tokens := strings.Split(s, ",")
	for i, tok := range tokens {
		t, ok := pdfcpuToken(tok)
		if !ok {
			return nil, bad
		}
		tokens[i] = t
	}
	return tokens, nil
}

// pdfcpuSyntax is one token of pdfcpu's page selections, anchored: its own
// check lets malformed ones through ("r0", "x3") to fail on the pages.
var pdfcpuSyntax = regexp.MustCompile(`^(even|odd|[!n]?(-\d+|\d+|\d+-|\d+-\d+|\d+-l|\d+-l-\d+|l|l-\d+|l-\d+-))$`)

// pdfcpuToken turns one token of qpdf's or pdftk's syntax into pdfcpu's
// and checks it.
func pdfcpuToken(tok string) (string, bool) {
	neg := ""
	if strings.HasPrefix(tok, "!") || strings.HasPrefix(tok, "n") {
		neg, tok = tok[:1], tok[1:]
	}
	from, to, isRange := strings.Cut(tok, "-")
	switch fromLast, ok := fromEnd(from); {
	case ok && !isRange: // z, end, rN
		tok = last(fromLast, "")
	case ok && (to == "z" || to == "end"): // rN-z: the last N pages
		if tok = last(fromLast, "-"); fromLast == 0 {
			tok = "l" // r1-z: pdfcpu has no "l-"
		}
	case !ok && isRange && from != "": // A-z, A-rN
		if toLast, ok := fromEnd(to); ok {
			tok = from + "-" + last(toLast, "")
		}
	}
	tok = neg + tok
	return tok, pdfcpuSyntax.MatchString(tok)
}

// fromEnd reads qpdf's and pdftk's names of a page counted from the end:
// "z" and "end" are 0 pages before the last, "rN" N-1.
func fromEnd(s string) (int, bool) {
	if s == "z" || s == "end" {
		return 0, true
	}
	n, err := strconv.Atoi(strings.TrimPrefix(s, "r"))
	if !strings.HasPrefix(s, "r") || err != nil || n < 1 || strings.HasPrefix(s, "r+") || strings.HasPrefix(s, "r-") {
		return 0, false
	}
	return n - 1, true
}

// last is pdfcpu's name of the page n before the last ("l", "l-2"),
// followed by suffix.
func last(n int, suffix string) string {
	if n == 0 {
		return "l" + suffix
	}
	return "l-" + strconv.Itoa(n) + suffix
}
