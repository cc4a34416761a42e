package mail

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"calq/internal/config"
	"calq/internal/exitcode"
)

// TestFinish: an interrupted run holds its PDFs; a delivery that fails
// after a run without error is a partial failure with a hint, after a
// failed run it only joins the run's error.
func TestFinish(t *testing.T) {
	out := t.TempDir()
	pdf := filepath.Join(out, "a.pdf")
	must(t, os.WriteFile(pdf, []byte("%PDF-1.7\n"), 0o644))
	// Without a sender address every Send fails, before it dials.
	d := &Delivery{smtp: config.SMTP{Host: "127.0.0.1"}, to: []string{"boss@example.com"}, out: out}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	runErr := errors.New("b.docx: not a document")
	tests := []struct {
		name            string
		ctx             context.Context
		written         []string
		runErr          error
		state, reason   string
		partial, hinted bool
	}{
		{"interrupted", cancelled, []string{pdf}, nil, "not_sent", interrupted, false, false},
		{"nothing new", context.Background(), nil, nil, "not_sent", "nothing new was converted", false, false},
		{"only mail failed", context.Background(), []string{pdf}, nil, "failed", "", true, true},
		{"run failed too", context.Background(), []string{pdf}, runErr, "failed", "", false, false},
	}
	for _, tt := range tests {
		res, err := d.Finish(tt.ctx, tt.written, "", tt.runErr, time.Now())
		if res.State != tt.state || (tt.reason != "" && res.Reason != tt.reason) {
			t.Errorf("%s: Result %q (%q), want %q (%q)", tt.name, res.State, res.Reason, tt.state, tt.reason)
		}
		if tt.runErr != nil && !errors.Is(err, tt.runErr) {
			t.Errorf("%s: error %v, want the run's", tt.name, err)
		}
		if got := errors.Is(err, exitcode.ErrPartial); got != tt.partial {
			t.Errorf("%s: errors.Is(%v, ErrPartial) = %t, want %t", tt.name, err, got, tt.partial)
		}
		var de *DeliveryError
		if got := errors.As(err, &de) && de.Hint() != ""; got != tt.hinted {
			t.Errorf("%s: hinted %t, want %t (error %v)", tt.name, got, tt.hinted, err)
		}
		if tt.state == "failed" && err == nil {
			t.Errorf("%s: no error for a failed mail", tt.name)
		}
	}
}
