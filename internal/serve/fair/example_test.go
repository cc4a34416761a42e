package fair_test

import (
	"context"
	"fmt"
	"time"

	"calq/internal/serve/fair"
	"calq/sched"
)

// A request of three files: predict, reserve room, then convert each on
// the server its slot names.
func Example() {
	g := fair.New(fair.Options{Servers: 2, MaxWaitingPerUser: 100, DefaultService: 2 * time.Second})
	ctx := context.Background()

	limit := 10 * time.Second
	if wait := g.RetryAfter("alice", sched.P1, 3, limit); wait > 0 {
		fmt.Println("429, Retry-After", wait)
		return
	}
	fmt.Println("predicted:", g.PredictWait("alice", sched.P1, 3)) // 1/(2·½) + 2 s
	r, err := g.Reserve("alice", 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Done()
	for range 3 {
		s, err := r.Acquire(ctx, sched.P1)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("convert on instance", s.Server())
		s.Release()
	}
	// Output:
	// predicted: 3s
	// convert on instance 0
	// convert on instance 0
	// convert on instance 0
}
