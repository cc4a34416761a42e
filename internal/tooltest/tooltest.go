// Package tooltest lets tests that need an external program (soffice,
// gammu) skip on a machine without it, except in CI: there
// CALQ_REQUIRE_TOOLS=1 turns the skip into a failure.
package tooltest

import (
	"os"
	"os/exec"
	"testing"
)

// RequireEnv is the variable that makes a missing tool fail the test.
const RequireEnv = "CALQ_REQUIRE_TOOLS"

// Require returns the path of program name, found in PATH. Without it the
// test is skipped, or fails when CALQ_REQUIRE_TOOLS=1.
func Require(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	Unavailable(t, "%s not installed: %v", name, err)
	return ""
}

// Unavailable skips a test that this machine cannot run (no
// pseudo-terminal, no sparse files, no tmpfs), or fails it when
// CALQ_REQUIRE_TOOLS=1, so that CI never skips it silently.
func Unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("required (%s=1), but "+format, append([]any{RequireEnv}, args...)...)
		return
	}
	t.Skipf(format, args...)
}
