// Command calq is one static binary for back offices and ops scripts:
// batch conversion to PDF, SMS through GSM modems, a job scheduler and
// runner, and a queueing calculator. The command line lives in
// internal/cli (app builds the tree and decides exit statuses); the work
// is done by the packages convert, sms, sched and analyze.
package main

import (
	"os"

	"calq/internal/cli/app"
	"calq/internal/proc"
)

func main() {
	proc.MaybeRunGuard() // a guard for a child command runs here and exits
	os.Exit(app.Main(os.Args, os.Stdout, os.Stderr))
}
