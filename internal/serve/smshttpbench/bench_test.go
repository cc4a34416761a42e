package smshttpbench

import (
	"context"
	"testing"
	"time"
)

// TestRunShape runs the bench at a tiny size and checks the shape of its
// result: a row per path, the baseline's ratio 1, each path's messages
// all sent, and report times measured (no timing is asserted).
func TestRunShape(t *testing.T) {
	res, err := Run(context.Background(), Options{Dir: t.TempDir(), Modems: 2, Latency: 5 * time.Millisecond, PerModem: 3, Reports: 3})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, r := range res.Rows {
		paths = append(paths, r.Path)
		if r.Messages != 6 || r.PerSecond <= 0 {
			t.Errorf("%s: %d messages at %v a second, want 6 at some rate", r.Path, r.Messages, r.PerSecond)
		}
	}
	if len(paths) != 3 || paths[0] != PathCLI || paths[1] != PathAPI || paths[2] != PathSendSMS {
		t.Errorf("rows %q, want %q, %q, %q", paths, PathCLI, PathAPI, PathSendSMS)
	}
	if len(res.Rows) > 0 && (res.Rows[0].Ratio != 1 || res.Rows[0].Goal != 0) {
		t.Errorf("the baseline's row %+v, want ratio 1 and no goal", res.Rows[0])
	}
	if res.Reports != 3 || res.ReportMedian <= 0 || res.ReportP90 < res.ReportMedian || res.ReportGoal != ReportGoal {
		t.Errorf("report times: %d, median %v, p90 %v, goal %v", res.Reports, res.ReportMedian, res.ReportP90, res.ReportGoal)
	}
}
