package sched

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"calq/sched/cq"
)

// Worker runs jobs. A backend's workers run concurrently, each one job at a
// time; a worker that holds a resource (a LibreOffice instance, a modem)
// keeps it between jobs.
type Worker interface {
	// Run does the job. It must return soon after ctx is cancelled; the
	// cause (context.Cause) is ErrTimeout or ErrStopped. Errors are
	// transient, and retried, unless marked with Permanent.
	Run(ctx context.Context, j *Job) error
}

// WorkerFunc adapts a function to Worker.
type WorkerFunc func(ctx context.Context, j *Job) error

// Run calls f.
func (f WorkerFunc) Run(ctx context.Context, j *Job) error { return f(ctx, j) }

// Backend is a named pool of workers that serves some kinds of job.
type Backend struct {
	Name    string
	Kinds   []string // kinds served; empty means every kind
	Workers []Worker
	// Health, when set, is called every HealthEvery (default 30s); an error
	// marks the backend down and moves its queued jobs to the others.
	Health      func(ctx context.Context) error
	HealthEvery time.Duration
}

// Backoff is the retry delay: Base·2^(n-1) for the n-th retry, spread by
// ±Jitter (a fraction) and capped at Max.
type Backoff struct {
	Base   time.Duration // default 2s
	Max    time.Duration // default 10m
	Jitter float64       // default 0.2; negative means none
}

// OrDefault returns b with its zero fields set to the defaults.
func (b Backoff) OrDefault() Backoff {
	if b.Base <= 0 {
		b.Base = 2 * time.Second
	}
	if b.Max <= 0 {
		b.Max = 10 * time.Minute
	}
	if b.Jitter == 0 {
		b.Jitter = 0.2
	}
	return b
}

// Delay is the delay before retry n (n ≥ 1), r a random number in [0, 1)
// that spreads it.
func (b Backoff) Delay(n int, r float64) time.Duration {
	d := float64(b.Base) * math.Pow(2, float64(n-1))
	if b.Jitter > 0 {
		d *= 1 + b.Jitter*(2*r-1)
	}
	return time.Duration(min(d, float64(b.Max)))
}

// EngineOptions configure an Engine. Only Backends is required.
type EngineOptions struct {
	Backends  []Backend
	Dispatch  Dispatch      // how a job picks among backends; MarginalRate by default
	Clock     Clock         // RealClock by default
	Journal   Journal       // nil: in memory only
	Metrics   *Metrics      // nil: no metrics
	Events    func(Event)   // job and backend events; called concurrently from the engine's goroutines
	Backoff   Backoff       // retry delays
	FailLimit int           // failures of one kind in a row before a backend stops taking it; default 5, negative never
	Cooldown  time.Duration // how long a backend taken out by FailLimit stays out before it gets the kind again, half-open (one more failure takes it out again); default 1m, negative never
	Grace     time.Duration // how long a stop waits for cancelled jobs to return; default 10s
	Rand      func() float64
}

// Summary counts what became of the jobs an engine was given.
type Summary struct {
	Submitted int `json:"submitted"`
	Done      int `json:"done"`
	Failed    int `json:"failed"`
	TimedOut  int `json:"timed_out"`
	Cancelled int `json:"cancelled"` // running when the engine stopped
	NotRun    int `json:"not_run"`   // still queued when the engine stopped
	Skipped   int `json:"skipped"`   // done already, or claimed by another process
	Retries   int `json:"retries"`
}

// Settled reports whether every submitted job has an outcome.
func (s Summary) Settled() bool {
	return s.Done+s.Failed+s.TimedOut+s.Cancelled+s.NotRun+s.Skipped == s.Submitted
}

// Engine runs jobs on pools of workers: it orders them by priority class
// with weighted fair queueing, dispatches them to backends, retries,
// times out and journals them. Create one with NewEngine, then Start,
// Submit and Wait; Close stops it. All methods are safe for concurrent use.
type Engine struct {
	opts     EngineOptions
	clock    Clock
	instance string

	mu       sync.Mutex
	backends []*backend
	byName   map[string]*backend
	timers   *cq.Queue[int64, timerEvent]
	slots    []*slot // every worker; slot.cur is its running attempt
	nrunning int
	pending  int // submitted jobs without an outcome
	drained  chan struct{}
	quiet    chan struct{} // closed when stopping and nothing runs
	stopping bool
	nextID   int64
	rr       int
	sum      Summary
	classLen [NumClasses]int
	outbox   []Event // raised under mu, delivered by unlock
	isQuiet  bool
	drainDue bool // pending reached 0: unlock closes drained
	// unstarted are the jobs a stop left queued, for Stop to record
	// cancelled in the journal.
	unstarted []*Job

	wake    chan struct{} // pokes the timer loop
	quit    chan struct{}
	base    context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	started bool
	closed  bool
}

// NewEngine checks opts and returns an engine that is not yet started.
func NewEngine(opts EngineOptions) (*Engine, error) {
	if len(opts.Backends) == 0 {
		return nil, errors.New("new engine: no backends")
	}
	opts = withDefaults(opts)
	e := &Engine{
		opts:   opts,
		clock:  opts.Clock,
		byName: map[string]*backend{},
		timers: cq.NewQueue[int64, timerEvent](cq.Options{}),
		wake:   make(chan struct{}, 1),
		quit:   make(chan struct{}),
	}
	var id [4]byte
	_, _ = crand.Read(id[:])
	e.instance = hex.EncodeToString(id[:])
	for i, b := range opts.Backends {
		if b.Name == "" || e.byName[b.Name] != nil {
			return nil, fmt.Errorf("new engine: backend %d: name %q empty or repeated", i, b.Name)
		}
		if len(b.Workers) == 0 {
			return nil, fmt.Errorf("new engine: backend %q has no workers", b.Name)
		}
		nb := newBackend(b)
		opts.Metrics.series(nb, opts.Dispatch)
		e.backends = append(e.backends, nb)
		e.byName[b.Name] = nb
	}
	e.base, e.cancel = context.WithCancel(context.Background())
	return e, nil
}

