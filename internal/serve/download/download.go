// Package download fetches the files a Gotenberg form names in its
// downloadFrom field, as files of the request, without letting a client
// aim calq serve at its own network.
//
// Entry points:
//
//   - [Parse] reads the field's JSON into [Entry] values (cheap, pure).
//   - [Fetch] downloads them one after the other into the request's
//     directory and adds them to its [form.Form]. It is bounded before it
//     starts: in count by the form's MaxFiles, in bytes by MaxFile per file
//     and MaxBody for all of them, in time by ctx and Options.Timeout. Every
//     connection, redirects included, goes through the webhooks'
//     [webhook.Policy]: private, loopback and reserved addresses are refused
//     unless calq serve's --webhook-allow lets them through.
//
// Fetch is safe for concurrent use on different forms.
package download

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"calq/internal/serve/form"
	"calq/internal/serve/webhook"
)

// Field is the form field downloadFrom is read from.
const Field = "downloadFrom"

// Entry is one element of downloadFrom.
type Entry struct {
	URL              string            `json:"url"`
	ExtraHTTPHeaders map[string]string `json:"extraHttpHeaders"`
	// Embedded attaches the file to the resulting PDF rather than
	// converting it (Gotenberg's older spelling of Field "embedded").
	Embedded bool `json:"embedded"`
	// Field is the form field the file counts as: "" (a file to convert),
	// "embedded", "watermark" or "stamp".
	Field string `json:"field"`
}

// formField is the form field e's file is stored under.
func (e Entry) formField() string {
	switch {
	case e.Embedded || e.Field == "embedded":
		return "embeds"
	case e.Field == "":
		return "files"
	}
	return e.Field
}

// Parse reads downloadFrom's value: a JSON list of entries, each with an
// http or https URL. An empty value is no entry. Its errors are 400
// *form.Error naming the field and the entry, counted from 0 as
// Gotenberg counts them.
func Parse(raw string) ([]Entry, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, nil
	}
	var entries []Entry
	if err := json.Unmarshal([]byte(raw), &entries); err != nil {
		return nil, &form.Error{Status: http.StatusBadRequest, Err: err,
			Msg: fmt.Sprintf("Invalid '%s' form field value: %s", Field, err)}
	}
	for i := range entries {
		if err := entries[i].check(); err != nil {
			return nil, &form.Error{Status: http.StatusBadRequest, Err: err,
				Msg: fmt.Sprintf("Invalid '%s' form field entry %d: %s", Field, i, err)}
		}
	}
	return entries, nil
}

// check validates e and puts its header names in canonical form.
func (e *Entry) check() error {
	if strings.TrimSpace(e.URL) == "" {
		return fmt.Errorf("URL must be set")
	}
	u, err := url.Parse(e.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("URL must be an absolute http or https URL")
	}
	switch e.Field {
	case "", "embedded", "watermark", "stamp":
	default:
		return fmt.Errorf("field must be 'embedded', 'watermark' or 'stamp', not %q", e.Field)
	}
	h, err := webhook.CleanHeaders(e.ExtraHTTPHeaders)
	if err != nil {
		return fmt.Errorf("extraHttpHeaders: %w", err)
	}
	e.ExtraHTTPHeaders = h
	return nil
}
