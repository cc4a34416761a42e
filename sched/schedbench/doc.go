// Package schedbench holds the benchmarks behind `calq sched bench`, as a
// client of sched and sched/cq: Run drives the calendar queue and the
// heaps through the classic hold, up/down and Markov-hold workloads,
// Goals turns the rows into pass/fail goals measured against a
// baseline of the same run, and RunEngine measures the engine's
// throughput with and without a journal. Nothing in calq's production
// packages imports it.
package schedbench
