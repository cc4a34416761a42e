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

// exportColumns are the CSV header and the JSON Lines fields of an
// exported job, in order.
var exportColumns = []string{"id", "owner", "route", "state", "created", "started", "finished", "seconds",
	"files", "failed_files", "error", "expired"}

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
// job with the columns id, owner, route, state, created, started,
// finished (RFC 3339 in UTC, empty when unset), seconds (finished -
// started, to the millisecond, empty unless both are set), files (the
// client names joined by "; "), failed_files (how many failed), error
// and expired (true, false).
// A cell that a spreadsheet would read as a formula (starting with =, +,
// -, @, a tab or a carriage return) gets a leading apostrophe, so that
// opening the export cannot run a client's file name.
func WriteCSV(w io.Writer, js []Job) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(exportColumns); err != nil {
		return fmt.Errorf("export jobs as CSV: %w", err)
	}
	for _, j := range js {
		e := export(j)
		names := make([]string, len(e.Files))
		for i, f := range e.Files {
			names[i] = f.Name
		}
		seconds := ""
		if e.Seconds != nil {
			seconds = strconv.FormatFloat(*e.Seconds, 'f', 3, 64)
		}
		row := []string{e.ID, e.Owner, e.Route, string(e.State), e.Created, e.Started, e.Finished, seconds,
			strings.Join(names, "; "), strconv.Itoa(e.FailedFiles), e.Error, strconv.FormatBool(e.Expired)}
		for i := range row {
			row[i] = defuse(row[i])
		}
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("export job %s as CSV: %w", j.ID, err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("export jobs as CSV: %w", err)
	}
	return nil
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
// files as an array of FileState (without states for a job recorded
// before they were kept), seconds a number or null, expired a boolean.
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
