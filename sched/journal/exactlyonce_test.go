package journal

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"calq/sched"
)

// childEnv switches the test binary into claimant mode: it then claims
// jobs from the journal at that path instead of running tests.
const childEnv = "CALQ_JOURNAL_TEST_CLAIMANT"

func TestMain(m *testing.M) {
	if db := os.Getenv(childEnv); db != "" {
		if err := claimant(db, os.Args[len(os.Args)-1], os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "claimant:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const (
	raceJobs      = 2000
	raceClaimants = 4 // goroutines per process
)

func raceKey(i int) string { return "race#1/" + strconv.Itoa(i) }

// claimant opens the journal db, says "ready" on out, waits for a line on
// in, then claims (and finishes) every job it can and writes the keys it
// won to the file won, one a line.
func claimant(db, won string, in io.Reader, out io.Writer) error {
	j, err := Open(context.Background(), db, Options{})
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "ready")
	if _, err := bufio.NewReader(in).ReadString('\n'); err != nil {
		return errors.Join(err, j.Close())
	}
	keys, err := claimAll(j, true)
	if err != nil {
		return errors.Join(err, j.Close())
	}
	if err := j.Close(); err != nil {
		return err
	}
	return os.WriteFile(won, []byte(strings.Join(keys, "\n")), 0o600)
}

// claimAll races for every job with raceClaimants goroutines, finishing
// each job it wins so that Close has nothing to give back, and returns
// the keys won. It goes through the jobs in order, or from the last when
// reverse is set.
func claimAll(j *Journal, reverse bool) ([]string, error) {
	var (
		mu   sync.Mutex
		won  []string
		errs []error
		wg   sync.WaitGroup
	)
	for w := range raceClaimants {
		wg.Go(func() {
			for i := w; i < raceJobs; i += raceClaimants {
				key := raceKey(i)
				if reverse {
					key = raceKey(raceJobs - 1 - i)
				}
				ok, err := claimAndFinish(j, key)
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else if ok {
					won = append(won, key)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		return nil, fmt.Errorf("%d claims failed, the first: %w", len(errs), errs[0])
	}
	return won, nil
}

func claimAndFinish(j *Journal, key string) (bool, error) {
	ctx := context.Background()
	job := &sched.Job{Key: key}
	won, err := j.Claim(ctx, job, "local", time.Now())
	if err != nil || !won {
		return false, err
	}
	now := time.Now()
	return true, j.Finish(ctx, sched.Attempt{Job: job, Backend: "local", Attempt: job.Attempts,
		State: sched.StateDone, Started: now, Finished: now})
}

// TestClaimExactlyOnceAcrossProcesses races this process against a child
// for the same jobs and checks that every job was claimed by exactly one
// of them. The child starts from the other end: SQLite's lock is not
// fair, and a process that waits on it can lose every race for the next
// job; from the other end, each of its turns wins one, and the two meet
// in contention somewhere in the middle.
func TestClaimExactlyOnceAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	dir := t.TempDir()
	db, childWon := filepath.Join(dir, "calq.db"), filepath.Join(dir, "child.txt")
	j := openAt(t, db, Options{})
	jobs := make([]*sched.Job, raceJobs)
	for i := range jobs {
		jobs[i] = &sched.Job{Key: raceKey(i), Kind: "shell"}
	}
	_, err := j.Enqueue(context.Background(), jobs)
	must(t, err)

	child := startClaimant(t, db, childWon)
	parentKeys, err := claimAll(j, false)
	must(t, err)
	if err := child.Wait(); err != nil {
		t.Fatalf("claimant: %v", err)
	}
	data, err := os.ReadFile(childWon)
	must(t, err)
	childKeys := strings.Fields(string(data))
	checkPartition(t, parentKeys, childKeys)
	recs, err := j.List(context.Background(), Filter{})
	must(t, err)
	for _, r := range recs {
		if r.State != sched.StateDone || r.Attempts != 1 {
			t.Errorf("%s: %s after %d attempts, want done after 1", r.Key, r.State, r.Attempts)
		}
	}
}

// startClaimant starts the child and lets it go once it is ready, so that
// both processes race from the start.
func startClaimant(t *testing.T, db, won string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$", won)
	cmd.Env = append(os.Environ(), childEnv+"="+db)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	must(t, err)
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		t.Fatalf("claimant said %q (%v), want ready", line, err)
	}
	_, err = io.WriteString(stdin, "go\n")
	must(t, err)
	return cmd
}

// checkPartition checks that the two sets of keys won are disjoint and
// together hold every job.
func checkPartition(t *testing.T, parent, child []string) {
	t.Helper()
	owners := map[string]int{}
	for _, k := range append(parent, child...) {
		owners[k]++
	}
	for i := range raceJobs {
		if n := owners[raceKey(i)]; n != 1 {
			t.Errorf("%s claimed %d times, want once", raceKey(i), n)
		}
	}
	t.Logf("parent won %d jobs, child %d", len(parent), len(child))
	if len(parent) == 0 || len(child) == 0 {
		t.Log("one process won every job: correct, but the race did not interleave")
	}
}
