package sched_test

import (
	"context"
	"fmt"
	"strings"

	"calq/sched"
)

// An engine with one backend of two workers runs jobs of two classes; the
// summary counts their outcomes.
func ExampleEngine() {
	upper := sched.WorkerFunc(func(ctx context.Context, j *sched.Job) error {
		if len(j.Payload) == 0 {
			return sched.Permanent(fmt.Errorf("job %s: empty payload", j.Key))
		}
		_ = strings.ToUpper(string(j.Payload))
		return nil
	})
	e, err := sched.NewEngine(sched.EngineOptions{
		Backends: []sched.Backend{{Name: "local", Workers: []sched.Worker{upper, upper}}},
	})
	if err != nil {
		panic(err)
	}
	defer e.Close()
	e.Start()
	err = e.Submit(context.Background(),
		&sched.Job{Kind: "upper", Payload: []byte("invoice"), Class: sched.P1},
		&sched.Job{Kind: "upper", Payload: []byte("report")},
		&sched.Job{Kind: "upper", Retries: sched.DefaultRetries},
	)
	if err != nil {
		panic(err)
	}
	sum, err := e.Wait(context.Background())
	fmt.Printf("%d done, %d failed, %d retries, %v\n", sum.Done, sum.Failed, sum.Retries, err)
	// Output: 2 done, 1 failed, 0 retries, <nil>
}
