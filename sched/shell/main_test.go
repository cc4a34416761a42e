package shell

import (
	"os"
	"strings"
	"testing"

	"calq/internal/proc"
)

func TestMain(m *testing.M) {
	// First thing: Worker's guards are this test binary run again.
	proc.MaybeRunGuard()
	// Under -race every exit with status 0 sleeps 1 s to let reports
	// drain; each guard would pay it.
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	os.Exit(m.Run())
}
