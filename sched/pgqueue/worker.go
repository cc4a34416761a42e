package pgqueue

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"os"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"calq/internal/bytestr"
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

func (w *Worker) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// wanted says how many jobs to claim of the enabled kinds, and which
// kinds are due a half-open probe.
func (w *Worker) wanted() (int, []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	held := w.busy + len(w.ready)
	capacity := w.o.Jobs
	if w.o.Horizon > 0 && w.mean > 0 {
		capacity += int(math.Min(float64(w.o.Jobs)*w.o.Horizon.Seconds()/w.mean, float64(2*w.o.MaxClaim)))
	}
	var probes []string
	now := time.Now()
	for k, until := range w.outUntil {
		if now.After(until) && !w.probing[k] && held < capacity {
			probes = append(probes, k)
		}
	}
	sort.Strings(probes)
	return min(max(capacity-held, 0), w.o.MaxClaim), probes
}

// enabled lists the kinds the worker claims freely.
func (w *Worker) enabled() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var ks []string
	for _, k := range w.kinds {
		if _, out := w.outUntil[k]; !out {
			ks = append(ks, k)
		}
	}
	return ks
}

const claimSQL = `WITH c AS (
		SELECT id FROM jobs
		WHERE state = 'queued' AND kind = ANY($1) AND (not_before IS NULL OR not_before <= now())
			AND ($5 = '' OR batch = $5) AND (share = '' OR share = ANY($6))
		ORDER BY tag, id LIMIT $2 FOR UPDATE SKIP LOCKED)
	UPDATE jobs j SET state = 'running', worker = $3, ran_on = $7,
		lease_until = now() + $4 * interval '1 second', attempts = j.attempts + 1,
		started = COALESCE(j.started, now()),
		wait_s = COALESCE(j.wait_s, extract(epoch FROM now() - j.enqueued))
	FROM c WHERE j.id = c.id
	RETURNING j.id, j.tag, j.key, j.kind, j.label, j.payload, j.class, j.attempts, j.retries, j.timeout_s, j.enqueued,
		(SELECT count(*) FROM attempts a WHERE a.job_id = j.id AND a.state IN ('failed', 'timed_out'))`

// claim claims up to n jobs of the enabled kinds and one of each probe
// kind, and puts them in the ready list in tag order.
func (w *Worker) claim(ctx context.Context, n int, probes []string) (int, error) {
	lease := w.q.lease.Seconds()
	from := time.Now()
	var got []*task
	err := pgx.BeginFunc(ctx, w.q.pool, func(tx pgx.Tx) error {
		got = got[:0]
		read := func(kinds []string, limit int, probe bool) error {
			rows, err := tx.Query(ctx, claimSQL, kinds, limit, w.id, lease, w.o.Batch, w.o.Shares, w.name)
			if err != nil {
				return err
			}
			ts, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*task, error) {
				t := &task{job: &sched.Job{}, probe: probe}
				var class int16
				var timeout *float64
				err := r.Scan(&t.id, &t.tag, &t.job.Key, &t.job.Kind, &t.job.Label, &t.job.Payload, &class,
					&t.job.Attempts, &t.job.Retries, &timeout, &t.job.Enqueued, &t.failures)
				t.job.Class = sched.ClassOf(int(class))
				if timeout != nil {
					t.job.Timeout = time.Duration(*timeout * float64(time.Second))
				}
				return t, err
			})
			got = append(got, ts...)
			return err
		}
		if kinds := w.enabled(); n > 0 && len(kinds) > 0 {
			if err := read(kinds, n, false); err != nil {
				return err
			}
		}
		for _, k := range probes {
			if err := read([]string{k}, 1, true); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("claim jobs: %w", err)
	}
	w.dbOK()
	now := time.Now()
	sort.Slice(got, func(i, j int) bool { return got[i].tag < got[j].tag })
	w.mu.Lock()
	for _, t := range got {
		t.claimedAt, t.leaseFrom = now, from
		w.tasks[t.id] = t
		if t.probe {
			w.probing[t.job.Kind] = true
		}
	}
	w.ready = append(w.ready, got...)
	w.mu.Unlock()
	return len(got), nil
}

// startReady starts ready jobs while slots are free.
func (w *Worker) startReady(ctx context.Context, jobs *sync.WaitGroup) {
	var evs []WorkerEvent
	w.mu.Lock()
	defer func() {
		w.mu.Unlock()
		for _, ev := range evs {
			w.emit(ev)
		}
	}()
	for w.busy < w.o.Jobs && len(w.ready) > 0 && ctx.Err() == nil {
		t := w.ready[0]
		w.ready = w.ready[1:]
		w.busy++
		t.started = time.Now()
		var tctx context.Context = context.WithValue(ctx, taskKey{}, t)
		tctx, t.cancel = context.WithCancelCause(context.WithoutCancel(tctx))
		t.ctx = tctx
		jobs.Add(1)
		evs = append(evs, WorkerEvent{Type: "started", Key: t.job.Key, Kind: t.job.Kind, Attempt: t.job.Attempts})
		go w.runTask(t, jobs)
	}
}

