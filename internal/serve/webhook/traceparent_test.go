package webhook

import (
	"context"
	"net/http"
	"regexp"
	"testing"
)

// TestTraceParent: the W3C traceparent of the request goes on with every
// delivery of its outcome: the caller's trace id and flags, a parent id of
// calq's own; a malformed one starts no trace, as W3C Trace Context says.
func TestTraceParent(t *testing.T) {
	const given = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	tests := []struct {
		name, header string
		want         *regexp.Regexp // nil: no traceparent sent
	}{
		{"given", given, regexp.MustCompile(`^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$`)},
		{"unsampled", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00", regexp.MustCompile(`^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-00$`)},
		{"absent", "", nil},
		{"upper case", "00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01", nil},
		{"a zero trace id", "00-00000000000000000000000000000000-b7ad6b7169203331-01", nil},
		{"a zero parent id", "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01", nil},
		{"version ff", "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", nil},
		{"short", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b71-01", nil},
		{"a newline", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\nX: y", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			upload, failure, events := newTarget(t), newTarget(t), newTarget(t)
			h := http.Header{}
			h.Set(HeaderURL, upload.URL)
			h.Set(HeaderErrorURL, failure.URL)
			h.Set(HeaderEventsURL, events.URL)
			if tt.header != "" {
				h["Traceparent"] = []string{tt.header}
			}
			req, err := ParseHeaders(h)
			if err != nil {
				t.Fatal(err)
			}
			s := loopbackSender(t, Options{})
			ok := Result{Trace: "t", Path: writeFile(t, "a.pdf", []byte("%PDF-1.7\n"))}
			if err := s.Deliver(context.Background(), req, ok); err != nil {
				t.Fatal(err)
			}
			if err := s.Deliver(context.Background(), req, Result{Trace: "t", Failure: &Failure{Status: 400, Message: "no"}}); err != nil {
				t.Fatal(err)
			}
			var parents []string
			for _, tg := range []*target{upload, failure, events} {
				for _, r := range tg.requests() {
					got := r.Header.Get("Traceparent")
					switch {
					case tt.want == nil && got != "":
						t.Errorf("got traceparent %q, want none", got)
					case tt.want != nil && !tt.want.MatchString(got):
						t.Errorf("got traceparent %q, want %v", got, tt.want)
					case tt.want != nil && got == tt.header:
						t.Errorf("got traceparent %q, the caller's own parent id; want calq's", got)
					}
					parents = append(parents, got)
				}
			}
			if len(parents) != 4 {
				t.Errorf("got %d deliveries, want 4 (upload, error, two events)", len(parents))
			}
		})
	}
}
