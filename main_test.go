package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/internal/exitcode"
	"calq/internal/proc"
	"calq/sched"
	"calq/sched/journal"
	"calq/sched/schedbench"
	"calq/sms"
)

func TestMain(m *testing.M) {
	proc.MaybeRunGuard()
	testscript.Main(m, map[string]func(){"calq": main})
}

// TestScript runs the CLI end-to-end tests in testdata/script.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Condition:           toolCondition,
		Setup: func(e *testscript.Env) error {
			// Under -race every exit sleeps 1 s to let reports drain;
			// each exec would pay it.
			e.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			// calq convert keeps LibreOffice's profiles in the user's
			// cache; testscript's HOME is /no-home.
			e.Setenv("XDG_CACHE_HOME", filepath.Join(e.WorkDir, ".cache"))
			// $DATA holds the documents of testdata/convert.
			data, err := filepath.Abs(filepath.Join("testdata", "convert"))
			e.Setenv("DATA", data)
			return err
		},
		Cmds: withCmds(pdfScriptCmds, map[string]func(*testscript.TestScript, bool, []string){
			"exitcode":    cmdExitCode,
			"validjson":   cmdValidJSON,
			"seedjournal": cmdSeedJournal,
			"jsonlines":   cmdJSONLines,
			"daemonholds": cmdDaemonHolds,
		}),
	})
}

// withCmds merges script command tables.
func withCmds(a, b map[string]func(*testscript.TestScript, bool, []string)) map[string]func(*testscript.TestScript, bool, []string) {
	for k, v := range a {
		b[k] = v
	}
	return b
}

// cmdExitCode implements "exitcode N program [args...]": it runs program
// like exec and checks that it exits with status N, which "! exec" cannot.
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	got := 0
	var ee *exec.ExitError
	if err := ts.Exec(args[1], args[2:]...); errors.As(err, &ee) {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// toolCondition implements the script condition [tool:PROGRAM]: whether
// PROGRAM is on PATH. Under CALQ_REQUIRE_TOOLS=1 a missing one is an
// error, so that "[!tool:soffice] skip" fails instead of skipping.
func toolCondition(cond string) (bool, error) {
	name, ok := strings.CutPrefix(cond, "tool:")
	if !ok {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CALQ_REQUIRE_TOOLS") == "1" {
			return false, fmt.Errorf("%s is not installed, and CALQ_REQUIRE_TOOLS=1", name)
		}
		return false, nil
	}
	return true, nil
}

// cmdJSONLines implements "jsonlines": the last command's stdout must be
// JSON Lines as calq prints them: at least one line, each one JSON object
// with a non-empty string "message_type".
func cmdJSONLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: jsonlines")
	}
	out := ts.ReadFile("stdout")
	if out == "" {
		ts.Fatalf("stdout is empty, want JSON Lines")
	}
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			ts.Fatalf("stdout line %d is not a JSON object (%v): %s", i+1, err, line)
		}
		if mt, _ := m["message_type"].(string); mt == "" {
			ts.Fatalf("stdout line %d has no message_type: %s", i+1, line)
		}
	}
}

// cmdValidJSON implements "validjson": the last command's stdout must be
// one JSON value.
func cmdValidJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 0 {
		ts.Fatalf("usage: validjson")
	}
	if valid := json.Valid([]byte(ts.ReadFile("stdout"))); valid == neg {
		ts.Fatalf("stdout is valid JSON: %v, want %v", valid, !neg)
	}
}

// cmdSeedJournal implements "seedjournal [-split] DBPATH N": it records N
// jobs in batch seed#1 of the journal at DBPATH, enqueued from three days
// ago one second apart, kinds shell and convert in turn. Of each ten, the
// eighth failed (exit status 1), the ninth timed out, the tenth is still
// queued and the others are done; each ran once on backend local. With
// -split the queued ones are in a batch of their own, seed-open#1, so
// that seed#1 has ended whole.
func cmdSeedJournal(ts *testscript.TestScript, neg bool, args []string) {
	split := len(args) > 0 && args[0] == "-split"
	if split {
		args = args[1:]
	}
	if neg || len(args) != 2 {
		ts.Fatalf("usage: seedjournal [-split] DBPATH N")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("seedjournal: %v", err)
	}
	ctx := context.Background()
	j, err := journal.Open(ctx, ts.MkAbs(args[0]), journal.Options{})
	ts.Check(err)
	defer j.Close()
	batch, err := j.Batch(ctx, "seed")
	ts.Check(err)
	open := batch
	if split {
		open, err = j.Batch(ctx, "seed-open")
		ts.Check(err)
	}
	start := time.Now().Add(-72 * time.Hour)
	for i := range n {
		key := fmt.Sprintf("%s/%d", batch, i)
		if i%10 == 9 {
			key = fmt.Sprintf("%s/%d", open, i)
		}
		job := &sched.Job{Key: key, Kind: []string{"shell", "convert"}[i%2], Class: sched.P2,
			Label: fmt.Sprintf("seed %d", i), Enqueued: start.Add(time.Duration(i) * time.Second)}
		_, err := j.Enqueue(ctx, []*sched.Job{job})
		ts.Check(err)
		if i%10 == 9 {
			continue
		}
		a := sched.Attempt{Job: job, Backend: "local", Attempt: 1, State: sched.StateDone,
			Started: job.Enqueued.Add(time.Second), Finished: job.Enqueued.Add(time.Duration(2+i%5) * time.Second)}
		switch i % 10 {
		case 7:
			a.State, a.Reason, a.Err = sched.StateFailed, "exit status 1", "boom"
		case 8:
			a.State, a.Reason, a.Err = sched.StateTimedOut, "timeout", "job timed out"
		}
		_, err = j.Claim(ctx, job, a.Backend, a.Started)
		ts.Check(err)
		ts.Check(j.Finish(ctx, a))
	}
	ts.Check(j.Close())
}

