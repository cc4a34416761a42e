package webhook

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestTry: one attempt per call, with whether to retry, through the
// policy.
func TestTry(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		status    int
		wantErr   bool
		wantRetry bool
	}{
		{"ok", http.StatusOK, false, false},
		{"server error", http.StatusBadGateway, true, true},
		{"too many", http.StatusTooManyRequests, true, true},
		{"not found", http.StatusNotFound, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg := newTarget(t, tt.status)
			s := loopbackSender(t, Options{})
			retry, _, err := s.Try(ctx, http.MethodPost, tg.URL+"/r?secret=1", "application/json", []byte(`{"a":1}`))
			if (err != nil) != tt.wantErr || retry != tt.wantRetry {
				t.Errorf("Try = %v, %v, want error %v, retry %v", retry, err, tt.wantErr, tt.wantRetry)
			}
			got := tg.requests()
			if len(got) != 1 || string(got[0].Body) != `{"a":1}` || got[0].Header.Get("Content-Type") != "application/json" {
				t.Errorf("requests = %+v, want one JSON POST", got)
			}
		})
	}
	tg := newTarget(t)
	retry, _, err := NewSender(nil, Options{}).Try(ctx, http.MethodGet, tg.URL, "", nil)
	if !errors.Is(err, ErrRefused) || retry {
		t.Errorf("Try to loopback without an allow list = %v, %v, want ErrRefused, no retry", retry, err)
	}
}

// TestRetryAfter: a Retry-After in seconds, however large, is a wait that
// is not negative (9223372037 s once wrapped round to a negative
// duration), and Try bounds it by the Sender's longest backoff.
func TestRetryAfter(t *testing.T) {
	tests := []struct {
		header string
		want   time.Duration
	}{
		{"", 0},
		{"soon", 0},
		{"-5", 0},
		{"120", 2 * time.Minute},
		{"9223372037", math.MaxInt64},
		{"99999999999999999999", 0}, // not an int: ignored
	}
	for _, tt := range tests {
		if got := retryAfter(tt.header); got != tt.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
	tg := newRetryAfterTarget(t, "9223372037")
	s := loopbackSender(t, Options{Base: time.Second, Max: time.Minute})
	_, after, err := s.Try(context.Background(), http.MethodPost, tg, "", nil)
	if err == nil || after != time.Minute {
		t.Errorf("Try against Retry-After 9223372037 = %v, %v; want an error and a wait of the longest backoff, 1m", after, err)
	}
}

// newRetryAfterTarget is a loopback server that answers 429 with the
// given Retry-After.
func newRetryAfterTarget(t *testing.T, after string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", after)
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
