// Package sched is calq's scheduling engine: Engine runs jobs on pools of
// workers, in order of priority class, with retries, timeouts, failure
// isolation and an optional journal. Its neighbours:
//
//   - sched/cq: the calendar queue the engine orders its jobs and timers
//     with, the heaps it is measured against, and its resize prediction;
//   - sched/journal: the SQLite journal (jobs, claims, history), which
//     other packages extend with tables of their own;
//   - sched/shell: the shell-command worker and the runner behind
//     `calq sched run`;
//   - sched/schedbench: the benchmarks behind `calq sched bench`.
//
// # Engine
//
// NewEngine takes backends (named pools of Workers serving some job kinds),
// a dispatch policy, a Clock, an optional Journal, Metrics and an Events
// callback. Start starts one goroutine per worker and one timer goroutine;
// Submit queues jobs; Wait returns when every job has an outcome; Stop and
// Close end it. All of Engine's methods are safe for concurrent use. The
// engine's state sits under one mutex, held for O(1) work per job (a
// calendar-queue operation, a few counters): a worker settles its last job
// and takes the next in one critical section, so a busy engine does about
// a million no-op jobs a second (`calq sched bench --engine`).
//
//   - Order. Each backend keeps its ready jobs in a cq.Queue keyed by virtual
//     time: self-clocked weighted fair queueing over the classes P0..P3
//     with weights 4/2/1/0.5. A job's tag is its class's virtual finish
//     time, max(V, F_c) + cost/w_c, with cost its kind's learned service
//     time and V the tag last dispatched; under saturation each class gets
//     its weight's share and none starves.
//   - Time. Delayed starts, retry backoffs, timeouts and health checks are
//     events in one more cq.Queue keyed by Unix nanoseconds, served by the one
//     timer goroutine; nothing sleeps per job.
//   - Dispatch. A job that more than one backend serves goes, when it
//     becomes ready, to the one with the greatest marginal service rate
//     1/(t̂·(1+load)), t̂ the mean of the backend's last 100 service times
//     for the kind and load its queued plus running jobs per worker;
//     RoundRobin and LeastLoaded are there for comparison.
//   - Failure. Errors are transient unless marked Permanent: a transient
//     failure or a timeout is retried while the job's budget lasts, after
//     Base·2^(n-1) ±20 %, on another backend than the one it failed on
//     when another takes it (not a job pinned to its backend). A backend that fails a kind FailLimit (5) times
//     in a row stops taking it when another backend can, and its queued
//     jobs of that kind move there; a failed health check marks a backend
//     down and moves its queue.
//   - Timeouts and stops cancel the attempt's context with cause ErrTimeout
//     or ErrStopped; shell.Worker then stops the command's whole process
//     group (SIGTERM, SIGKILL after a grace period) through internal/proc,
//     whose guard process also kills it if calq itself is killed.
//   - Journal. With a Journal, Submit records jobs (a job already done, or
//     held by another live process, is skipped), a worker claims each job
//     before running it (the claim is what makes a job run in only one of
//     several processes), and records each attempt before taking the next.
//
// # Locking
//
// Engine's state is guarded by e.mu. Code that holds it raises events with
// e.later, and releases it with e.unlock(), never e.mu.Unlock(): unlock
// releases the lock and then delivers the raised events to the Events
// callback (and wakes Wait), so a slow callback never holds up the engine
// and a callback may call back into it. e.mu.Unlock() is right only in a
// section that raised no event (for example Pending). Workers' Run and
// the Events callback are always called without e.mu held.
//
// # Pinning
//
// Job.Backend set before Submit runs the job only on that backend. A
// worker may also set its job's Backend while it runs, to pin the job's
// retries to the backend it is on: calq sms does so once one part of a
// multi-part message is accepted, so the other parts go through the same
// modem. A pinned job whose backend is down or stops taking its kind
// fails with ErrNoBackend instead of moving.
package sched
