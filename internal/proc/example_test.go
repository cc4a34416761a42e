package proc_test

import (
	"context"
	"fmt"
	"time"

	"calq/internal/proc"
)

func ExampleCommand() {
	// main calls proc.MaybeRunGuard() first thing; here TestMain does.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := proc.Command(ctx, proc.Options{Grace: time.Second}, "echo", "hello")
	out, err := cmd.Output()
	fmt.Printf("%s%v\n", out, err)
	// Output:
	// hello
	// <nil>
}
