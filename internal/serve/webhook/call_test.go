package webhook

import (
	"context"
	"errors"
	"net/http"
	"testing"
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
