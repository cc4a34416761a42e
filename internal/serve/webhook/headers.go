package webhook

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Gotenberg's request headers, and the trace header sent with every delivery.
const (
	HeaderURL          = "Gotenberg-Webhook-Url"
	HeaderMethod       = "Gotenberg-Webhook-Method"
	HeaderEventsURL    = "Gotenberg-Webhook-Events-Url"
	HeaderErrorURL     = "Gotenberg-Webhook-Error-Url"
	HeaderErrorMethod  = "Gotenberg-Webhook-Error-Method"
	HeaderExtraHeaders = "Gotenberg-Webhook-Extra-Http-Headers"
	HeaderTrace        = "Gotenberg-Trace"
)

// Request is where and how one asynchronous request's outcome is delivered. It holds only strings so that
// it can be stored (in JSON) with the job it belongs to and delivered after a restart.
type Request struct {
	URL          string            `json:"url"`                     // receives the result file
	Method       string            `json:"method"`                  // POST, PUT or PATCH, for URL
	EventsURL    string            `json:"events_url,omitempty"`    // receives webhook.success/webhook.error events (POST)
	ErrorURL     string            `json:"error_url,omitempty"`     // the older error URL: receives {status, message}
	ErrorMethod  string            `json:"error_method,omitempty"`  // POST, PUT or PATCH, for ErrorURL
	ExtraHeaders map[string]string `json:"extra_headers,omitempty"` // canonical names; sent to every URL
	TraceParent  string            `json:"traceparent,omitempty"`   // the caller's W3C traceparent, passed on
}

// HeaderError is a request header that cannot be used. Its message is one sentence for an HTTP 400 reply.
type HeaderError struct {
	Header string // the request header at fault, e.g. HeaderMethod
	Reason string // what is wrong with it, without the header's name
	Err    error  // the cause, if any: a *RefusedError from Policy.CheckRequest
}

func (e *HeaderError) Error() string {
	return fmt.Sprintf("Invalid '%s' header: %s.", e.Header, e.Reason)
}

func (e *HeaderError) Unwrap() error { return e.Err }

// ParseHeaders reads Gotenberg's webhook headers. It returns nil, nil when h has no Gotenberg-Webhook-Url:
// the request is then not a webhook request. Otherwise an events URL or the older error URL is required, as
// Gotenberg requires one. Every error is a *HeaderError. ParseHeaders does not check the targets against a
// [Policy]; call [Policy.CheckRequest] for that.
func ParseHeaders(h http.Header) (*Request, error) {
	raw := strings.TrimSpace(h.Get(HeaderURL))
	if raw == "" {
		return nil, nil
	}
	r := &Request{}
	var err error
	if r.URL, err = parseTarget(HeaderURL, raw); err != nil {
		return nil, err
	}
	if r.Method, err = parseMethod(HeaderMethod, h.Get(HeaderMethod)); err != nil {
		return nil, err
	}
	if err := r.parseFailureTargets(h); err != nil {
		return nil, err
	}
	if r.ExtraHeaders, err = parseExtraHeaders(h.Get(HeaderExtraHeaders)); err != nil {
		return nil, err
	}
	r.TraceParent = parseTraceParent(h.Get(HeaderTraceParent))
	return r, nil
}

// parseFailureTargets reads the events URL and the older error URL with its method, one of which is required.
func (r *Request) parseFailureTargets(h http.Header) error {
	events := strings.TrimSpace(h.Get(HeaderEventsURL))
	errURL := strings.TrimSpace(h.Get(HeaderErrorURL))
	if events == "" && errURL == "" {
		return &HeaderError{Header: HeaderEventsURL, Reason: fmt.Sprintf("it (or the older '%s') is required with '%s'", HeaderErrorURL, HeaderURL)}
	}
	var err error
	if events != "" {
		if r.EventsURL, err = parseTarget(HeaderEventsURL, events); err != nil {
			return err
		}
	}
	if errURL != "" {
		if r.ErrorURL, err = parseTarget(HeaderErrorURL, errURL); err != nil {
			return err
		}
		if r.ErrorMethod, err = parseMethod(HeaderErrorMethod, h.Get(HeaderErrorMethod)); err != nil {
			return err
		}
	}
	return nil
}

// parseTarget accepts an absolute http or https URL with a host.
func parseTarget(header, raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", &HeaderError{Header: header, Reason: "it is not a URL"}
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", &HeaderError{Header: header, Reason: "the URL must start with http:// or https://"}
	}
	if u.Hostname() == "" {
		return "", &HeaderError{Header: header, Reason: "the URL has no host"}
	}
	return u.String(), nil
}

// parseMethod accepts POST (the default when empty), PUT and PATCH, in any case.
func parseMethod(header, raw string) (string, error) {
	m := strings.ToUpper(strings.TrimSpace(raw))
	switch m {
	case "":
		return http.MethodPost, nil
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		return m, nil
	}
	return "", &HeaderError{Header: header, Reason: fmt.Sprintf("expected POST, PUT or PATCH, got %q", raw)}
}
