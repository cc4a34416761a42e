//go:build linux

package proc

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestNoSecretsInEnviron: calq's secrets, set in calq's environment,
// reach neither the command nor its guard (/proc/PID/environ), whether
// the command inherits calq's environment or is given one holding them;
// the rest of the environment is passed on.
func TestNoSecretsInEnviron(t *testing.T) {
	t.Setenv("CALQ_OWNER_PASSWORD", "owner-secret")
	t.Setenv("CALQ_USER_PASSWORD", "user-secret")
	t.Setenv("CALQ_SMTP_PASSWORD", "smtp-secret")
	t.Setenv("PROC_TEST_KEPT", "kept")
	tests := []struct {
		name string
		env  []string
	}{
		{"inherited", nil},
		{"given", append(os.Environ(), "CALQ_SMS_PIN=4711")},
	}
	modes(t, func(t *testing.T) {
		for _, tt := range tests {
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(t.Context())
			// The shell stays: read while it exec'd a program, its environ
			// would be empty for a moment. The pid is written whole.
			cmd := Command(ctx, Options{Dir: dir, Env: tt.env}, "sh", "-c",
				"sleep 300 & echo $$ > pids.tmp && mv pids.tmp pids; wait")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pids := append(waitPids(t, dir, 1), cmd.Process.Pid) // the command, and its guard if any
			for _, pid := range pids {
				b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
				if err != nil {
					t.Fatalf("%s: %v", tt.name, err)
				}
				env := string(b)
				for _, bad := range []string{"owner-secret", "user-secret", "smtp-secret", "4711"} {
					if strings.Contains(env, bad) {
						t.Errorf("%s: /proc/%d/environ holds %q", tt.name, pid, bad)
					}
				}
				if !strings.Contains(env, "\x00PROC_TEST_KEPT=kept\x00") {
					t.Errorf("%s: /proc/%d/environ lacks PROC_TEST_KEPT=kept", tt.name, pid)
				}
			}
			cancel()
			cmd.Wait()
		}
	})
}

// TestEmptyEnvStaysEmpty: an empty, non-nil environment is not taken for
// "calq's".
func TestEmptyEnvStaysEmpty(t *testing.T) {
	t.Setenv("PROC_TEST_KEPT", "kept")
	out, err := Command(t.Context(), Options{Env: []string{}}, "/usr/bin/env").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "PROC_TEST_KEPT") {
		t.Errorf("env printed %q, want no variable of calq's", out)
	}
}
