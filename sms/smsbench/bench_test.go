package smsbench

import (
	"context"
	"testing"
	"time"
)

// TestBenchRuns runs a small Run to check it works; its figures are not
// asserted (performance goals live in `calq sms bench`, not in timed tests).
func TestBenchRuns(t *testing.T) {
	res, err := Run(context.Background(), Options{Dir: t.TempDir(), Latency: 5 * time.Millisecond,
		Modems: []int{1, 2}, PerModem: 5, Own: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 || res.Rows[0].Ratio != 1 || res.OwnPerMessage <= 0 {
		t.Errorf("got %+v, want 2 rows, the first with ratio 1, and an own time", res)
	}
	// Without 1 in the list, one modem is measured first all the same:
	// every ratio is to it.
	res, err = Run(context.Background(), Options{Dir: t.TempDir(), Latency: 5 * time.Millisecond,
		Modems: []int{2}, PerModem: 5, Own: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 || res.Rows[0].Modems != 1 || res.Rows[1].Modems != 2 {
		t.Errorf("got rows %+v, want one modem's, then two's", res.Rows)
	}
}
