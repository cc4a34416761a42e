package smscmd

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"calq/sms"
)

// TestWriteModemsBreaker: a modem a daemon holds shows its circuit
// breaker and since when, in the table and in --json; a modem surveyed
// now has none.
func TestWriteModemsBreaker(t *testing.T) {
	since := time.Date(2026, 11, 29, 9, 30, 0, 0, time.UTC)
	held := sms.DaemonModem{ModemStatus: sms.ModemStatus{Name: "m0", Device: "/dev/ttyUSB0", State: sms.ModemReady, Signal: 20,
		Breaker: sms.BreakerOpen, BreakerSince: since}, PID: 42, Host: "gw1", Updated: since}
	rows := []modemRow{
		{held.ModemStatus, &held},
		{sms.ModemStatus{Name: "m1", Device: "/dev/ttyUSB1", State: sms.ModemReady, Signal: 20}, nil},
	}
	for _, tc := range []struct {
		name   string
		asJSON bool
		want   []string // one per row, in its line
		not    string   // in the second row's line
	}{
		{"table", false, []string{"ready (calq sms daemon, pid 42, breaker open since " + since.Local().Format(time.DateTime) + ")", "m1"}, "breaker"},
		{"json", true, []string{`"breaker":"open","breaker_since":"2026-11-29T09:30:00Z"`, `"name":"m1"`}, "breaker"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeModems(&b, rows, tc.asJSON); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(b.String()), "\n")
			if !tc.asJSON {
				lines = lines[1:] // the header
			}
			if len(lines) != 2 {
				t.Fatalf("got %d lines, want 2:\n%s", len(lines), b.String())
			}
			for i, want := range tc.want {
				if !strings.Contains(lines[i], want) {
					t.Errorf("got line %q, want %q in it", lines[i], want)
				}
			}
			if strings.Contains(lines[1], tc.not) {
				t.Errorf("got line %q, want no %q in it: no daemon holds m1", lines[1], tc.not)
			}
		})
	}
}