func withDefaults(o EngineOptions) EngineOptions {
	if o.Clock == nil {
		o.Clock = RealClock{}
	}
	o.Backoff = o.Backoff.OrDefault()
	if o.FailLimit == 0 {
		o.FailLimit = 5
	}
	if o.Cooldown == 0 {
		o.Cooldown = time.Minute
	}
	if o.Grace <= 0 {
		o.Grace = 10 * time.Second
	}
	if o.Rand == nil {
		o.Rand = rand.Float64
	}
	return o
}

// Start starts the workers and the timer loop.
func (e *Engine) Start() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.started {
		return
	}
	e.started = true
	for _, b := range e.backends {
		for _, w := range b.Workers {
			s := &slot{b: b, w: w, wake: make(chan struct{}, 1)}
			e.slots = append(e.slots, s)
			e.wg.Add(1)
			go e.work(s)
		}
		if b.Health != nil {
			e.pushTimer(e.clock.Now(), timerEvent{kind: evHealth, b: b})
		}
	}
	e.wg.Add(1)
	go e.timerLoop()
}

// Summary returns the counts so far.
func (e *Engine) Summary() Summary {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sum
}

// Wait blocks until every submitted job has an outcome, or ctx ends. When
// ctx ends it stops the engine gracefully (see Stop) and returns the
// summary with an error wrapping context.Cause(ctx).
func (e *Engine) Wait(ctx context.Context) (Summary, error) {
	e.mu.Lock()
	if e.pending == 0 {
		defer e.mu.Unlock()
		return e.sum, nil
	}
	ch := e.drained
	e.mu.Unlock()
	select {
	case <-ch:
		return e.Summary(), nil
	case <-ctx.Done():
		err := e.Stop()
		return e.Summary(), errors.Join(fmt.Errorf("engine stopped: %w", context.Cause(ctx)), err)
	}
}

// Stop stops dispatching, cancels the running jobs (their context's cause
// is ErrStopped) and waits up to the grace period for them to return and
// be recorded as cancelled. Jobs still queued are not started (NotRun),
// and a journal that is a QueueCanceller records them cancelled too, so
// that none is left queued for ever; a re-run resumes them all.
func (e *Engine) Stop() error {
	err := e.stop()
	e.mu.Lock()
	jobs := e.unstarted
	e.unstarted = nil
	e.mu.Unlock()
	return errors.Join(err, e.cancelUnstarted(jobs))
}

func (e *Engine) stop() error {
	e.mu.Lock()
	if !e.stopping {
		e.stopping = true
		e.quiet = make(chan struct{})
		for _, s := range e.slots {
			if s.cur != nil {
				s.cur.cancel(ErrStopped)
			}
		}
		e.abandonQueued()
		e.checkQuiet()
	}
	quiet := e.quiet
	e.unlock()
	t := e.clock.NewTimer(e.opts.Grace)
	defer t.Stop()
	select {
	case <-quiet:
		return nil
	case <-t.C():
		return e.giveUp()
	}
}

// giveUp records the jobs that did not return within the grace period as
// cancelled, so that nothing is left running in the journal.
func (e *Engine) giveUp() error {
	e.mu.Lock()
	var left []*run
	for _, s := range e.slots {
		if s.cur != nil {
			left = append(left, s.cur)
		}
	}
	e.mu.Unlock()
	for _, r := range left {
		e.finishStuck(r)
	}
	return fmt.Errorf("stop: %d running jobs did not return within %v", len(left), e.opts.Grace)
}

// Close stops the engine if needed, then ends its goroutines. Workers stuck
// in a job past the grace period are left behind.
func (e *Engine) Close() error {
	err := e.Stop()
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return err
	}
	e.closed = true
	close(e.quit)
	e.mu.Unlock()
	e.cancel()
	done := make(chan struct{})
	go func() { e.wg.Wait(); close(done) }()
	t := e.clock.NewTimer(e.opts.Grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C():
		err = errors.Join(err, errors.New("close: workers still busy after the grace period"))
	}
	return err
}

func (e *Engine) emit(ev Event) {
	if e.opts.Events != nil {
		e.opts.Events(ev)
	}
}

// Pending is how many submitted jobs have not ended yet. A caller that
// submits in bulk may wait while it is high, to bound the queue's memory.
func (e *Engine) Pending() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.pending
}

// QueueCanceller is a Journal that records jobs it holds queued as
// cancelled, with a reason: the jobs a stop leaves unstarted
// (*journal.Journal is one). Cancelled jobs are claimed again by a
// re-run, as queued ones are.
type QueueCanceller interface {
	CancelQueued(ctx context.Context, jobs []*Job, reason string) error
}

// notStarted counts j as not run: the engine stops before it starts. e.mu
// is held.
func (e *Engine) notStarted(j *Job) {
	e.sum.NotRun++
	e.settled()
	e.unstarted = append(e.unstarted, j)
}

// cancelUnstarted records jobs that a stop left unstarted as cancelled in
// the journal, when it can.
func (e *Engine) cancelUnstarted(jobs []*Job) error {
	qc, ok := e.opts.Journal.(QueueCanceller)
	if !ok || len(jobs) == 0 {
		return nil
	}
	if err := qc.CancelQueued(context.Background(), jobs, "stopped before it started"); err != nil {
		return fmt.Errorf("stop: %w", err)
	}
	return nil
}
