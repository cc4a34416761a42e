package smscmd

import (
	"strings"
	"testing"
	"time"
)

// TestParseValidity: periods in Go's form, days and weeks; a count of
// days or weeks too large for a duration is refused, not wrapped round
// (213504d once became a few hours and was accepted).
func TestParseValidity(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{"30m", 30 * time.Minute, ""},
		{"3d", 72 * time.Hour, ""},
		{"2w", 14 * 24 * time.Hour, ""},
		{"441w", 0, "not between 0 and 63 weeks"},
		{"106752d", 0, "not between 0 and 63 weeks"},
		{"213504d", 0, "not between 0 and 63 weeks"},
		{"30000000000w", 0, "not between 0 and 63 weeks"},
		{"soon", 0, "is neither a period"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, _, err := parseValidity(tt.in)
			switch {
			case tt.wantErr == "" && (err != nil || got != tt.want):
				t.Errorf("parseValidity(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("parseValidity(%q) = %v, %v; want an error with %q", tt.in, got, err, tt.wantErr)
			}
		})
	}
}
