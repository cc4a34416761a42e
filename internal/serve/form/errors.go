package form

import (
	"fmt"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Error is a failure the HTTP client caused: Status is the HTTP status to
// answer with (400, 413 or 415) and Msg one sentence for the reply's body.
// Err, when set, is the underlying cause, for logs. Limit names the bound
// a 413 passed (one of the Limit constants), Name the file over
// LimitFile or LimitPDF, so that a page can say it in its own words.
type Error struct {
	Status int
	Msg    string
	Err    error
	Limit  string
	Name   string
}

// The bounds of Limits an Error's Limit names.
const (
	LimitBody   = "body"   // MaxBody
	LimitFile   = "file"   // MaxFile
	LimitFiles  = "files"  // MaxFiles
	LimitFields = "fields" // MaxFields or MaxFieldBytes
	LimitPDF    = "pdf"    // PDF: a PDF's pages, or what its streams inflate to (Err says which)
)

func (e *Error) Error() string { return e.Msg }

func (e *Error) Unwrap() error { return e.Err }

// invalidPrefix begins Gotenberg's replies to a bad form.
const invalidPrefix = "Invalid form data: "

// badRequest returns a 400 whose message starts as Gotenberg's do.
func badRequest(format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Msg: invalidPrefix + fmt.Sprintf(format, args...)}
}

func tooLarge(limit, format string, args ...any) *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Msg: fmt.Sprintf(format, args...), Limit: limit}
}

// maxQuoted is how many runes of a client's value a message shows.
const maxQuoted = 64

// quote shows a client's value in a message: control characters dropped and
// cut to 64 runes, so a hostile value cannot flood a reply or a log line.
func quote(s string) string {
	const max = maxQuoted
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max]) + "…"
	}
	return "'" + s + "'"
}

// size formats a byte count for a message: "10 MiB", "512 KiB", "100 bytes".
func size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
