package smscmd

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"calq/sms/emu"
)

// parseEmulate reads the options of calq sms emulate from args as its
// Action does, without starting modems.
func parseEmulate(t *testing.T, args []string) (emu.Options, error) {
	t.Helper()
	var (
		got emu.Options
		err error
	)
	runLeaf(t, emulateCommand(), args, "", func(c *cli.Context) {
		var closeLogs func()
		if got, closeLogs, err = emulateOptions(c); closeLogs != nil {
			closeLogs()
		}
	})
	return got, err
}

// TestEmulateReportOptions: --report-delay (2s by default, 0 at once)
// and --report-fail-rate reach emu.Options; values outside their range
// are refused naming the flag.
func TestEmulateReportOptions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		delay   time.Duration
		rate    float64
		wantErr string
	}{
		{"defaults", nil, 2 * time.Second, 0, ""},
		{"at once", []string{"--report-delay", "0"}, 0, 0, ""},
		{"set", []string{"--report-delay", "150ms", "--report-fail-rate", "0.25"}, 150 * time.Millisecond, 0.25, ""},
		{"all fail", []string{"--report-fail-rate", "1"}, 2 * time.Second, 1, ""},
		{"negative delay", []string{"--report-delay", "-1s"}, 0, 0, "--report-delay: -1s is negative"},
		{"rate over 1", []string{"--report-fail-rate", "1.5"}, 0, 0, "--report-fail-rate: 1.5 is not between 0 and 1"},
		{"rate under 0", []string{"--report-fail-rate", "-0.1"}, 0, 0, "--report-fail-rate: -0.1 is not between 0 and 1"},
		{"rate NaN", []string{"--report-fail-rate", "NaN"}, 0, 0, "--report-fail-rate: NaN is not between 0 and 1"},
		{"submit fail rate NaN", []string{"--fail-rate", "NaN"}, 0, 0, "--fail-rate: NaN is not between 0 and 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseEmulate(t, tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.ReportDelay != tc.delay || o.ReportFailRate != tc.rate || math.IsNaN(o.ReportFailRate) {
				t.Errorf("got delay %v, rate %v; want %v, %v", o.ReportDelay, o.ReportFailRate, tc.delay, tc.rate)
			}
		})
	}
}
