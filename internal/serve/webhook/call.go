package webhook

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// Try makes one attempt of a request with body (nil: none) to url through
// the Sender's policy, for callers that keep their own durable retries
// (calq serve's SMS pushes, owed in the journal). It reports whether a
// failure is worth retrying (the network, a timeout, 408, 429 or 5xx)
// and the reply's Retry-After, at most the longest backoff (Options.Max);
// a URL the policy refuses is not.
func (s *Sender) Try(ctx context.Context, method, url, contentType string, body []byte) (retry bool, after time.Duration, err error) {
	h := http.Header{"User-Agent": {s.opt.UserAgent}}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	retry, after, err = s.attempt(ctx, outgoing{method: method, url: url, header: h, body: bytesBody(body)})
	if err != nil {
		return retry, min(after, s.opt.Max), fmt.Errorf("webhook %s %s: %w", method, redact(url), err)
	}
	return false, 0, nil
}

// Backoff is the wait after the n-th failed attempt (n from 1): Options'
// Base doubled n-1 times, at most Max, jittered.
func (s *Sender) Backoff(n int) time.Duration { return s.backoff(n) }

// Attempts is how many attempts a target gets: Options.MaxAttempts, 4
// by default.
func (s *Sender) Attempts() int { return s.opt.MaxAttempts }