func (w *Worker) runTask(t *task, jobs *sync.WaitGroup) {
	defer jobs.Done()
	ctx := t.ctx
	if t.job.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, t.job.Timeout, sched.ErrTimeout)
		defer cancel()
	}
	err := w.safeRun(ctx, t)
	if c := context.Cause(ctx); errors.Is(c, sched.ErrTimeout) && err != nil {
		err = fmt.Errorf("%w after %v", sched.ErrTimeout, t.job.Timeout)
	}
	w.mu.Lock()
	t.finished, t.err = time.Now(), err
	w.busy--
	w.results = append(w.results, t)
	w.mu.Unlock()
	t.cancel(nil)
	w.signal()
}

func (w *Worker) safeRun(ctx context.Context, t *task) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = sched.Permanent(fmt.Errorf("worker panicked: %v", p))
		}
	}()
	return w.handlers[t.job.Kind].Run(ctx, t.job)
}

// outcome classifies a finished task as the engine does: its state, its
// reason, and when it runs again (zero: it does not).
func (w *Worker) outcome(t *task) (state sched.State, reason string, retryIn time.Duration) {
	err := t.err
	switch {
	case err == nil:
		return sched.StateDone, "", 0
	case errors.Is(context.Cause(t.ctx), sched.ErrStopped):
		return sched.StateCancelled, "cancelled", 0
	case errors.Is(context.Cause(t.ctx), ErrOutage):
		return sched.StateCancelled, "outage", 0
	case errors.Is(err, sched.ErrTimeout):
		state, reason = sched.StateTimedOut, "timeout"
	default:
		state, reason = sched.StateFailed, sched.ReasonOf(err)
	}
	// Retries count failures: an attempt lost with its worker, stopped or
	// cut short by an outage was not the job's (MaxLost bounds those).
	if !sched.IsPermanent(err) && t.failures < int64(t.job.Retries) {
		retryIn = w.o.Backoff.Delay(t.job.Attempts, mrand.Float64())
	}
	return state, reason, retryIn
}

const finishSQL = `WITH f AS (
		UPDATE jobs SET state = $2, finished = CASE WHEN $3 THEN now() END, error = $4, reason = $5, run_s = $6,
			not_before = CASE WHEN $3 THEN not_before ELSE now() + $7 * interval '1 second' END,
			worker = NULL, lease_until = NULL
		WHERE id = $1 AND worker = $8 AND state = 'running' AND attempts = $9
		RETURNING id)
	INSERT INTO attempts (job_id, attempt, worker, state, final, started, error, reason, stdout, stderr, result,
		retry_at, retries)
	SELECT id, $9, $16, $10, $3, $11, $4, $5, $12, $13, $14, CASE WHEN $3 THEN NULL ELSE now() + $7 * interval '1 second' END,
		$15 FROM f
	ON CONFLICT (job_id, attempt) DO NOTHING
	RETURNING job_id`

// unclaimSQL returns a job claimed and never started to the queue, as
// release does, if the row still names this worker and attempt.
const unclaimSQL = `UPDATE jobs SET state = 'queued', worker = NULL, lease_until = NULL, attempts = attempts - 1
	WHERE id = $1 AND worker = $2 AND state = 'running' AND attempts = $3
	RETURNING id`

// relabelSQL marks as the outage's the attempt that another worker
// requeued as lost while this one could not reach the server: this
// worker was alive and stopped the job itself, so the attempt does not
// count towards MaxLost. An attempt that already gave the job up stays.
const relabelSQL = `UPDATE attempts SET reason = 'outage'
	WHERE job_id = $1 AND attempt = $2 AND reason = 'lease expired' AND NOT final`

// rec is a finished task as record writes it.
type rec struct {
	t       *task
	state   sched.State
	reason  string
	retryIn time.Duration
	outage  bool // t was taken off the worker for an outage
}

