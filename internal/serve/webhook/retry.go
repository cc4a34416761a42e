package webhook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// maxReply is how much of a target's reply is read: enough to let the connection be reused for a short
// reply, never a large one.
const maxReply = 4 << 10

// StatusError is a reply whose status is not 2xx. Deliver's errors wrap it after the method and URL.
type StatusError struct {
	Status int
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("got status %d %s", e.Status, http.StatusText(e.Status))
	if e.Status >= 300 && e.Status < 400 {
		msg += " (redirects are not followed)"
	}
	return msg
}

// outgoing is one delivery; body is opened anew for each attempt.
type outgoing struct {
	method, url string
	header      http.Header
	body        func() (io.ReadCloser, int64, error)
}

// send tries o up to MaxAttempts times, waiting with exponential backoff and jitter between attempts that
// failed on the network, by timeout, or with 408, 429 or 5xx. ctx ends the waits and the attempts.
func (s *Sender) send(ctx context.Context, o outgoing) error {
	var err error
	for n := 1; ; n++ {
		var retryAfter time.Duration
		var retry bool
		retry, retryAfter, err = s.attempt(ctx, o)
		if err == nil {
			return nil
		}
		if !retry || n >= s.opt.MaxAttempts || ctx.Err() != nil {
			break
		}
		if werr := sleep(ctx, max(s.backoff(n), min(retryAfter, s.opt.Max))); werr != nil {
			err = errors.Join(err, werr)
			break
		}
	}
	return fmt.Errorf("webhook %s %s: %w", o.method, redact(o.url), err)
}

// attempt makes one request. It reports whether a failure is worth retrying, and the reply's Retry-After.
func (s *Sender) attempt(ctx context.Context, o outgoing) (retry bool, after time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.opt.AttemptTimeout)
	defer cancel()
	body, size, err := o.body()
	if err != nil {
		return false, 0, err
	}
	req, err := http.NewRequestWithContext(ctx, o.method, o.url, body)
	if err != nil {
		body.Close()
		return false, 0, err
	}
	req.ContentLength = size
	req.Header = o.header.Clone()
	resp, err := s.client.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // its message repeats the URL, query included
		}
		return !errors.Is(err, ErrRefused), 0, err
	}
	_, _ = io.CopyN(io.Discard, resp.Body, maxReply)
	resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return false, 0, nil
	}
	retry = resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
	return retry, retryAfter(resp.Header.Get("Retry-After")), &StatusError{Status: resp.StatusCode}
}

// backoff is the wait after the n-th failed attempt: Base doubled n-1 times, at most Max, with the upper
// half jittered so that many deliveries failing together do not retry together.
func (s *Sender) backoff(n int) time.Duration {
	d := s.opt.Max
	if n-1 < 32 {
		d = min(s.opt.Base<<(n-1), s.opt.Max)
	}
	if d <= 0 { // overflowed
		d = s.opt.Max
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// retryAfter reads a Retry-After header given in seconds (its date form is ignored).
func retryAfter(v string) time.Duration {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0
	}
	if n > int(math.MaxInt64/time.Second) { // n seconds overflow a Duration
		return math.MaxInt64
	}
	return time.Duration(n) * time.Second
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}

// redact drops a URL's query, fragment and password, which must not reach logs.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(bad URL)"
	}
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", false, "", ""
	return u.Redacted()
}
