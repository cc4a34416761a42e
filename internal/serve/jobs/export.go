package jobs

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// exportColumns are the JSON Lines fields of an exported job, in order.
var exportColumns = []string{"id", "owner", "route", "state", "created", "started", "finished", "seconds",
	"files", "failed_files", "error", "expired"}

// csvColumns are the CSV header: exportColumns with files as a row per
// file (its name, state and reason), so that the CSV carries what the
// JSON Lines carry.
var csvColumns = []string{"id", "owner", "route", "state", "created", "started", "finished", "seconds",
	"file", "file_state", "file_reason", "failed_files", "error", "expired"}

// exported is a job as the administrator's log export writes it.
type exported struct {
	MessageType string      `json:"message_type"`
	ID          string      `json:"id"`
	Owner       string      `json:"owner"`
	Route       string      `json:"route"`
	State       State       `json:"state"`
	Created     string      `json:"created"`
	Started     string      `json:"started"`
	Finished    string      `json:"finished"`
	Seconds     *float64    `json:"seconds"` // null when the job did not run to its end
	Files       []FileState `json:"files"`
	FailedFiles int         `json:"failed_files"`
	Error       string      `json:"error"`
	Expired     bool        `json:"expired"`
}

func export(j Job) exported {
	e := exported{MessageType: "job", ID: j.ID, Owner: j.Owner, Route: j.Route, State: j.State,
		Created: rfc3339(j.Created), Started: rfc3339(j.Started), Finished: rfc3339(j.Finished),
		Files: j.Files, Error: j.Error, Expired: j.Expired}
	if !j.Started.IsZero() && !j.Finished.IsZero() {
		d := j.Finished.Sub(j.Started).Seconds()
		e.Seconds = &d
	}
	if e.Files == nil {
		// Recorded before the states were: the request's names, no state.
		for _, f := range j.Request.Files {
			e.Files = append(e.Files, FileState{Name: f.Name})
		}
	}
	if e.Files == nil {
		e.Files = []FileState{}
	}
	for _, f := range e.Files {
		if f.State == FileFailed {
			e.FailedFiles++
		}
	}
	return e
}

// rfc3339 is t in UTC, "" for the zero time.
func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// WriteCSV writes js as CSV (RFC 4180): a header row, then one row per
// file of each job (one row, its file cells empty, for a job without
// files) with the columns id, owner, route, state, created, started,
// finished (RFC 3339 in UTC, empty when unset), seconds (finished -
// started, to the millisecond, empty unless both are set), file,
// file_state and file_reason (the client's file name, what became of it
// and why it failed or was skipped), failed_files (how many of the job's
// files failed), error and expired (true, false). The job's cells repeat
// on each of its rows, so that a spreadsheet filters files by any of
// them.
// A cell that a spreadsheet would read as a formula (starting with =, +,
// -, @, a tab or a carriage return) gets a leading apostrophe, so that
// opening the export cannot run a client's file name.
func WriteCSV(w io.Writer, js []Job) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvColumns); err != nil {
		return fmt.Errorf("export jobs as CSV: %w", err)
	}
	for _, j := range js {
		for _, row := range csvRows(export(j)) {
			if err := cw.Write(row); err != nil {
				return fmt.Errorf("export job %s as CSV: %w", j.ID, err)
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("export jobs as CSV: %w", err)
	}
	return nil
}

// csvRows are e's rows of csvColumns, a row per file, defused.
func csvRows(e exported) [][]string {
	seconds := ""
	if e.Seconds != nil {
		seconds = strconv.FormatFloat(*e.Seconds, 'f', 3, 64)
	}
	files := e.Files
	if len(files) == 0 {
		files = []FileState{{}}
	}
	rows := make([][]string, len(files))
	for i, f := range files {
		row := []string{e.ID, e.Owner, e.Route, string(e.State), e.Created, e.Started, e.Finished, seconds,
			f.Name, f.State, f.Reason, strconv.Itoa(e.FailedFiles), e.Error, strconv.FormatBool(e.Expired)}
		for k := range row {
			row[k] = defuse(row[k])
		}
		rows[i] = row
	}
	return rows
}

// defuse prefixes an apostrophe to a cell a spreadsheet would take for a
// formula (OWASP's "CSV injection").
func defuse(cell string) string {
	if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
		return "'" + cell
	}
	return cell
}

// WriteJSONL writes js as JSON Lines, one object per job with
// "message_type":"job" first, then the fields of WriteCSV's columns, but
// files as an array of FileState (name, state, reason; without states
// for a job recorded before they were kept) where the CSV has a row per
// file, seconds a number or null, expired a boolean.
func WriteJSONL(w io.Writer, js []Job) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // a file name's "<" and "&" stay as they are
	for _, j := range js {
		if err := enc.Encode(export(j)); err != nil {
			return fmt.Errorf("export job %s as JSON: %w", j.ID, err)
		}
	}
	return nil
}
