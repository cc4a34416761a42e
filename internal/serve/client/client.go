// Package client is calq convert --server's side of calq serve: it sends
// each office document to the server's warm pool as a durable job
// (POST /jobs), waits for it (GET /jobs/ID?wait=...) and fetches its PDF,
// so that a cron job pays no LibreOffice start. It converts; everything
// else (the plan, provenance, post-processing, the output tree) stays
// calq convert's own.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"calq/convert/lo"
)

// Client talks to one calq serve.
type Client struct {
	base *url.URL
	key  string
	http *http.Client
}

// New returns a client of the server at rawURL (http or https), sending
// key (may be "") as a bearer token.
func New(rawURL, key string) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(rawURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("server %q: want an http:// or https:// URL", rawURL)
	}
	if u.User != nil {
		if pw, ok := u.User.Password(); ok && key == "" {
			key = pw
		}
		u.User = nil
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64 // one kept per document in flight, not 2
	return &Client{base: u, key: key, http: &http.Client{Transport: t}}, nil
}

// String is the server's URL, without credentials.
func (c *Client) String() string { return c.base.String() }

// health is what the client reads of GET /health.
type health struct {
	Status  string `json:"status"`
	Details struct {
		LibreOffice struct {
			Status    string     `json:"status"`
			Instances []struct{} `json:"instances"`
		} `json:"libreoffice"`
	} `json:"details"`
}

// Instances asks the server how many LibreOffice instances it has: how
// many documents are worth sending at once.
func (c *Client) Instances(ctx context.Context) (int, error) {
	resp, err := c.do(ctx, http.MethodGet, "/health", nil, "")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var h health
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&h); err != nil {
		return 0, fmt.Errorf("server %s: read /health: %w", c, err)
	}
	if h.Status != "up" {
		return 0, fmt.Errorf("server %s is %s", c, h.Status)
	}
	// /health is open to all; /version takes the key a conversion will.
	v, err := c.do(ctx, http.MethodGet, "/version", nil, "")
	if err != nil {
		return 0, err
	}
	defer v.Body.Close()
	if v.StatusCode == http.StatusUnauthorized {
		what := "needs an API key: set CALQ_SERVER_KEY"
		if c.key != "" {
			what = "refused the API key in CALQ_SERVER_KEY"
		}
		return 0, fmt.Errorf("server %s %s", c, what)
	}
	return max(1, len(h.Details.LibreOffice.Instances)), nil
}

func (c *Client) do(ctx context.Context, method, path string, body io.Reader, contentType string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base.String()+path, body)
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("server %s: %w", c, err)
	}
	return resp, nil
}

// statusError is a reply other than the one expected: its status and
// the server's sentence.
type statusError struct {
	status int
	msg    string
	retry  time.Duration
}

func (e *statusError) Error() string {
	return fmt.Sprintf("%d %s: %s", e.status, http.StatusText(e.status), e.msg)
}

func readError(resp *http.Response) *statusError {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	e := &statusError{status: resp.StatusCode, msg: strings.TrimSpace(string(b))}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		e.retry = time.Duration(s) * time.Second
		if s > int(math.MaxInt64/time.Second) { // wrapped round: wait while ctx lasts
			e.retry = math.MaxInt64
		}
	}
	return e
}

// Convert converts the document at in into a PDF at out on the server,
// as lo.Instance.Convert does on an instance here. A full queue (429) or
// an unavailable server (503) is waited out as Retry-After says, while
// ctx lasts. Errors are *lo.ConvertError.
func (c *Client) Convert(ctx context.Context, in, out string, o lo.ConvertOptions) error {
	for {
		err := c.convert(ctx, in, out, o)
		var se *statusError
		if errors.As(err, &se) && (se.status == http.StatusTooManyRequests || se.status == http.StatusServiceUnavailable) {
			wait := max(se.retry, 100*time.Millisecond)
			select {
			case <-time.After(wait):
				continue
			case <-ctx.Done():
			}
		}
		if err == nil {
			return nil
		}
		reason := lo.ReasonLoadFailed
		switch {
		case ctx.Err() != nil:
			reason, err = lo.ReasonCanceled, errors.Join(err, ctx.Err())
		case errors.As(err, &se) && se.status == http.StatusServiceUnavailable:
			reason = lo.ReasonTimeout
		case !errors.As(err, &se):
			reason = lo.ReasonStartFailed // the server is unreachable: transient
		}
		return &lo.ConvertError{Input: in, Reason: reason, Err: err}
	}
}

