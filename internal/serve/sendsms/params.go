package sendsms

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"

	"calq/internal/kannel"
)

// maxBody bounds a POST's body: the longest text calq takes, escaped
// in a form (three bytes a byte), and the other parameters.
const maxBody = 3*kannel.MaxText + 16<<10

// params returns a request's parameters: the query of a GET; the form
// (and query) of a form-encoded POST; the X-Kannel headers and the body
// of a POST in Kannel's header form; else the query.
func params(w http.ResponseWriter, r *http.Request) (url.Values, error) {
	if r.Method != http.MethodPost {
		return r.URL.Query(), nil
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case ct == "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			return nil, bodyError(err)
		}
		return r.Form, nil
	case kannel.HasHeaders(r.Header):
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, bodyError(err)
		}
		return kannel.HeaderParams(r.Header, string(body)), nil
	}
	return r.URL.Query(), nil
}

func bodyError(err error) error {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return &kannel.Error{Status: http.StatusRequestEntityTooLarge, Reply: "Request too large, rejected",
			Reason: "calq reads at most " + strconv.Itoa(maxBody) + " bytes of a sendsms body"}
	}
	return &kannel.Error{Status: http.StatusBadRequest, Reply: "Body misformed, rejected", Reason: err.Error()}
}