func TestExitCode(t *testing.T) {
	usage := &base.UsageError{Err: errors.New("flag provided but not defined: -x")}
	partial := fmt.Errorf("%w: 2 of 5 files failed", exitcode.ErrPartial)
	signalled := func() error {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGUSR1)
		defer stop()
		if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		<-ctx.Done()
		return context.Cause(ctx)
	}()
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, 0},
		{"plain", errors.New("boom"), 1},
		{"deadline", context.DeadlineExceeded, 1},
		{"usage", usage, 2},
		{"usage wrapped", fmt.Errorf("sched bench: %w", usage), 2},
		{"usage joined", errors.Join(errors.New("a"), usage), 2},
		{"bench options", fmt.Errorf("sched bench: %w", fmt.Errorf("%w: size 0", schedbench.ErrOptions)), 2},
		{"partial", exitcode.ErrPartial, 3},
		{"partial wrapped", fmt.Errorf("convert: %w", partial), 3},
		{"partial joined", errors.Join(partial, errors.New("b.docx: corrupt")), 3},
		// Precedence: unknown 5 > queued 4 > usage 2 > partial 3 > failure 1.
		{"sms unknown", fmt.Errorf("sms send: %w", sms.ErrUnknown), 5},
		{"sms queued", fmt.Errorf("sms send: %w", sms.ErrQueued), 4},
		{"sms usage", fmt.Errorf("%w: bad", sms.ErrUsage), 2},
		{"unknown over queued", errors.Join(sms.ErrQueued, sms.ErrUnknown), 5},
		{"queued over usage", errors.Join(usage, sms.ErrQueued), 4},
		{"usage over partial", errors.Join(partial, usage), 2},
		{"unknown over partial", errors.Join(partial, sms.ErrUnknown), 5},
		{"canceled", context.Canceled, 130},
		{"canceled wrapped", fmt.Errorf("sched bench: %w", context.Canceled), 130},
		{"signal cause", signalled, 130},
		{"interrupted success", interrupted(signalled, nil), 130},
		{"interrupted failure", interrupted(signalled, errors.New("boom")), 130},
		{"interrupted partial", interrupted(signalled, partial), 130},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exitCode(tt.err); got != tt.want {
				t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}

func TestReport(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"plain", errors.New("boom"), "calq: boom\n"},
		{"hint", fmt.Errorf("x: %w", &base.UsageError{Err: errors.New("bad"), Help: "run 'calq --help'"}),
			"calq: x: bad\ncalq: hint: run 'calq --help'\n"},
		{"joined", errors.Join(errors.New("a"), errors.New("b")), "calq: a\ncalq: b\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			report(&b, tt.err)
			if got := b.String(); got != tt.want {
				t.Errorf("report(%v) wrote %q, want %q", tt.err, got, tt.want)
			}
		})
	}
}

func TestVersionText(t *testing.T) {
	base := versionInfo{Version: "(devel)", GoVersion: "go1.26.0", OS: "linux", Arch: "amd64"}
	withVCS := base
	withVCS.Version, withVCS.Revision, withVCS.Time = "v0.1.0", "0123abcd", "2025-01-02T03:04:05Z"
	modified := withVCS
	modified.Modified = true
	noTime := withVCS
	noTime.Time = ""
	tests := []struct {
		name string
		v    versionInfo
		want string
	}{
		{"devel", base, "calq (devel) go1.26.0 linux/amd64\n"},
		{"vcs", withVCS, "calq v0.1.0 (rev 0123abcd 2025-01-02T03:04:05Z) go1.26.0 linux/amd64\n"},
		{"modified", modified, "calq v0.1.0 (rev 0123abcd 2025-01-02T03:04:05Z, modified) go1.26.0 linux/amd64\n"},
		{"no time", noTime, "calq v0.1.0 (rev 0123abcd) go1.26.0 linux/amd64\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := tt.v.writeText(&b); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != tt.want {
				t.Errorf("writeText() wrote %q, want %q", got, tt.want)
			}
		})
	}
}

