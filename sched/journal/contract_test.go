package journal

import (
	"context"
	"path/filepath"
	"testing"

	"calq/sched/history/historytest"
)

// TestHistoryContract runs history.Store's contract on the journal.
func TestHistoryContract(t *testing.T) {
	j := openAt(t, filepath.Join(t.TempDir(), "calq.db"), Options{})
	historytest.Run(t, j, func(t *testing.T, jobs []historytest.Job) {
		for _, jb := range jobs {
			_, err := j.db.ExecContext(context.Background(), `INSERT INTO jobs
				(key, kind, label, class, state, retries, enqueued, finished, ran_on, wait_s, run_s, reason)
				VALUES (?, ?, ?, 2, ?, 0, ?, ?, ?, ?, ?, ?)`,
				jb.Key, jb.Kind, jb.Label, string(jb.State), timeText(jb.Enqueued), timeText(jb.Finished),
				textOrNull(jb.RanOn), jb.Wait, jb.Run, textOrNull(jb.Reason))
			if err != nil {
				t.Fatal(err)
			}
		}
	})
}
