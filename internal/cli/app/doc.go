// Package app is calq's command line at the top: New builds the command
// tree from the one list of groups (internal/cli/<group>cmd) and the
// commands about calq itself (help, version, doctor); Run runs it on a
// command line after reordering flags GNU-style (args.go) and wording
// usage errors (usage.go); Main adds what a process needs (signals, the
// report on stderr) and returns the exit status, which ExitCode decides
// in one place from sentinel and typed errors. main.go calls Main and
// nothing else; the e2e tests call Main or Run in the test binary. Run
// may be called again in one process; Main installs signal handlers, so
// one runs per process at a time.
package app
