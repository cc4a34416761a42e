// Package schedcmd is calq sched: run (shell commands as jobs through
// calq/sched/shell, on this machine or the shared queue, with its
// renderer in run_render.go) and bench (the engine and queue benches of
// calq/sched/schedbench, and the job runner against xargs and GNU
// parallel). Command is the group; one file per leaf.
package schedcmd
