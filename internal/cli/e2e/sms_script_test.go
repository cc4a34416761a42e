package e2e

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"calq/sched/journal"
	"calq/sms"
)

// cmdDaemonHolds implements "daemonholds DB DEVFILE": it waits up to 20 s
// until a calq sms daemon holds the devices listed in DEVFILE (one per
// line, as calq sms emulate prints them) according to the journal DB.
func cmdDaemonHolds(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: daemonholds DB DEVFILE")
	}
	ctx := context.Background()
	jn, err := journal.Open(ctx, ts.MkAbs(args[0]), journal.Options{})
	ts.Check(err)
	defer jn.Close()
	var specs []sms.ModemSpec
	for i, d := range strings.Fields(ts.ReadFile(args[1])) {
		specs = append(specs, sms.ModemSpec{Name: fmt.Sprint("m", i), Device: d})
	}
	for deadline := time.Now().Add(20 * time.Second); ; {
		held, err := sms.DaemonHolds(ctx, jn, specs)
		ts.Check(err)
		if held {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("no daemon holds the devices of %s after 20s", args[1])
		}
		time.Sleep(20 * time.Millisecond)
	}
}
