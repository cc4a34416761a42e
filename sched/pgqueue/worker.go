package pgqueue

// The worker: its options, events and books, and its life from Run to
// release: the pump that starts, records and claims in turn, and the
// note of each database operation's success or failure.

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"calq/internal/pgdb"
	"calq/sched"
)

// ErrLeaseLost is the cause of a job's context when its worker lost the
// job's lease: the worker was paused or cut off from the server for a
// whole lease, or another worker requeued the job. The job is abandoned:
// its result is not recorded.
var ErrLeaseLost = errors.New("lease lost")

// ErrOutage is the cause of a job's context when its worker could not
// reach the server for most of a lease and stopped the job: the outage
// is the worker's, not the job's loss. Once the server is back the
// worker returns the job to the queue itself (attempt reason "outage"),
// which does not count towards MaxLost.
var ErrOutage = errors.New("stopped: the server was unreachable for most of a lease")

// WorkerOptions configure a Worker. The zero value runs one job at a time.
type WorkerOptions struct {
	Jobs      int           // jobs run at once; default 1
	FailLimit int           // failures of a kind in a row before the worker stops claiming it; default 5
	Cooldown  time.Duration // how long a kind stays out before one more is claimed (half-open); default 1m
	Backoff   sched.Backoff // retry delays; defaults as sched.Engine's
	MaxClaim  int           // jobs claimed in one statement at most; default 32
	// Horizon bounds how much work a worker claims beyond its free slots:
	// as many more jobs as its slots finish in Horizon, by the mean service
	// time seen so far. Default 50ms; negative claims only free slots.
	Horizon time.Duration
	Events  func(WorkerEvent) // what the worker does, for its log; nil: nothing
	// Batch, when set, limits the worker to that batch's jobs: a
	// submitter that also runs jobs (calq sched run -j N) runs only its own.
	Batch string
	// Name is the worker's stable name, what the jobs' ran_on and their
	// attempts record (history stats group by it); the host's when empty.
	Name string
	// Shares are the ids (ShareID) of the shares this machine mounts: the
	// worker claims jobs submitted on those (SubmitOn), and no others
	// that name a share.
	Shares []string
}

// WorkerEvent is one thing a worker did.
type WorkerEvent struct {
	Type    string // started, done, failed, timed_out, retry, lost, outage, released, requeued, disabled, enabled, error
	Time    time.Time
	Key     string
	Kind    string
	Attempt int
	Err     error
	N       int // requeued: how many jobs
}

// Worker claims jobs from the queue and runs them with its handlers.
type Worker struct {
	q              *Queue
	o              WorkerOptions
	id, host, name string
	pid            int
	handlers       map[string]sched.Worker
	kinds          []string

	mu           sync.Mutex
	tasks        map[int64]*task // claimed and not yet recorded
	ready        []*task         // claimed, not started, in tag order
	busy         int             // started, not finished
	results      []*task         // finished, to record
	lastRenew    time.Time       // start of the last successful renewal (monotonic)
	healthySince time.Time       // first success after the last error; zero after an error
	streak       map[string]int
	outUntil     map[string]time.Time // kinds out of claims until then
	probing      map[string]bool      // kinds with a half-open probe claimed
	mean         float64              // mean service time in seconds, exponentially weighted
	done, failed int64
	wake         chan struct{}
	outbox       []WorkerEvent // raised under mu, for unlock to emit
}

type task struct {
	id        int64
	tag       float64
	job       *sched.Job
	claimedAt time.Time // after the claim committed
	leaseFrom time.Time // before the claim began: its lease runs from no earlier
	ctx       context.Context
	cancel    context.CancelCauseFunc
	started   time.Time
	finished  time.Time
	err       error
	lost      bool
	outage    bool  // taken off the worker for an outage: see stopOutage
	failures  int64 // the job's attempts that failed or timed out before this one
	stdout    []byte
	stderr    []byte
	result    []byte
	probe     bool
}

// NewWorker makes a worker on q; Handle gives it the kinds it runs.
func (q *Queue) NewWorker(o WorkerOptions) *Worker {
	o.Jobs = max(o.Jobs, 1)
	if o.FailLimit == 0 {
		o.FailLimit = 5
	}
	if o.Cooldown == 0 {
		o.Cooldown = time.Minute
	}
	o.Backoff = o.Backoff.OrDefault()
	if o.MaxClaim <= 0 {
		o.MaxClaim = 32
	}
	if o.Horizon == 0 {
		o.Horizon = 50 * time.Millisecond
	}
	var tag [4]byte
	rand.Read(tag[:])
	host, pid := hostname(), os.Getpid()
	name := cmp.Or(o.Name, host)
	if o.Shares == nil {
		o.Shares = []string{}
	}
	return &Worker{q: q, o: o, host: host, name: name, pid: pid, id: fmt.Sprintf("%s:%d:%s", name, pid, hex.EncodeToString(tag[:])),
		handlers: map[string]sched.Worker{}, tasks: map[int64]*task{}, streak: map[string]int{},
		outUntil: map[string]time.Time{}, probing: map[string]bool{}, wake: make(chan struct{}, 1)}
}

// ID names this run of the worker in the database: name:pid:tag. Its
// leases are held under it.
func (w *Worker) ID() string { return w.id }

// Name is the worker's stable name (WorkerOptions.Name, or the host's),
// which the jobs it ran record.
func (w *Worker) Name() string { return w.name }

// Handle makes w run jobs of kind with h. Call it before Run.
func (w *Worker) Handle(kind string, h sched.Worker) {
	w.handlers[kind] = h
	w.kinds = append(w.kinds, kind)
	slices.Sort(w.kinds)
}

type taskKey struct{}

