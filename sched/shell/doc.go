// Package shell runs shell command lines as engine jobs: Worker runs
// one job's payload with sh -c under internal/proc's guard (a timeout or a
// stop kills its whole process group, and nothing outlives calq), and
// RunCommands is `calq sched run`: it reads job files, submits each line as
// a job to a sched.Engine, records them in an optional journal, and hands
// on each attempt's output once its end is recorded.
package shell
