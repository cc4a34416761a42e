// Package journal is the durable SQLite journal of calq's scheduler. A
// *Journal implements sched.Journal, so the engine records every job's life
// in it and processes that share the file claim each job exactly once; it
// also answers the history queries behind `calq history`.
//
// # Entry points
//
// Open opens a journal file, creating it and its directory when missing
// (DefaultPath says where calq keeps it), and returns jobs that a dead or
// silent process left running to the queue (Recovered says how many).
// Batch, Enqueue, Claim and Finish record the life of jobs (FinishClaim
// records one attempt and claims the worker's next job in one round trip,
// which the engine uses when it can); List, Stats
// and Prune read and trim the history; States tells which of some keys are
// done (calq convert asks it before naming its jobs); Close releases what
// this process still holds.
//
// The journal keeps jobs only. Other packages keep their records in its
// file through the extension point in ext.go: Migrate registers a
// package's tables with versioned migrations (table schema_versions),
// Update and Write run its writes through the journal's one writer, and
// Query and QueryRow read beside it. So do calq convert's provenance of
// each PDF (convert), the address book (convert/contacts), and calq sms's
// outbox, inbox and PIN rejections (sms/store).
//
// # Cost and concurrency
//
// A Journal is safe for concurrent use. One writer goroutine owns every
// write: Batch, Enqueue, Claim, Finish and Prune hand it a request and wait
// for its commit, and the writer runs all the requests waiting at that
// moment (up to 1024) in one transaction with prepared statements; when
// its last commit served more callers than are waiting, it lingers up to
// 200µs for them. A write therefore costs a hand-off and a share of one
// commit, not a commit of its own. BenchmarkJournal (an Enqueue, a Claim
// and a Finish per job, from 16 goroutines) measures 11,000 to 15,000 jobs
// a second on two cores; the engine, with FinishClaim and 8 workers, about
// 20,000 (`calq sched bench --engine`). The writer is then busy all the
// time, most of it in SQLite's B-trees and in writing the WAL; the jobs
// table therefore keeps few indexes (its key, enqueued, and a partial one
// on running jobs) and history queries scan.
// Commits are not synced to disk one by one (WAL with synchronous=NORMAL):
// a power cut may lose the last transactions, never corrupt the file. List
// and Stats read on connections of their own beside the writer and cost a
// scan of the jobs they match.
//
// Between processes, SQLite's write lock serializes transactions, taken
// with BEGIN IMMEDIATE so that two processes never deadlock upgrading a
// read lock. Claim moves a job from queued (or cancelled) to running in one
// conditional UPDATE, which is what makes a claim exactly-once. A running
// job carries its owner (host, pid and a random tag per Open) and a lease
// that a heartbeat renews every Lease/3; Open gives back jobs whose lease
// has expired or whose owner's process is gone from this host.
//
// # The file
//
// People open the journal with sqlite3, so the schema is plain: the
// journal's own tables are batches, jobs and attempts (every attempt but
// a job's only one when it succeeded, which its jobs row tells; the view
// attempt_log shows them all); times are TEXT in UTC as
// 'YYYY-MM-DD HH:MM:SS.ffffff', which SQLite's date functions read, and
// durations are REAL seconds. PRAGMA user_version holds the version of the
// journal's own schema; schema_versions that of each package's tables.
package journal
