package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"calq/internal/proc"
	"calq/sms/pdu"
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
	for _, v := range []string{"CALQ_PROC_KEEPER=1", "CALQ_PROC_KEEPER=" + strconv.Itoa(os.Getpid()), "CALQ_PROC_GUARD=" + strconv.Itoa(os.Getpid()),
		"CALQ_PROC_HELPER=pdf:1:" + strconv.Itoa(os.Getpid())} {
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

// noRawControl fails the test if text holds a control character other
// than newline and tab, or a line starting with forged.
func noRawControl(t *testing.T, what, text, forged string) {
	t.Helper()
	for _, c := range text {
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f || c >= 0x80 && c < 0xa0 {
			t.Errorf("%s: a raw control character %U in %q", what, c, text)
			return
		}
	}
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), forged) {
			t.Errorf("%s: a forged line %q in %q", what, l, text)
		}
	}
}

// TestTerminalInjection: a submitter's label and command line, printed
// in the failure line of sched run and in history's KEY and WHAT
// columns, have their control characters escaped; the job's own output
// stays as it is.
func TestTerminalInjection(t *testing.T) {
	dir := t.TempDir()
	journal := filepath.Join(dir, "j.db")
	label := "nightly\x1b]0;pwned\x07\rcalq: done [1/1] forged"
	jobs := filepath.Join(dir, "jobs.txt")
	if err := os.WriteFile(jobs, []byte("printf 'raw\\033[0m\\n'; exit 1 # \x1b[2J\x1b[Hcalq: done forged\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCalq(t, nil, "", "sched", "run", "--db", journal, "--journal", "--retries", "0", "--label", label, jobs)
	if code != 1 {
		t.Fatalf("sched run: exit %d, stderr %q; want 1", code, errs)
	}
	if out != "raw\x1b[0m\n" {
		t.Errorf("the job's own output %q, want it unchanged", out)
	}
	noRawControl(t, "sched run's stderr", errs, "calq: done")
	if !strings.Contains(errs, `\x1b[2J\x1b[Hcalq: done forged`) {
		t.Errorf("sched run's failure line does not show the command escaped: %q", errs)
	}
	out, errs, code = runCalq(t, nil, "", "history", "--db", journal)
	if code != 0 || !strings.Contains(out, `nightly\x1b]0;pwned\a\rcalq: done [1/1] forged`) {
		t.Errorf("history: exit %d, stdout %q, stderr %q; want the label escaped in KEY", code, out, errs)
	}
	noRawControl(t, "history", out, "calq: done")
}

// TestSMSTextInjection: the text of a received SMS is printed with its
// lines indented and its control characters escaped: it cannot forge a
// header line nor drive the terminal.
func TestSMSTextInjection(t *testing.T) {
	dir := t.TempDir()
	text := "hi\x1b[2J\x1b]0;owned\x07\r#9 message from +4911 via gsm1, sent now\nsecond line"
	dev := startEmulator(t, dir, "--inbox", deliverInbox(t, dir, text))
	out, errs, code := runCalq(t, nil, "", "sms", "recv", "--db", filepath.Join(dir, "sms.db"), "--device", dev)
	if code != 0 {
		t.Fatalf("sms recv: exit %d, stderr %q", code, errs)
	}
	want := "\thi\\x1b[2J\\x1b]0;owned\\a\\r#9 message from +4911 via gsm1, sent now\n\tsecond line\n"
	if !strings.HasPrefix(out, "#1 message from +491701234567 via ") || !strings.HasSuffix(out, want) {
		t.Errorf("sms recv printed %q, want the header and then %q", out, want)
	}
	noRawControl(t, "sms recv", out, "#9")
}

// deliverInbox writes in dir an inbox file for calq sms emulate --inbox
// holding text as an SMS from +491701234567, and returns its path.
func deliverInbox(t *testing.T, dir, text string) string {
	t.Helper()
	pdus, err := pdu.EncodeDeliver("+491701234567", text, time.Date(2025, 2, 28, 9, 31, 0, 0, time.UTC), pdu.DeliverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	inbox := filepath.Join(dir, "inbox.txt")
	if err := os.WriteFile(inbox, []byte(strings.Join(pdus, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return inbox
}
