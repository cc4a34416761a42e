package smscmd

import (
	"io"
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
	cmd := emulateCommand()
	var (
		got emu.Options
		err error
		ran bool
	)
	cmd.Action = func(c *cli.Context) error {
		var closeLogs func()
		got, closeLogs, err = emulateOptions(c)
		if closeLogs != nil {
			closeLogs()
		}
		ran = true
		return nil
	}
	app := &cli.App{Name: "calq", Commands: []*cli.Command{cmd}, Writer: io.Discard, ErrWriter: io.Discard}
	if rerr := app.Run(append([]string{"calq", "emulate"}, args...)); rerr != nil {
		t.Fatalf("calq emulate %q: %v", args, rerr)
	}
	if !ran {
		t.Fatalf("calq emulate %q: the Action did not run", args)
	}
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
