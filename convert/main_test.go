package convert

import (
	"os"
	"testing"

	"calq/internal/proc"
)

// TestMain lets the test binary act as internal/proc's guard, which every
// LibreOffice process runs under.
func TestMain(m *testing.M) {
	proc.MaybeRunGuard()
	os.Exit(m.Run())
}