// record writes the finished jobs' attempts, in one transaction. A job
// whose lease is lost (another worker requeued it) is dropped unrecorded.
// One whose lease only ran out, as in an outage, is recorded when no
// other worker has requeued it since: the row still names this worker
// and attempt (finishSQL), so its result is kept and it does not run
// again. A job stopped for an outage before it started goes back to the
// queue (unclaimSQL).
func (w *Worker) record(ctx context.Context) error {
	w.mu.Lock()
	ts := w.results
	w.results = nil
	// The watchdog may mark them while they are written.
	lost, outage := make([]bool, len(ts)), make([]bool, len(ts))
	for i, t := range ts {
		lost[i], outage[i] = t.lost, t.outage
	}
	w.mu.Unlock()
	var recs []rec
	for i, t := range ts {
		if lost[i] {
			w.forget(t, false)
			continue
		}
		r := rec{t: t, outage: outage[i]}
		if t.ctx != nil {
			r.state, r.reason, r.retryIn = w.outcome(t)
		}
		recs = append(recs, r)
	}
	if len(recs) == 0 {
		return nil
	}
	held := make([]bool, len(recs))
	requeued := slices.ContainsFunc(recs, func(r rec) bool { return r.t.ctx == nil || r.state == sched.StateCancelled })
	err := pgx.BeginFunc(context.WithoutCancel(ctx), w.q.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		for i, r := range recs {
			w.queueRec(b, r).QueryRow(func(row pgx.Row) error {
				var id int64
				err := row.Scan(&id)
				held[i] = err == nil
				if errors.Is(err, pgx.ErrNoRows) {
					return nil
				}
				return err
			})
			if r.outage {
				b.Queue(relabelSQL, r.t.id, r.t.job.Attempts)
			}
		}
		b.Queue(`SELECT pg_notify($1, '')`, notifyAttempts)
		if requeued { // at once, not at the next poll
			b.Queue(`SELECT pg_notify($1, '')`, notifyJobs)
		}
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		// Not recorded: the jobs stay running under this worker's lease
		// and are tried again at the next round, unless the lease is lost.
		w.mu.Lock()
		w.results = append(w.results, ts...)
		w.mu.Unlock()
		return fmt.Errorf("record %d jobs: %w", len(recs), err)
	}
	w.dbOK()
	for i, r := range recs {
		switch {
		case !held[i]:
			w.forget(r.t, true)
		case r.t.ctx == nil:
			w.forget(r.t, false) // its outage event said so
		default:
			typ := string(r.state)
			if r.retryIn > 0 {
				typ = "retry"
			}
			w.forget(r.t, false)
			w.learn(r.t, r.state)
			w.emit(WorkerEvent{Type: typ, Key: r.t.job.Key, Kind: r.t.job.Kind, Attempt: r.t.job.Attempts, Err: r.t.err})
		}
	}
	return nil
}

// queueRec queues the statement that records r, or that returns its job
// to the queue when it never started.
func (w *Worker) queueRec(b *pgx.Batch, r rec) *pgx.QueuedQuery {
	t := r.t
	if t.ctx == nil {
		return b.Queue(unclaimSQL, t.id, w.id, t.job.Attempts)
	}
	final := r.retryIn == 0
	state := r.state
	if !final {
		state = sched.StateQueued
	}
	if r.state == sched.StateCancelled {
		final, state = false, sched.StateQueued
	}
	var errText *string
	if t.err != nil {
		s := bytestr.Text(t.err.Error())
		errText = &s
	}
	var reason *string
	if r.reason != "" {
		reason = &r.reason
	}
	return b.Queue(finishSQL, t.id, string(state), final, errText, reason, t.finished.Sub(t.started).Seconds(),
		r.retryIn.Seconds(), w.id, t.job.Attempts, string(r.state), t.started, t.stdout, t.stderr, t.result,
		t.job.Retries, w.name)
}

// forget drops a task from the worker's books; a lost one is reported.
func (w *Worker) forget(t *task, lost bool) {
	w.mu.Lock()
	delete(w.tasks, t.id)
	if t.probe {
		delete(w.probing, t.job.Kind)
	}
	w.mu.Unlock()
	if lost {
		w.emit(lostEvent(t))
	}
}

// learn updates the service-time mean and the kind's failure streak.
func (w *Worker) learn(t *task, state sched.State) {
	var evs []WorkerEvent
	w.mu.Lock()
	defer func() {
		w.mu.Unlock()
		for _, ev := range evs {
			w.emit(ev)
		}
	}()
	run := t.finished.Sub(t.started).Seconds()
	if w.mean == 0 {
		w.mean = run
	} else {
		w.mean += 0.1 * (run - w.mean)
	}
	k := t.job.Kind
	switch state {
	case sched.StateDone:
		w.done++
		w.streak[k] = 0
		if _, out := w.outUntil[k]; out && t.probe {
			delete(w.outUntil, k)
			evs = append(evs, WorkerEvent{Type: "enabled", Kind: k})
		}
	case sched.StateFailed, sched.StateTimedOut:
		w.failed++
		w.streak[k]++
		if _, out := w.outUntil[k]; (out && t.probe) || (!out && w.o.FailLimit > 0 && w.streak[k] >= w.o.FailLimit) {
			w.outUntil[k] = time.Now().Add(w.o.Cooldown)
			evs = append(evs, WorkerEvent{Type: "disabled", Kind: k, N: w.streak[k]})
		}
	}
}

// stopAll cancels every running job with cause.
func (w *Worker) stopAll(cause error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, t := range w.tasks {
		if t.cancel != nil {
			t.cancel(cause)
		}
	}
}

// listen wakes the pump when jobs are submitted or requeued.
func (w *Worker) listen(ctx context.Context) {
	for ctx.Err() == nil {
		conn, err := w.q.pool.Acquire(ctx)
		if err == nil {
			_, err = conn.Exec(ctx, "LISTEN "+notifyJobs)
			if err == nil {
				// What was notified before LISTEN took effect (at the
				// start, after a reconnection) is missed: look now.
				w.signal()
			}
			for err == nil {
				_, err = conn.Conn().WaitForNotification(ctx)
				if err == nil {
					w.signal()
				}
			}
			conn.Conn().Close(context.Background()) // a listening connection is not given back
			conn.Release()
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
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
