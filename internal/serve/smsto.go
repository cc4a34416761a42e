package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"calq/internal/serve/jobs"
	"calq/internal/serve/smsapi"
	"calq/internal/serve/users"
)

// checkSMSTo refuses, when a request is accepted, an smsTo the job
// could not text when it ends: calq serve without SMS or a bad
// recipient (400), a user without the right to send (403), a user over
// the rate or quota (429 with Retry-After).
func (s *Server) checkSMSTo(ctx context.Context, u users.User, to []string) error {
	if len(to) == 0 {
		return nil
	}
	if s.opts.Texter == nil {
		return refuse(ctx, "smsTo", "cannot be used: this calq serve sends no SMS",
			"SMS to: this server sends no SMS. Leave the field empty.")
	}
	err := s.opts.Texter.Check(ctx, u, to)
	var ie *smsapi.InputError
	var qe *smsapi.QuotaError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, smsapi.ErrNotAllowed):
		return &jobError{status: http.StatusForbidden, err: err,
			msg: "Forbidden: form field 'smsTo': " + err.Error() + " (an administrator allows it: calq users set NAME --sms)"}
	case errors.As(err, &ie):
		return refuse(ctx, "smsTo", "is invalid: "+err.Error(), "SMS to: "+err.Error()+". Use a number, or a name from your address book.")
	case errors.As(err, &qe):
		return &queueFull{msg: "Too Many Requests: form field 'smsTo': " + err.Error(), retry: time.Until(qe.Reset)}
	}
	return fmt.Errorf("check smsTo: %w", err)
}

// smsRefused says whether a job's SMS failed for good: its user may no
// longer send, or a recipient is gone from the address book.
func smsRefused(err error) bool {
	var ie *smsapi.InputError
	return errors.Is(err, smsapi.ErrNotAllowed) || errors.As(err, &ie) || errors.Is(err, users.ErrNoUser)
}

// text sends the SMS of a job's smsTo, as its user.
func (s *Server) text(ctx context.Context, j *jobs.Job) error {
	var t Task
	if err := json.Unmarshal(j.Request.Options, &t); err != nil {
		return err
	}
	if s.opts.Texter == nil {
		return errors.New("calq serve sends no SMS any more")
	}
	u := users.User{Name: j.Owner}
	if s.opts.Accounts != nil && j.Owner != "" {
		var err error
		if u, err = s.opts.Accounts.Get(ctx, j.Owner); err != nil {
			return fmt.Errorf("the job's user %s: %w", j.Owner, err)
		}
	}
	return s.opts.Texter.Send(ctx, u, t.SMSTo, endText(j))
}

// endText is the SMS a job's end sends: its id, how it ended, its files
// converted and failed; ASCII, one part.
func endText(j *jobs.Job) string {
	done, failed := 0, 0
	for _, f := range j.Files {
		switch f.State {
		case jobs.FileDone:
			done++
		case jobs.FileFailed:
			failed++
		}
	}
	id := j.ID
	if len(id) > 8 {
		id = id[:8]
	}
	if len(j.Files) == 0 { // a web page's job: no file of the client's
		return fmt.Sprintf("calq: job %s %s", id, j.State)
	}
	return fmt.Sprintf("calq: job %s %s: %s converted, %d failed", id, j.State, plural(done, "file"), failed)
}
