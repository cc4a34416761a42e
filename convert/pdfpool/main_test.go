package pdfpool

import (
	"os"
	"testing"
	"time"

	"calq/internal/proc"
)

// TestMain lets the test binary act as the pdf helper (and as
// internal/proc's guard).
func TestMain(m *testing.M) {
	proc.MaybeRunGuard()
	os.Exit(m.Run())
}

// The test binary's own operations, for what real PDFs cannot provoke
// on demand: a helper that works until it is stopped, one that dies of a
// panic, and one that grows by 16 MiB every 10 ms.
func init() {
	ops["block"] = func(r request) reply { select {} }
	ops["panic"] = func(r request) reply { panic("the test's panic") }
	ops["grow"] = func(r request) reply {
		var keep [][]byte
		for {
			b := make([]byte, 16<<20)
			for i := range b {
				b[i] = 1
			}
			keep = append(keep, b)
			time.Sleep(10 * time.Millisecond)
		}
	}
}
