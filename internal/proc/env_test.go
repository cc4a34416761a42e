//go:build linux

package proc

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"calq/internal/childenv"
)

// TestNoSecretsInEnviron: calq's secrets, set in calq's environment,
// reach neither the command nor its guard (/proc/PID/environ), whether
// the command inherits calq's environment or is given one holding them:
// calq's own variables, those the run hid (a config's pin_env, libpq's
// PGPASSWORD), and the password in CALQ_DB. The rest of the environment
// is passed on, CALQ_DB without its password.
func TestNoSecretsInEnviron(t *testing.T) {
	setSecrets(t)
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
				checkEnviron(t, tt.name+": /proc/"+strconv.Itoa(pid)+"/environ", strings.Split(env, "\x00"))
			}
			cancel()
			cmd.Wait()
		}
	})
}

// TestChildEnv: a Child, which runs without a guard, gets no secret
// either.
func TestChildEnv(t *testing.T) {
	setSecrets(t)
	out, err := Child(t.Context(), Options{}, "/usr/bin/env").Output()
	if err != nil {
		t.Fatal(err)
	}
	checkEnviron(t, "Child's env", strings.Split(string(out), "\n"))
}

// setSecrets sets a secret of each kind in calq's environment for the
// test, hides the run's (childenv.Hide, as calq does once per command),
// and sets PROC_TEST_KEPT, which is not a secret.
func setSecrets(t *testing.T) {
	t.Setenv("CALQ_OWNER_PASSWORD", "owner-secret")
	t.Setenv("CALQ_USER_PASSWORD", "user-secret")
	t.Setenv("CALQ_SMTP_PASSWORD", "smtp-secret")
	t.Setenv("GSM1_PIN", "pin-secret")
	t.Setenv("PGPASSWORD", "pg-secret")
	t.Setenv("CALQ_DB", "postgres://calq:db-secret@db/calq")
	t.Setenv("PROC_TEST_KEPT", "kept")
	childenv.Hide("GSM1_PIN", "PGPASSWORD")
	t.Cleanup(func() { childenv.Hide() })
}

// checkEnviron fails the test if env holds a secret the tests above set,
// or lacks what is not a secret.
func checkEnviron(t *testing.T, what string, env []string) {
	t.Helper()
	for _, kv := range env {
		for _, bad := range []string{"owner-secret", "user-secret", "smtp-secret", "4711", "pin-secret", "pg-secret", "db-secret"} {
			if strings.Contains(kv, bad) {
				t.Errorf("%s holds %q", what, kv)
			}
		}
	}
	for _, want := range []string{"PROC_TEST_KEPT=kept", "CALQ_DB=postgres://calq@db/calq"} {
		if !slices.Contains(env, want) {
			t.Errorf("%s lacks %s", what, want)
		}
	}
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
