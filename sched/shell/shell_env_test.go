//go:build linux

package shell

import (
	"strings"
	"testing"

	"calq/sched"
)

// TestShellWorkerSecrets: a job inherits calq's environment, but not the
// passwords calq reads from it (issue 12), whether its Env is nil or
// holds them.
func TestShellWorkerSecrets(t *testing.T) {
	t.Setenv("CALQ_OWNER_PASSWORD", "owner-secret")
	t.Setenv("CALQ_SMTP_PASSWORD", "smtp-secret")
	t.Setenv("SCHED_TEST_KEPT", "kept")
	for _, env := range [][]string{nil, {"CALQ_USER_PASSWORD=user-secret", "SCHED_TEST_KEPT=kept"}} {
		var stdout string
		w := Worker{Env: env, Output: func(_ *sched.Job, o, _ []byte) { stdout = string(o) }}
		if err := w.Run(t.Context(), &sched.Job{Payload: []byte("env")}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(stdout, "secret") || !strings.Contains(stdout, "SCHED_TEST_KEPT=kept\n") {
			t.Errorf("Env %q: the job saw:\n%s\nwant SCHED_TEST_KEPT and no password", env, stdout)
		}
	}
}
