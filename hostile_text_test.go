package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"calq/internal/proc"
)

// Issue 23's text cases: what came from outside (a submitter's label, a
// command line, a job file, an SMS, the environment) is taken as bytes
// and printed so that it cannot forge a line or move the cursor.

// runCalq runs calq with args and stdin, and returns its stdout, stderr
// and exit status.
func runCalq(t *testing.T, env []string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := calqCmd(t, args...)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// TestHostileJobFiles: a job file's byte order mark is not run; a line
// no shell can be given is a usage error naming the file, the line and
// the limit, before any job runs; the longest line that is taken runs.
func TestHostileJobFiles(t *testing.T) {
	dir := t.TempDir()
	journal := filepath.Join(dir, "j.db")
	marker := filepath.Join(dir, "ran")
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bom := write("bom.txt", "\uFEFFecho first\n")
	out, errs, code := runCalq(t, nil, "", "sched", "run", "--db", journal, bom)
	if code != 0 || out != "first\n" {
		t.Errorf("job file with a BOM: exit %d, stdout %q, stderr %q; want exit 0, \"first\\n\"", code, out, errs)
	}
	touch := "touch " + marker
	for _, tt := range []struct {
		name, text string
		line       int
	}{
		{"1mib.txt", touch + "\n" + strings.Repeat("x", 1<<20) + "\n", 2},
		{"over.txt", touch + "\n\n# c\n: " + strings.Repeat("x", proc.MaxShellLine-1) + "\n", 4},
	} {
		p := write(tt.name, tt.text)
		out, errs, code := runCalq(t, nil, "", "sched", "run", "--db", journal, p)
		want := "job file " + p + ": line " + strconv.Itoa(tt.line) + ": longer than " + strconv.Itoa(proc.MaxShellLine) + " bytes"
		if code != 2 || !strings.Contains(errs, want) || strings.Contains(errs, "token too long") {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and %q", tt.name, code, errs, want)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%s: a job ran before the usage error (stdout %q)", tt.name, out)
		}
	}
	long := strings.Repeat("x", proc.MaxShellLine-5)
	p := write("longest.txt", "echo "+long+"\n")
	out, errs, code = runCalq(t, nil, "", "sched", "run", "--db", journal, p)
	if code != 0 || out != long+"\n" {
		t.Errorf("the longest line: exit %d, %d bytes out, stderr %.200q; want exit 0 and its output", code, len(out), errs)
	}
	_, errs, code = runCalq(t, nil, "", "sched", "run", "--db", journal, "--", "echo", long+"xx")
	if code != 2 || !strings.Contains(errs, "--: the command line: longer than") {
		t.Errorf("-- COMMAND too long: exit %d, stderr %.300q; want a usage error", code, errs)
	}
}

// TestInheritedProcVariables: the re-exec variables in calq's
// environment do not make a command a silent no-op with exit 0.
func TestInheritedProcVariables(t *testing.T) {
	for _, v := range []string{"CALQ_PROC_KEEPER=1", "CALQ_PROC_KEEPER=" + strconv.Itoa(os.Getpid()), "CALQ_PROC_GUARD=" + strconv.Itoa(os.Getpid())} {
		dir := t.TempDir()
		out, errs, code := runCalq(t, []string{v}, "", "sched", "run", "--db", filepath.Join(dir, "j.db"), "--", "echo ran; env | grep CALQ_PROC || true")
		if code != 0 || out != "ran\n" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want the job run, with no CALQ_PROC_ variable", v, code, out, errs)
		}
		_, errs, code = runCalq(t, []string{v}, "", "sched", "run", "--no-such-flag")
		if code != 2 {
			t.Errorf("%s: a usage error exits %d, stderr %q; want 2", v, code, errs)
		}
	}
}
