// Package shell runs shell command lines as engine jobs: Worker runs
// one job's payload with sh -c in a process group of its own (a timeout or
// a stop kills the whole group, and nothing outlives calq), through one
// proc.Keeper for the whole run, or under a guard per command without
// one; and
// RunCommands is `calq sched run`: it reads job files, submits each line as
// a job to a sched.Engine, records them in an optional journal, and hands
// on each attempt's output once its end is recorded.
package shell
