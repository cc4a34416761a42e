package smsapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// sendBody is POST /sms's JSON body. to is one recipient or a list;
// validity a Go duration ("90m", "2h"); at RFC 3339; priority P0..P3.
type sendBody struct {
	To            recipients `json:"to"`
	Text          string     `json:"text"`
	Flash         bool       `json:"flash"`
	Validity      string     `json:"validity"`
	Report        bool       `json:"report"`
	At            string     `json:"at"`
	Priority      string     `json:"priority"`
	Transliterate bool       `json:"transliterate"`
	ReportURL     string     `json:"reportUrl"`
}

// recipients is a JSON string or list of strings.
type recipients []string

func (r *recipients) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*r = recipients{one}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return &InputError{Field: "to", Value: string(b), Err: errors.New("is not a string or a list of strings")}
	}
	*r = list
	return nil
}

// handleSend is POST /sms: 202 with [{id,to,parts,state}] once the
// messages are in the outbox.
func (s *Service) handleSend(w http.ResponseWriter, r *http.Request) {
	var acc []Accepted
	req, err := readSend(w, r)
	if err == nil {
		acc, err = s.Send(r.Context(), userOf(r), req)
	}
	s.answer(w, r, http.StatusAccepted, acc, err)
}

// readSend reads and checks the body's syntax (Send checks the rest).
func readSend(w http.ResponseWriter, r *http.Request) (Request, error) {
	var b sendBody
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return Request{}, bodyError(err)
	}
	if dec.More() {
		return Request{}, &InputError{Field: "body", Err: errors.New("holds more than one JSON object")}
	}
	req := Request{To: b.To, Text: b.Text, Flash: b.Flash, Report: b.Report, Priority: b.Priority, Transliterate: b.Transliterate}
	var err error
	if b.Validity != "" {
		if req.Validity, err = time.ParseDuration(b.Validity); err != nil || req.Validity <= 0 {
			return req, &InputError{Field: "validity", Value: b.Validity, Err: errors.New(`is not a positive Go duration such as "90m" or "2h"`)}
		}
	}
	if b.At != "" {
		if req.At, err = time.Parse(time.RFC3339, b.At); err != nil {
			return req, &InputError{Field: "at", Value: b.At, Err: errors.New("is not an RFC 3339 time such as 2026-12-01T08:00:00Z")}
		}
	}
	if b.ReportURL != "" {
		req.Push = Push{Kind: PushJSON, URL: b.ReportURL}
	}
	return req, nil
}

// bodyError names what is wrong with a body that does not decode.
func bodyError(err error) error {
	var mbe *http.MaxBytesError
	var ute *json.UnmarshalTypeError
	switch {
	case errors.As(err, &mbe):
		return &InputError{Field: "body", Value: fmt.Sprintf("over %d bytes", mbe.Limit), Err: fmt.Errorf("is longer than %d KiB", MaxBody>>10)}
	case errors.As(err, &ute):
		return &InputError{Field: ute.Field, Value: ute.Value, Err: fmt.Errorf("is not a %s", ute.Type)}
	case errors.Is(err, io.EOF):
		return &InputError{Field: "body", Err: errors.New("is empty: want a JSON object")}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return &InputError{Field: field, Err: errors.New("is not a field of POST /sms")}
	}
	var ie *InputError
	if errors.As(err, &ie) {
		return ie
	}
	return &InputError{Field: "body", Err: fmt.Errorf("is not JSON: %w", err)}
}
