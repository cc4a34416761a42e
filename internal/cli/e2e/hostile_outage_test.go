package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"calq/internal/pgtest"
)

// TestOutagesRerunNoFinishedJob (issue 23, item 5): two workers run 58
// shell jobs of 0.3–0.7 s and 2 of 5 s under a 2 s lease while the server is restarted
// three times, at seeded points of the run and for a seeded 2.5–4 s each
// (longer than the lease, so leases run out while it is down). An outage
// is not the job's loss: no job is given up or even counted lost (no
// attempt "lease expired"), each is recorded done once, and no job whose
// shell exited 0 starts again: in the log the jobs write, each job ends
// once and nothing of it starts after its end.
func TestOutagesRerunNoFinishedJob(t *testing.T) {
	srv := pgtest.Start(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(23, 5))
	const n = 60
	log := filepath.Join(dir, "runs")
	var b strings.Builder
	for i := 1; i <= n; i++ {
		pause := fmt.Sprintf("0.%d", 3+rng.IntN(5))
		if i <= 2 {
			pause = "5" // long: running at a restart, it is stopped for the outage
		}
		fmt.Fprintf(&b, "echo start %d >> %s; sleep %s; echo end %d >> %s\n", i, log, pause, i, log)
	}
	jobs := filepath.Join(dir, "jobs")
	if err := os.WriteFile(jobs, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		startWorker(t, srv.URL, "--kinds", "shell", "-j", "3", "--lease", "2s", "--name", name)
	}
	sub, out := submit(t, srv.URL, jobs)
	// Restart points: after so many ends, spread over the run.
	points := []int{5 + rng.IntN(10), 20 + rng.IntN(10), 35 + rng.IntN(10)}
	for _, p := range points {
		waitEnds(t, log, p)
		srv.Stop()
		time.Sleep(2500*time.Millisecond + time.Duration(rng.IntN(1500))*time.Millisecond) // the outage itself
		srv.Start()
	}
	waitSubmit(t, sub, out, fmt.Sprintf("%d jobs: %d done, 0 failed", n, n))
	c := pgConn(t, srv.URL)
	checkRecordedOnce(t, c, n)
	if lost := pgStrings(t, c, `SELECT j.key || ' attempt ' || a.attempt FROM attempts a JOIN jobs j ON j.id = a.job_id
		WHERE a.reason = 'lease expired' ORDER BY 1`); len(lost) > 0 {
		t.Errorf("%d attempts counted as lost workers across server restarts: %v", len(lost), lost)
	}
	reran, twice := rerunAfterEnd(t, log, n)
	if len(reran) > 0 {
		t.Errorf("%d jobs started again after their shell had exited 0: %v", len(reran), reran)
	}
	if len(twice) > 0 {
		t.Errorf("%d jobs ended more than once: %v", len(twice), twice)
	}
	outages := pgStrings(t, c, `SELECT count(*)::text FROM attempts WHERE reason = 'outage'`)
	t.Logf("restarts after %v ends; %s attempts stopped by the outages and run again", points, outages[0])
}

// waitEnds waits until the run log at path holds at least n "end" lines.
func waitEnds(t *testing.T, path string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ends := 0
		for _, l := range logLines(t, path) {
			if strings.HasPrefix(l, "end ") {
				ends++
			}
		}
		if ends >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s has %d ends after 60s, want %d", path, ends, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// rerunAfterEnd reads the run log at path of jobs 1..n: the jobs that
// started again after an end, and those that ended more than once.
func rerunAfterEnd(t *testing.T, path string, n int) (reran, twice []string) {
	t.Helper()
	ended := map[string]int{}
	for _, l := range logLines(t, path) {
		what, job, _ := strings.Cut(l, " ")
		switch {
		case what == "start" && ended[job] > 0 && !slices.Contains(reran, job):
			reran = append(reran, job)
		case what == "end":
			ended[job]++
			if ended[job] == 2 {
				twice = append(twice, job)
			}
		}
	}
	for i := 1; i <= n; i++ {
		if ended[fmt.Sprint(i)] == 0 {
			t.Errorf("job %d never ended", i)
		}
	}
	return reran, twice
}

// logLines returns the lines of the file at path, none if it is missing.
func logLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}