// TestImportRules keeps the layers of CONVENTIONS.md apart (production
// imports; tests may import what they need):
//   - only package main and internal/cli/... import urfave/cli, and only
//     they import internal/cli/...;
//   - sched and its subpackages import no client of theirs (convert, sms,
//     analyze);
//   - convert, sms and analyze import no sibling;
//   - no production package imports the modem emulator or a bench
//     package: only main (which wires `calq sms emulate` and the bench
//     commands) and the bench packages themselves;
//   - analyze needs the calendar queue only: no prometheus, SQLite or
//     os/exec.
func TestImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		for _, imp := range strings.Fields(imports) {
			if why := importRule(pkg, imp); why != "" {
				t.Errorf("%s imports %s: %s", pkg, imp, why)
			}
		}
	}
	out, err = exec.Command("go", "list", "-deps", "./analyze").Output()
	if err != nil {
		t.Fatalf("go list -deps ./analyze: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "prometheus") || strings.Contains(dep, "sqlite") || dep == "os/exec" {
			t.Errorf("calq/analyze depends on %s", dep)
		}
	}
}

// TestImportRule: the rules catch each kind of wrong import.
func TestImportRule(t *testing.T) {
	tests := []struct {
		pkg, imp string
		bad      bool
	}{
		{"calq", "github.com/urfave/cli/v2", false},
		{"calq/sms", "github.com/urfave/cli/v2", true},
		{"calq/internal/cli/base", "github.com/urfave/cli/v2", false},
		{"calq/internal/clix", "github.com/urfave/cli/v2", true},
		{"calq", "calq/internal/cli/base", false},
		{"calq/sms", "calq/internal/cli/base", true},
		{"calq/internal/dburl", "calq/internal/cli/base", true},
		{"calq/sched", "calq/sched/cq", false},
		{"calq/sched/journal", "calq/sms/store", true},
		{"calq/sched/schedbench", "calq/convert", true},
		{"calq/sms", "calq/sched/journal", false},
		{"calq/sms/store", "calq/convert/contacts", true},
		{"calq/analyze", "calq/sms", true},
		{"calq/convert/mail", "calq/convert/contacts", false},
		{"calq/sms", "calq/sms/emu", true},
		{"calq/sms/smsbench", "calq/sms/emu", false},
		{"calq", "calq/sms/emu", false},
		{"calq/sched/shell", "calq/sched/schedbench", true},
		{"calq", "calq/convert/convertbench", false},
		{"calq/internal/proc", "calq/sched", false},
	}
	for _, tt := range tests {
		if got := importRule(tt.pkg, tt.imp) != ""; got != tt.bad {
			t.Errorf("importRule(%s, %s) forbids: %v, want %v", tt.pkg, tt.imp, got, tt.bad)
		}
	}
}

// importRule says why pkg may not import imp, or "".
func importRule(pkg, imp string) string {
	domain := func(p string) string { // "sched", "convert", "sms", "analyze" or ""
		for _, d := range []string{"sched", "convert", "sms", "analyze"} {
			if p == "calq/"+d || strings.HasPrefix(p, "calq/"+d+"/") {
				return d
			}
		}
		return ""
	}
	isBench := func(p string) bool {
		return slices.Contains([]string{"calq/sched/schedbench", "calq/sms/smsbench", "calq/convert/convertbench"}, p)
	}
	isCLI := func(p string) bool { return p == "calq" || strings.HasPrefix(p, "calq/internal/cli/") }
	from, to := domain(pkg), domain(imp)
	switch {
	case imp == "github.com/urfave/cli/v2" && !isCLI(pkg):
		return "only the command line (package main, internal/cli/...) may"
	case strings.HasPrefix(imp, "calq/internal/cli/") && !isCLI(pkg):
		return "the command line is the top layer: nothing under it imports it"
	case from == "sched" && to != "" && to != "sched":
		return "sched is the engine under its clients"
	case from != "" && from != "sched" && to != "" && to != "sched" && to != from:
		return "convert, sms and analyze are siblings"
	case imp == "calq/sms/emu" && pkg != "calq" && !isBench(pkg):
		return "the emulator is for tests, dry runs and benches"
	case isBench(imp) && pkg != "calq":
		return "only main wires the benches"
	}
	return ""
}

// TestREADMEExitStatus keeps the README's exit status table in step with
// the statuses calq documents in its help.
func TestREADMEExitStatus(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range exitStatuses {
		row := fmt.Sprintf("| %d | %s |", s.code, s.meaning)
		if !strings.Contains(string(readme), row) {
			t.Errorf("README.md lacks the row %q", row)
		}
	}
}

// TestURFaveExit: only urfave's own ExitCoder becomes a usage error; a
// command's exit status wrapped in an error stays a failure (exit 1).
func TestURFaveExit(t *testing.T) {
	xe := exec.Command("sh", "-c", "exit 7").Run()
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"urfave", cli.Exit("No help topic for 'x'", 3), true},
		{"a job's exit status", fmt.Errorf("soffice: %w", xe), false},
		{"usage", &base.UsageError{Err: errors.New("bad")}, false},
		{"plain", errors.New("x"), false},
	}
	for _, tt := range tests {
		if got := urfaveExit(tt.err); got != tt.want {
			t.Errorf("%s: urfaveExit = %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := exitCode(fmt.Errorf("soffice: %w", xe)); got != exitFailure {
		t.Errorf("exitCode of a wrapped exit status = %d, want %d", got, exitFailure)
	}
}
