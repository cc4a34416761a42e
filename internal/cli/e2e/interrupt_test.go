package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"calq/sched"
	"calq/sched/journal"
)

// TestSchedRunInterruptQueued: Ctrl-C while one job runs and two wait
// leaves none queued in the journal for ever: all three are cancelled,
// calq history stats counts them so, and calq history prune keeps them:
// their batch was interrupted, and a re-run resumes it.
func TestSchedRunInterruptQueued(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "calq.db")
	jobs := filepath.Join(dir, "jobs.txt")
	writeFile(t, jobs, fmt.Sprintf("echo $$ > %s/pid; sleep 30\necho second\necho third\n", dir))
	cmd := calqCmd(t, "sched", "run", "--quiet", "--journal", "--db", db, "-j", "1", "--grace", "10s", jobs)
	must(t, cmd.Start())
	waitLines(t, filepath.Join(dir, "pid"), 1)
	must(t, cmd.Process.Signal(os.Interrupt))
	_ = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit status %d, want 130", code)
	}
	if got := fmt.Sprint(journalStates(t, db)); got != "[cancelled cancelled cancelled]" {
		t.Errorf("journal states after Ctrl-C: %s, want three cancelled", got)
	}
	out, err := calqCmd(t, "history", "stats", "--db", db, "--json").Output()
	must(t, err)
	// The two that never started have no backend.
	for _, want := range []string{`"backend":"","jobs":2,"states":{"cancelled":2}`, `"backend":"shell","jobs":1,"states":{"cancelled":1}`} {
		if !strings.Contains(string(out), want) || strings.Contains(string(out), "queued") {
			t.Errorf("history stats: %s\nwant %s and nothing queued", out, want)
		}
	}
	before := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	if out, err := calqCmd(t, "history", "prune", "--db", db, "--before", before).CombinedOutput(); err != nil {
		t.Fatalf("history prune: %v\n%s", err, out)
	}
	if got := fmt.Sprint(journalStates(t, db)); got != "[cancelled cancelled cancelled]" {
		t.Errorf("jobs left after prune: %s, want the interrupted batch's three", got)
	}
}

// journalStates lists the states of the jobs in the journal at db,
// newest first.
func journalStates(t *testing.T, db string) []sched.State {
	t.Helper()
	jn, err := journal.Open(context.Background(), db, journal.Options{})
	must(t, err)
	defer jn.Close()
	recs, err := jn.List(context.Background(), journal.Filter{})
	must(t, err)
	var s []sched.State
	for _, r := range recs {
		s = append(s, r.State)
	}
	return s
}
