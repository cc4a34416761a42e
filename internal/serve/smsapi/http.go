package smsapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// apiError is the body of every error reply of the API, the shape of
// webhook.Failure: {"status":404,"message":"no such message"}.
type apiError struct {
	Status  int    `json:"status"`
	Message string `json:"message"`
}

// reply answers v as JSON with status.
func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// answer replies v with status, or err when it is not nil.
func (s *Service) answer(w http.ResponseWriter, r *http.Request, status int, v any, err error) {
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reply(w, status, v)
}

// fail answers err with the status its kind maps to.
func (s *Service) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := statusOf(err), err.Error()
	if status == http.StatusInternalServerError {
		// The cause may name files and databases: the log has it.
		s.opts.Log.Error("sms api", "method", r.Method, "path", r.URL.Path, "err", err)
		msg = "internal error: calq serve's log has the cause"
	}
	var qe *QuotaError
	if errors.As(err, &qe) {
		secs := 1
		if d := qe.Reset.Sub(s.now()); d > 0 {
			secs = int((d + time.Second - 1) / time.Second)
		}
		w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
	}
	reply(w, status, apiError{Status: status, Message: msg})
}

func statusOf(err error) int {
	var ie *InputError
	var qe *QuotaError
	switch {
	case errors.As(err, &ie):
		return http.StatusBadRequest
	case errors.As(err, &qe):
		return http.StatusTooManyRequests
	case errors.Is(err, ErrNotAllowed):
		return http.StatusForbidden
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, ErrNotPending):
		return http.StatusConflict
	}
	return http.StatusInternalServerError
}

// pathID reads {id}; a malformed one is no message (404), as a missing
// one is.
func pathID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("%w: %q", ErrNotFound, r.PathValue("id"))
	}
	return id, nil
}

// filterOf reads a listing's query: state, to, since (RFC 3339), before
// (the previous page's next) and limit.
func filterOf(r *http.Request) (Filter, error) {
	q := r.URL.Query()
	f := Filter{State: q.Get("state"), To: q.Get("to")}
	var err error
	if v := q.Get("since"); v != "" {
		if f.Since, err = time.Parse(time.RFC3339, v); err != nil {
			return f, &InputError{Field: "since", Value: v, Err: errors.New("is not an RFC 3339 time")}
		}
	}
	for _, p := range []struct {
		name string
		into *int64
	}{{"before", &f.Before}, {"limit", nil}} {
		v := q.Get(p.name)
		if v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return f, &InputError{Field: p.name, Value: v, Err: errors.New("is not a whole number")}
		}
		if p.into != nil {
			*p.into = n
		} else {
			f.Limit = int(min(n, maxLimit))
		}
	}
	return f, nil
}
