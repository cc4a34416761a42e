package journal

import (
	"context"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"calq/sched"
)

// benchCallers is how many goroutines share the journal in
// BenchmarkJournal, as the engine's workers do.
const benchCallers = 16

// BenchmarkJournal measures a job's life in the journal: an Enqueue, a
// Claim and a Finish per op, from benchCallers goroutines at once; ns/op
// is ns per job.
func BenchmarkJournal(b *testing.B) {
	j := openAt(b, filepath.Join(b.TempDir(), "calq.db"), Options{})
	ctx := context.Background()
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for range benchCallers {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
				if err := lifeOfJob(ctx, j, "bench/"+strconv.FormatInt(i, 10)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}

func lifeOfJob(ctx context.Context, j *Journal, key string) error {
	job := &sched.Job{Key: key, Kind: "shell", Payload: []byte("true"), Retries: sched.DefaultRetries}
	if _, err := j.Enqueue(ctx, []*sched.Job{job}); err != nil {
		return err
	}
	start := time.Now()
	if _, err := j.Claim(ctx, job, "local", start); err != nil {
		return err
	}
	return j.Finish(ctx, sched.Attempt{Job: job, Backend: "local", Attempt: job.Attempts,
		State: sched.StateDone, Started: start, Finished: time.Now()})
}
