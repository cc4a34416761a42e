package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"calq/internal/cli/app"
	"calq/internal/proc"
	"calq/sched"
	"calq/sched/journal"
)

// repoTestdata holds the corpora several packages share (convert/,
// journal/): the module's testdata, three levels up from this package.
const repoTestdata = "../../../testdata"

// The exit statuses the README documents, as a user's script reads them.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// TestMain makes this test binary calq itself when it is run as "calq"
// (testscript puts it on PATH under that name): the same two steps as
// calq's main, with no copy of the command line.
func TestMain(m *testing.M) {
	proc.MaybeRunGuard()
	testscript.Main(m, map[string]func(){"calq": func() { os.Exit(app.Main(os.Args, os.Stdout, os.Stderr)) }})
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
			data, err := filepath.Abs(filepath.Join(repoTestdata, "convert"))
			e.Setenv("DATA", data)
			return err
		},
		Cmds: withCmds(withCmds(pdfScriptCmds, webScriptCmds), map[string]func(*testscript.TestScript, bool, []string){
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

// cmdSeedJournal implements "seedjournal [-split] [-classes] DBPATH N": it records N
// jobs in batch seed#1 of the journal at DBPATH, enqueued from three days
// ago one second apart, kinds shell and convert in turn. Of each ten, the
// eighth failed (exit status 1), the ninth timed out, the tenth is still
// queued and the others are done; each ran once on backend local. With
// -split the queued ones are in a batch of their own, seed-open#1, so
// that seed#1 has ended whole. With -classes job i is of class P(i mod 4),
// else all are P2.
func cmdSeedJournal(ts *testscript.TestScript, neg bool, args []string) {
	var split, classes bool
	for len(args) > 0 && (args[0] == "-split" || args[0] == "-classes") {
		split, classes = split || args[0] == "-split", classes || args[0] == "-classes"
		args = args[1:]
	}
	if neg || len(args) != 2 {
		ts.Fatalf("usage: seedjournal [-split] [-classes] DBPATH N")
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
		class := sched.P2
		if classes {
			class = sched.ClassOf(i % 4)
		}
		job := &sched.Job{Key: key, Kind: []string{"shell", "convert"}[i%2], Class: class,
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
