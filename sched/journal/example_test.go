package journal_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"calq/sched"
	"calq/sched/journal"
)

// A job's life in the journal, then its history.
func Example() {
	dir, err := os.MkdirTemp("", "journal")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	j, err := journal.Open(ctx, filepath.Join(dir, "calq.db"), journal.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer j.Close()

	batch, err := j.Batch(ctx, "nightly")
	if err != nil {
		log.Fatal(err)
	}
	job := &sched.Job{Key: batch + "/1", Kind: "shell", Payload: []byte("make report")}
	adm, err := j.Enqueue(ctx, []*sched.Job{job})
	if err != nil {
		log.Fatal(err)
	}
	start := time.Now()
	won, err := j.Claim(ctx, job, "local", start)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(job.Key, "run:", adm[0].Run, "claimed:", won)
	err = j.Finish(ctx, sched.Attempt{Job: job, Backend: "local", Attempt: job.Attempts,
		State: sched.StateDone, Started: start, Finished: time.Now()})
	if err != nil {
		log.Fatal(err)
	}

	recs, err := j.List(ctx, journal.Filter{Kind: "shell"})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range recs {
		fmt.Println(r.Key, r.State, r.Attempts, r.RanOn)
	}
	// Output:
	// nightly#1/1 run: true claimed: true
	// nightly#1/1 done 1 local
}
