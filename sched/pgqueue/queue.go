// Package pgqueue is calq's shared job queue on PostgreSQL: several
// machines' `calq worker` processes claim and run the jobs that any
// machine submits.
//
// # Entry points
//
// Open connects to the server and brings the schema up to date. Batch and
// Submit (SubmitOn for jobs on a share) queue jobs; Unserved tells a
// submitter first whether a live worker takes them; States says which an
// earlier run finished; Updates and Follow follow a batch's attempts as
// workers record them. NewWorker makes a worker; Handle registers what runs each job
// kind; Run claims and runs jobs until its context ends. Workers lists the
// workers and their load for `calq worker --status`. History, Stats and
// Prune answer calq's history queries on this store.
//
// # Claims, leases and failover
//
//   - Order. Submit gives each job a tag, its class's virtual finish time
//     max(V, F_c) + 1/w_c with the weights 4/2/1/0.5 of P0..P3 and V the
//     smallest tag still queued: self-clocked weighted fair queueing, kept
//     in the table class_tags. Workers claim in tag order, so under
//     saturation the classes share every worker in proportion to their
//     weights.
//   - Claims. A worker claims with one UPDATE over SELECT … FOR UPDATE SKIP
//     LOCKED, at most as many jobs as it can start within a short horizon
//     (its free slots, more when its jobs are short), so a faster machine,
//     freeing its slots sooner, claims more: dispatch by marginal service
//     rate without a dispatcher.
//   - Leases. A claim holds until lease_until, in the server's clock
//     (now()), never a machine's. Every Lease/3 a worker renews the leases
//     of its jobs and writes its heartbeat and load into workers. A job
//     whose lease the renewal did not extend, or every job when no renewal
//     has succeeded for 90 % of a lease (the worker was paused), is
//     cancelled on the spot and its result never recorded (ErrLeaseLost).
//   - Outages. When the renewals failed instead (the server down,
//     restarted or out of reach), the jobs are stopped for the outage
//     (ErrOutage), which is no one's loss. Back in touch, the worker
//     records what ended meanwhile as it ended, and returns the rest to
//     the queue (reason "outage"): a row that still names the worker and
//     the attempt is the worker's, expired lease or not, since no one else
//     can have requeued it. Only lost workers count towards MaxLost.
//   - Failover. Every renewal tick, a worker returns jobs whose lease
//     expired to the queue, but only once it has been connected without an
//     error for a whole lease: a worker that has just reconnected after an
//     outage of the server leaves the others one lease to renew theirs.
//   - Shares. A job submitted on a share (its id) is claimed only by a
//     worker that registered that share; a worker records its stable name
//     (WorkerOptions.Name) in the jobs it runs, its run's id in the leases.
//   - Failure isolation. A kind that fails FailLimit times in a row on a
//     worker is no longer claimed there; after Cooldown the worker claims
//     one job of it (half-open), and takes it back on success.
//
// What a failure costs: a worker killed, paused or cut off loses the jobs
// it had started, which run again elsewhere after the lease expires (their
// side effects may happen twice); jobs it had claimed and not started run
// once. A server outage costs nothing if shorter than two thirds of a
// lease; longer, the jobs running at 90 % of the lease are stopped by
// their workers and run again, and those that ended meanwhile are
// recorded once it is back: a job that exited 0 does not run again.
//
// # Files
//
// queue.go opens the queue; schema.go owns the tables; submit.go queues
// jobs and follows batches; worker.go is the worker's life (Run, the
// pump, release); claim.go, run.go and record.go take jobs, run them and
// write how they ended; lease.go renews leases, stops jobs whose lease is
// gone and requeues expired ones; listen.go wakes the pump on NOTIFY;
// status.go lists workers (Workers, Unserved); history.go answers
// List, Stats and Prune; blobs.go stores files (PutFile, GetFile);
// ping.go checks a server (Ping).
//
// # Storage
//
// The package owns its tables (batches, jobs, attempts, class_tags,
// workers, blobs) and versions them in calq_schema, in calq's schema
// (pgdb.Migrate; tables an older calq left in public move there). Times are timestamptz
// written by the server.
package pgqueue

import (
	"calq/internal/dburl"
	"calq/internal/pgdb"
	"context"
	"errors"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultLease is the lease of a claim when Options.Lease is zero.
const DefaultLease = 30 * time.Second

// Options configure Open.
type Options struct {
	Lease    time.Duration // how long a claim holds without renewal; DefaultLease when zero
	MaxConns int32         // the pool's size; 4 when zero
	// Wait makes Open wait for a server that is away (down, starting,
	// unreachable: pgdb.Transient) until ctx ends; without it Open fails
	// at once. A wrong password or a missing database fails at once
	// either way.
	Wait bool
	// Link, when set, hears of the outages Open waits through and those
	// a Worker meets (once each when they begin and end).
	Link *pgdb.Link
}

// Queue is an open connection pool to the shared queue.
type Queue struct {
	pool  *pgxpool.Pool
	url   string
	lease time.Duration
	link  *pgdb.Link
}

// Open connects to the database at url and migrates its schema: calq's
// tables live in a schema of their own (see pgdb.Configure).
func Open(ctx context.Context, url string, o Options) (*Queue, error) {
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, dburl.Wrap("open", url, err)
	}
	cfg.MaxConns = max(o.MaxConns, 4)
	schema := pgdb.Configure(cfg.ConnConfig)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, dburl.Wrap("open", url, err)
	}
	q := &Queue{pool: pool, url: url, lease: o.Lease, link: o.Link}
	op := func(ctx context.Context) error { return migrate(ctx, pool, schema) }
	if o.Wait {
		err = pgdb.Retry(ctx, o.Link, op)
	} else {
		err = op(ctx)
	}
	if err != nil {
		pool.Close()
		return nil, pgdb.OpenError(url, err)
	}
	return q, nil
}

// Close closes the pool.
func (q *Queue) Close() { q.pool.Close() }

// Lease returns the lease of claims made through q.
func (q *Queue) Lease() time.Duration { return q.lease }

// String names the database without its password.
func (q *Queue) String() string { return dburl.Redact(q.url) }

// hostname is this machine's name in worker records.
func hostname() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "localhost"
	}
	return h
}

// ErrNotHeld is returned when a worker records a job whose lease it has lost.
var ErrNotHeld = errors.New("job not held by this worker")

// retry runs op again while the server is away (see pgdb.Retry), so that
// a submitter's calls outlast an outage or a terminated connection as a
// worker's do. Each op is a whole transaction, safe to run again.
func (q *Queue) retry(ctx context.Context, op func(context.Context) error) error {
	return pgdb.Retry(ctx, q.link, op)
}
