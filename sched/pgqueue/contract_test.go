package pgqueue

import (
	"context"
	"testing"
	"time"

	"calq/sched/history/historytest"
)

// testHistory runs history.Store's contract on the shared queue.
func testHistory(t *testing.T, url string) {
	q := open(t, url, 0)
	historytest.Run(t, q, func(t *testing.T, jobs []historytest.Job) {
		for _, jb := range jobs {
			var finished *time.Time
			if !jb.Finished.IsZero() {
				finished = &jb.Finished
			}
			var ranOn, reason *string
			if jb.RanOn != "" {
				ranOn = &jb.RanOn
			}
			if jb.Reason != "" {
				reason = &jb.Reason
			}
			_, err := q.pool.Exec(context.Background(), `INSERT INTO jobs
				(key, kind, label, class, tag, state, enqueued, finished, ran_on, wait_s, run_s, reason)
				VALUES ($1, $2, $3, 2, 0, $4, $5, $6, $7, $8, $9, $10)`,
				jb.Key, jb.Kind, jb.Label, string(jb.State), jb.Enqueued, finished, ranOn, jb.Wait, jb.Run, reason)
			if err != nil {
				t.Fatal(err)
			}
		}
	})
}
