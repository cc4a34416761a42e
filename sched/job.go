package sched

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Class is a job's priority class, P0 (most urgent) to P3. Classes share
// service by weighted fair queueing with the weights of Class.Weight: none
// starves, and under saturation each gets its weight's share. The zero
// Class means the default, P2: Submit sets it.
type Class uint8

// The priority classes, from most to least urgent.
const (
	P0 Class = iota + 1 // real-time
	P1                  // interactive
	P2                  // normal, the default
	P3                  // background
)

// NumClasses is the number of priority classes.
const NumClasses = 4

var (
	classWeights = [NumClasses]float64{4, 2, 1, 0.5}
	classNames   = [NumClasses]string{"realtime", "interactive", "normal", "background"}
)

// Index returns 0..3 for P0..P3, and 2 for the zero Class (P2). It is the
// number in the class's name, and what the journal stores.
func (c Class) Index() int {
	if c == 0 {
		return int(P2) - 1
	}
	return int(c) - 1
}

// ClassOf returns the class of index i (0 for P0 ... 3 for P3).
func ClassOf(i int) Class { return Class(i + 1) }

func (c Class) valid() bool { return c <= P3 }

// Weight returns the class's share weight: 4, 2, 1 and 0.5 for P0..P3.
func (c Class) Weight() float64 { return classWeights[c.Index()] }

// String returns "P0".."P3".
func (c Class) String() string {
	if !c.valid() {
		return fmt.Sprintf("class(%d)", uint8(c))
	}
	return fmt.Sprintf("P%d", c.Index())
}

// Name returns the class's long name: realtime, interactive, normal or
// background.
func (c Class) Name() string { return classNames[c.Index()] }

// MarshalText writes the class as P0..P3, so JSON shows it so.
func (c Class) MarshalText() ([]byte, error) {
	if !c.valid() {
		return nil, fmt.Errorf("priority class %d out of range", uint8(c))
	}
	return []byte(c.String()), nil
}

// UnmarshalText reads what ParseClass reads.
func (c *Class) UnmarshalText(b []byte) error {
	v, err := ParseClass(string(b))
	if err == nil {
		*c = v
	}
	return err
}

// ParseClass reads a class given as P0..P3, 0..3 or its long name.
func ParseClass(s string) (Class, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for i := range NumClasses {
		c := ClassOf(i)
		if t == strings.ToLower(c.String()) || t == fmt.Sprint(i) || t == c.Name() {
			return c, nil
		}
	}
	return 0, fmt.Errorf("priority %q: want P0..P3 (or realtime, interactive, normal, background)", s)
}

// State is where a job is in its life, as the journal records it.
type State string

// The states of a job. Done, Failed, TimedOut and Cancelled are final for
// an attempt; a job whose attempt failed or timed out with retries left goes
// back to Queued.
const (
	StateQueued    State = "queued"
	StateRunning   State = "running"
	StateDone      State = "done"
	StateFailed    State = "failed"
	StateTimedOut  State = "timed_out"
	StateCancelled State = "cancelled"
)

// Terminal reports whether a job in state s will not run again by itself.
// Cancelled is not terminal: a re-run resumes cancelled jobs.
func (s State) Terminal() bool {
	return s == StateDone || s == StateFailed || s == StateTimedOut
}

// DefaultRetries is the retry budget callers give a job when the user says
// nothing.
const DefaultRetries = 3

// Job is one unit of work. The caller fills the fields above the line; the
// engine fills the rest.
type Job struct {
	Key       string        // idempotency key, unique in a journal; the engine makes one when empty
	Kind      string        // what the job is ("shell", "convert", "sms"); backends serve kinds
	Payload   []byte        // the work itself, read by the worker
	Label     string        // free text for people and for `calq history --label`
	Class     Class         // priority class; the zero Class is P2
	NotBefore time.Time     // earliest start; zero means at once
	Timeout   time.Duration // per attempt; zero means none
	Retries   int           // how many times a transient failure is retried
	Backend   string        // run only on this backend; empty means any that serves Kind

	ID       int64     // engine-local sequence number, from 1
	Attempts int       // attempts started so far, including those of earlier processes
	Enqueued time.Time // when the job was first submitted

	ready time.Time // when the job last became ready to run
	// failedOn is the backend whose failure this retry follows: the retry
	// goes to another when one takes the job (a dead device fails fast,
	// so marginal-rate dispatch would rate it best and pick it again).
	failedOn *backend
}

// Attempt is the outcome of one run of a job, as the engine reports it to
// the journal and to Options.Events.
type Attempt struct {
	Job      *Job
	Backend  string
	Attempt  int   // 1-based
	State    State // the attempt's outcome: done, failed, timed_out or cancelled
	Started  time.Time
	Finished time.Time
	Err      string    // the error, empty when done
	Reason   string    // a short failure class: "exit status 1", "timeout", "not found", ...
	RetryAt  time.Time // non-zero: the job goes back to queued, to start again no earlier than this
}

// Admission is what a journal says of a submitted job: whether this process
// should run it, and what is already known of it.
type Admission struct {
	Run      bool   // false: done already, or running under a live owner elsewhere
	State    State  // the job's state in the journal before this submission
	Attempts int    // attempts already made by earlier runs
	Owner    string // who holds it, when another live process does
	// NotBefore is when the job may start, as the journal has it: a
	// retry's backoff set by an earlier run.
	NotBefore time.Time
}

// Journal records every job's life durably and arbitrates between processes
// that share it: a job is claimed by exactly one of them. Implementations
// must be safe for concurrent use; package journal provides the SQLite one.
type Journal interface {
	// Batch returns the key prefix for a batch of jobs named key: the
	// unfinished batch of that name when there is one (so a re-run resumes
	// it), else a new generation of it.
	Batch(ctx context.Context, key string) (string, error)
	// Enqueue records jobs (idempotently, by Key) and says for each whether
	// this process should run it.
	Enqueue(ctx context.Context, jobs []*Job) ([]Admission, error)
	// Claim marks j running on backend for this process. It returns false
	// when another process has claimed it, it has finished meanwhile, or
	// it must not start before a time later than at (another process's
	// retry backoff).
	Claim(ctx context.Context, j *Job, backend string, at time.Time) (bool, error)
	// Finish records the outcome of an attempt; with a.RetryAt set the job
	// goes back to queued (not before RetryAt). It returns once the record
	// is durable.
	Finish(ctx context.Context, a Attempt) error
	// Close flushes pending writes and releases the process's leases.
	Close() error
}

// ErrTimeout is the cause of a job's context when the job ran past its
// timeout. A worker that keeps its own clock (Job.Timeout zero) returns
// an error wrapping it to record the attempt as timed out.
var ErrTimeout = errors.New("job timed out")

// ErrStopped is the cause of a job's context when the engine stops.
var ErrStopped = errors.New("engine stopped")

// permanentError marks an error that retrying cannot fix.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// Permanent marks err as permanent: the engine records the job failed and
// does not retry it. Errors are transient unless marked.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err}
}

// IsPermanent reports whether err, or an error it wraps, was marked with
// Permanent.
func IsPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}

// Reasoner is implemented by errors that name their failure class for
// metrics and history ("exit status 2", "killed", ...).
type Reasoner interface{ Reason() string }
