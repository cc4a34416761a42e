package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// Result is the outcome of one asynchronous request: a file to upload, or a Failure to report.
type Result struct {
	Trace       string         // the request's Gotenberg-Trace, sent as that header and as the events' correlationId
	Path        string         // the output file, when Failure is nil
	ContentType string         // of Path; sniffed from its first 512 bytes when empty
	FileName    string         // for Content-Disposition; Path's base name when empty
	Failure     *Failure       // non-nil when the request failed
	Extra       map[string]any // further fields of the events' JSON (never replacing Gotenberg's own)
}

// Failure is a failed request's HTTP status and its one-sentence message, as a synchronous reply would
// have carried them.
type Failure struct {
	Status  int    `json:"status"`
	Message string `json:"message"`
}

// Options tunes a Sender's retries. Zero fields take the defaults.
type Options struct {
	MaxAttempts    int              // attempts per target; default 4
	Base           time.Duration    // wait before the first retry, doubled each retry; default 1 s
	Max            time.Duration    // longest wait between attempts; default 30 s
	AttemptTimeout time.Duration    // one attempt, upload included; default 30 s
	UserAgent      string           // default "calq"
	Now            func() time.Time // the events' timestamps; default time.Now
}

func (o Options) withDefaults() Options {
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 4
	}
	if o.Base <= 0 {
		o.Base = time.Second
	}
	if o.Max <= 0 {
		o.Max = 30 * time.Second
	}
	if o.AttemptTimeout <= 0 {
		o.AttemptTimeout = 30 * time.Second
	}
	if o.UserAgent == "" {
		o.UserAgent = "calq"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Sender delivers results to webhooks through its Policy. It is safe for concurrent use.
type Sender struct {
	policy *Policy
	client *http.Client
	opt    Options
}

// NewSender returns a Sender that reaches only what p allows (a nil p: public addresses only). It follows
// no redirects and uses no proxy, so that every connection goes where the policy checked.
func NewSender(p *Policy, o Options) *Sender {
	if p == nil {
		p = &Policy{}
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           p.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	client := &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &Sender{policy: p, client: client, opt: o.withDefaults()}
}

// Close closes the Sender's idle connections.
func (s *Sender) Close() { s.client.CloseIdleConnections() }

// Deliver sends res where req says, as Gotenberg does. A success uploads the file to req.URL, then POSTs a
// webhook.success event to req.EventsURL if set. A failure, including an upload that failed for good, sends
// {"status","message"} to req.ErrorURL if set and POSTs a webhook.error event to req.EventsURL if set.
// Each target is tried up to MaxAttempts times. The error joins every target that failed for good.
func (s *Sender) Deliver(ctx context.Context, req *Request, res Result) error {
	if err := s.policy.CheckRequest(req); err != nil {
		return fmt.Errorf("deliver webhook: %w", err)
	}
	if res.Failure != nil {
		return s.deliverFailure(ctx, req, res, *res.Failure)
	}
	if err := s.upload(ctx, req, res); err != nil {
		f := Failure{Status: http.StatusInternalServerError, Message: "The result could not be sent to the webhook URL."}
		return errors.Join(err, s.deliverFailure(ctx, req, res, f))
	}
	return s.sendEvent(ctx, req, res, "webhook.success", nil)
}

// upload sends the result file to req.URL with req.Method.
func (s *Sender) upload(ctx context.Context, req *Request, res Result) error {
	st, err := os.Stat(res.Path)
	if err != nil {
		return fmt.Errorf("upload webhook result: %w", err)
	}
	ctype := res.ContentType
	if ctype == "" {
		if ctype, err = sniff(res.Path); err != nil {
			return fmt.Errorf("upload webhook result: %w", err)
		}
	}
	name := res.FileName
	if name == "" {
		name = filepath.Base(res.Path)
	}
	h := s.header(req, res.Trace, ctype)
	if _, ok := req.ExtraHeaders["Content-Disposition"]; !ok {
		h.Set("Content-Disposition", attachment(name))
	}
	open := func() (io.ReadCloser, int64, error) {
		f, err := os.Open(res.Path)
		return f, st.Size(), err
	}
	return s.send(ctx, outgoing{method: req.Method, url: req.URL, header: h, body: open})
}

// deliverFailure reports f to the error URL and the events URL, whichever are set.
func (s *Sender) deliverFailure(ctx context.Context, req *Request, res Result, f Failure) error {
	var errs []error
	if req.ErrorURL != "" {
		body, err := json.Marshal(f)
		if err != nil {
			return fmt.Errorf("encode webhook error: %w", err)
		}
		h := s.header(req, res.Trace, "application/json")
		errs = append(errs, s.send(ctx, outgoing{method: req.ErrorMethod, url: req.ErrorURL, header: h, body: bytesBody(body)}))
	}
	errs = append(errs, s.sendEvent(ctx, req, res, "webhook.error", &f))
	return errors.Join(errs...)
}

// sendEvent POSTs one JSON event to req.EventsURL, when set.
func (s *Sender) sendEvent(ctx context.Context, req *Request, res Result, event string, f *Failure) error {
	if req.EventsURL == "" {
		return nil
	}
	ev := make(map[string]any, len(res.Extra)+4)
	for k, v := range res.Extra {
		ev[k] = v
	}
	ev["event"] = event
	ev["correlationId"] = res.Trace
	ev["timestamp"] = s.opt.Now().UTC().Format(time.RFC3339Nano)
	if f != nil {
		ev["error"] = f
	}
	body, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("encode webhook event: %w", err)
	}
	h := s.header(req, res.Trace, "application/json")
	return s.send(ctx, outgoing{method: http.MethodPost, url: req.EventsURL, header: h, body: bytesBody(body)})
}

// header is what every delivery carries: the user agent, the client's extra headers, and then, taking
// precedence over them as in Gotenberg, Content-Type, the trace and the caller's W3C trace.
func (s *Sender) header(req *Request, trace, ctype string) http.Header {
	h := http.Header{"User-Agent": {s.opt.UserAgent}}
	for k, v := range req.ExtraHeaders {
		h.Set(k, v)
	}
	h.Set("Content-Type", ctype)
	if trace != "" {
		h.Set(HeaderTrace, trace)
	}
	if tp := childTraceParent(req.TraceParent); tp != "" {
		h.Set(HeaderTraceParent, tp)
	}
	return h
}

func bytesBody(b []byte) func() (io.ReadCloser, int64, error) {
	return func() (io.ReadCloser, int64, error) {
		return io.NopCloser(bytes.NewReader(b)), int64(len(b)), nil
	}
}

// sniff detects a file's content type from its first 512 bytes.
func sniff(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", err
	}
	return http.DetectContentType(head[:n]), nil
}

// attachment is `attachment; filename="name"` as Gotenberg writes it, or its RFC 2231 form when name is
// not plain ASCII.
func attachment(name string) string {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			return mime.FormatMediaType("attachment", map[string]string{"filename": name})
		}
	}
	return `attachment; filename="` + name + `"`
}