func (c *Client) convert(ctx context.Context, in, out string, o lo.ConvertOptions) error {
	id, err := c.submit(ctx, in, o)
	if err != nil {
		return err
	}
	defer func() {
		// Cancels the job when this was interrupted; deletes it with its
		// files on the server when it is final (its PDF fetched or its
		// failure known): nothing stays there for --keep.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if resp, err := c.do(dctx, http.MethodDelete, "/jobs/"+id, nil, ""); err == nil {
			resp.Body.Close()
		}
	}()
	var timeout <-chan time.Time
	if o.Timeout > 0 {
		// The server's own file timeout applies to the conversion; this
		// bounds the wait for a server that says nothing.
		timeout = time.After(o.Timeout + time.Minute)
	}
	for {
		state, err := c.wait(ctx, id)
		if err != nil {
			return err
		}
		if state.State == "done" {
			return c.fetch(ctx, id, out)
		}
		if state.State == "failed" || state.State == "cancelled" {
			return &statusError{status: state.Status, msg: state.Error}
		}
		select {
		case <-timeout:
			return &statusError{status: http.StatusServiceUnavailable, msg: "the server did not finish in time"}
		default:
		}
	}
}

// submit sends the document as a job.
func (c *Client) submit(ctx context.Context, in string, o lo.ConvertOptions) (string, error) {
	f, err := os.Open(in)
	if err != nil {
		return "", err
	}
	defer f.Close()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		err := writeForm(mw, f, filepath.Base(in), o)
		pw.CloseWithError(errors.Join(err, mw.Close()))
	}()
	resp, err := c.do(ctx, http.MethodPost, "/jobs", pr, mw.FormDataContentType())
	pr.Close()
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return "", readError(resp)
	}
	var v struct {
		ID string `json:"id"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&v); err != nil || v.ID == "" {
		return "", fmt.Errorf("server %s: POST /jobs: no job id in the reply", c)
	}
	return v.ID, nil
}

// writeForm writes the document and the options as Gotenberg's form.
func writeForm(mw *multipart.Writer, f io.Reader, name string, o lo.ConvertOptions) error {
	fields := Fields(o)
	for _, k := range sortedKeys(fields) {
		if err := mw.WriteField(k, fields[k]); err != nil {
			return err
		}
	}
	part, err := mw.CreateFormFile("files", name)
	if err != nil {
		return err
	}
	_, err = io.Copy(part, f)
	return err
}

// jobState is what the client reads of GET /jobs/ID.
type jobState struct {
	State  string `json:"state"`
	Error  string `json:"error"`
	Status int    `json:"status"`
}

// wait asks for the job's state, the server holding the reply until the
// job is final or some seconds passed.
func (c *Client) wait(ctx context.Context, id string) (jobState, error) {
	resp, err := c.do(ctx, http.MethodGet, "/jobs/"+id+"?wait=20s", nil, "")
	if err != nil {
		return jobState{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return jobState{}, readError(resp)
	}
	var s jobState
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&s); err != nil {
		return s, fmt.Errorf("server %s: read job %s: %w", c, id, err)
	}
	return s, nil
}

// fetch writes the job's PDF at out.
func (c *Client) fetch(ctx context.Context, id, out string) error {
	resp, err := c.do(ctx, http.MethodGet, "/jobs/"+id+"/result", nil, "")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return readError(resp)
	}
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Errorf("server %s: read job %s's PDF: %w", c, id, err)
	}
	return f.Close()
}
