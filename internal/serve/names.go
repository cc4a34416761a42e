package serve

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"calq/internal/serve/jobs"
)

// maxStem bounds a file name made from a title, in bytes.
const maxStem = 120

// fileStem is text (a profile's title) as the stem of a file name: path
// separators become '-', control characters and runs of spaces one space,
// spaces and dots at either end go; cut to maxStem bytes on a rune
// boundary; "" when nothing is left.
func fileStem(text string) string {
	s := strings.Map(func(r rune) rune {
		switch {
		case r == '/' || r == '\\':
			return '-'
		case unicode.IsControl(r):
			return ' '
		}
		return r
	}, strings.ToValidUTF8(text, "\uFFFD"))
	s = strings.Join(strings.Fields(s), " ")
	for len(s) > maxStem {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return strings.Trim(s, " .")
}

// peopleName is the name under which job j's result reaches people: a
// page's download of all and a mail's attachment (and so its subject).
// One PDF keeps the result's name. A zip, which API replies name after
// the job as Gotenberg names it after a UUID, is named after
// Gotenberg-Output-Filename when the request had one, else after the
// profile's title or the files ("report and 2 more") and the day the job
// was sent: never after the job's id. j must have a result.
func peopleName(j *jobs.Job) string {
	if j.Result.ContentType != contentTypeZip || j.Request.Filename != "" {
		return j.Result.Name
	}
	var t Task
	_ = json.Unmarshal(j.Request.Options, &t) // a job's own record; no title without it
	stem := fileStem(t.Title)
	if stem == "" && len(j.Request.Files) > 0 {
		first := j.Request.Files[0].Name
		stem = andMore(strings.TrimSuffix(first, filepath.Ext(first)), len(j.Request.Files))
	}
	return stem + " " + j.Created.Local().Format("2006-01-02") + ".zip"
}

// andMore names n files for people by the first one's name: "report",
// "report and 2 more".
func andMore(first string, n int) string {
	if n <= 1 {
		return first
	}
	return fmt.Sprintf("%s and %d more", first, n-1)
}

// jobTitle is the title of job j's pages: its files, never its id.
func jobTitle(j *jobs.Job) string {
	if len(j.Request.Files) == 0 {
		return "Job"
	}
	return andMore(j.Request.Files[0].Name, len(j.Request.Files))
}