// Output records a job's output for its attempt's record: shell.Worker's
// Output hook.
func (w *Worker) Output(j *sched.Job, stdout, stderr []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, t := range w.tasks {
		if t.job == j {
			t.stdout, t.stderr = slices.Clone(stdout), slices.Clone(stderr)
		}
	}
}

// SetResult records data as the result of the job whose context is ctx,
// for its submitter (Update.Result). Handlers call it.
func SetResult(ctx context.Context, data []byte) {
	if t, ok := ctx.Value(taskKey{}).(*task); ok {
		t.result = slices.Clone(data)
	}
}

func (w *Worker) emit(ev WorkerEvent) {
	if w.o.Events != nil {
		ev.Time = time.Now()
		w.o.Events(ev)
	}
}

// later queues an event raised under w.mu; unlock emits it. A holder of
// w.mu that calls later releases the lock with unlock.
func (w *Worker) later(ev WorkerEvent) { w.outbox = append(w.outbox, ev) }

// unlock releases w.mu and then emits, in order, the events raised while
// it was held, so that the Events callback never runs under the lock (it
// may be slow, or call back into the worker). sched.Engine does the same.
func (w *Worker) unlock() {
	out := w.outbox
	w.outbox = nil
	w.mu.Unlock()
	for _, ev := range out {
		w.emit(ev)
	}
}

// Run registers the worker, claims and runs jobs until ctx ends, then
// stops its running jobs, returns what it still holds to the queue and
// marks itself stopped. It returns nil when ctx ended it.
func (w *Worker) Run(ctx context.Context) error {
	if len(w.kinds) == 0 {
		return errors.New("worker: no job kinds")
	}
	// The server may have gone since Open: wait for it, as the running
	// worker does.
	if err := pgdb.Retry(ctx, w.q.link, func(ctx context.Context) error {
		_, err := w.q.pool.Exec(ctx, `INSERT INTO workers (id, host, pid, kinds, slots, name, shares, batch)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, w.id, w.host, w.pid, w.kinds, w.o.Jobs, w.name, w.o.Shares, w.o.Batch)
		return err
	}); err != nil {
		if ctx.Err() != nil {
			return nil // stopped before it started
		}
		return fmt.Errorf("register worker %s: %w", w.id, err)
	}
	now := time.Now()
	w.lastRenew, w.healthySince = now, now
	bg, stopBg := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); w.heartbeat(bg) }()
	go func() { defer wg.Done(); w.watchdog(bg) }()
	go func() { defer wg.Done(); w.listen(bg) }()
	var jobs sync.WaitGroup
	w.pump(ctx, &jobs)
	w.stopAll(sched.ErrStopped)
	jobs.Wait()
	// Jobs that ended before the stop are recorded; those it cancelled
	// go back to the queue.
	err := w.record(context.Background())
	stopBg()
	wg.Wait()
	return errors.Join(err, w.release())
}

// Start runs Run in the background, on a context that ctx's values reach
// but not its end: the caller decides when the worker stops, by calling
// stop, which returns Run's error.
func (w *Worker) Start(ctx context.Context) (stop func() error) {
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	return func() error {
		cancel()
		return <-done
	}
}

// pump starts claimed jobs, records finished ones and claims more, until
// ctx ends.
func (w *Worker) pump(ctx context.Context, jobs *sync.WaitGroup) {
	poll := time.NewTicker(time.Second)
	defer poll.Stop()
	for ctx.Err() == nil {
		w.startReady(ctx, jobs)
		if err := w.record(ctx); err != nil {
			w.dbError(err)
		}
		if ctx.Err() != nil {
			break
		}
		n, probes := w.wanted()
		got := 0
		if n > 0 || len(probes) > 0 {
			var err error
			got, err = w.claim(ctx, n, probes)
			if err != nil {
				w.dbError(err)
			}
		}
		w.startReady(ctx, jobs)
		if got > 0 && got == n {
			continue // there may be more
		}
		select {
		case <-ctx.Done():
		case <-w.wake:
		case <-poll.C:
		}
	}
}

// dbError notes a failed database operation: the worker is not healthy
// again until an operation succeeds, and requeues others' work only a
// lease after that. An outage goes to the queue's Link, once however
// long it lasts; an error the server reported is an "error" event.
func (w *Worker) dbError(err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	w.mu.Lock()
	w.healthySince = time.Time{}
	w.mu.Unlock()
	if !w.q.link.Fail(err) {
		w.emit(WorkerEvent{Type: "error", Err: err})
	}
}

// dbOK notes a successful database operation. The first after an
// outage wakes the pump, to record what ended meanwhile before another
// worker's sweep (a lease later) could requeue it.
func (w *Worker) dbOK() {
	w.mu.Lock()
	back := w.healthySince.IsZero()
	if back {
		w.healthySince = time.Now()
	}
	w.mu.Unlock()
	w.q.link.OK()
	if back {
		w.signal()
	}
}

// release returns the jobs the worker still holds to the queue (those it
// never started keep their attempt count) and marks it stopped.
func (w *Worker) release() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := pgx.BeginFunc(ctx, w.q.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE jobs SET state = 'queued', worker = NULL, lease_until = NULL,
			attempts = attempts - 1 WHERE worker = $1 AND state = 'running'`, w.id); err != nil {
			return err
		}
		w.mu.Lock()
		done, failed := w.done, w.failed
		w.mu.Unlock()
		// Its counts as they end: the last heartbeat may be a lease/3 old.
		if _, err := tx.Exec(ctx, `UPDATE workers SET stopped = now(), running = 0, done = $2, failed = $3 WHERE id = $1`,
			w.id, done, failed); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `SELECT pg_notify($1, '')`, notifyJobs)
		return err
	})
	if err != nil {
		return fmt.Errorf("release worker %s: %w", w.id, err)
	}
	return nil
}
