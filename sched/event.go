package sched

import "time"

// EventType says what an Event reports.
type EventType string

// The events an engine reports through EngineOptions.Events. The outcome
// of an attempt is one of done, failed, timed_out, cancelled or retry (a
// failure or timeout that will be retried; Event.State says which).
const (
	EventStarted      EventType = "started"
	EventDone         EventType = "done"
	EventFailed       EventType = "failed"
	EventTimedOut     EventType = "timed_out"
	EventCancelled    EventType = "cancelled"
	EventRetry        EventType = "retry"
	EventSkipped      EventType = "skipped" // done already, or claimed by another process
	EventBackendDown  EventType = "backend_down"
	EventBackendUp    EventType = "backend_up"
	EventKindDisabled EventType = "kind_disabled" // a backend stopped taking a kind after failures in a row
	EventKindKept     EventType = "kind_kept"     // ... or could not, as no other backend takes it
	EventKindEnabled  EventType = "kind_enabled"  // a backend takes a kind again after its cooldown
	EventJournalError EventType = "journal_error"
)

// Event is something that happened to a job or a backend.
type Event struct {
	Type    EventType
	Time    time.Time
	Job     *Job // nil for backend events
	Backend string
	Attempt int
	State   State  // skipped: the job's state in the journal; retry: the failed attempt's state
	Owner   string // skipped: the process that holds the job
	Err     error
	Reason  string
	Wait    time.Duration // started: since the job was enqueued
	Run     time.Duration // outcomes: how long the attempt ran
	RetryAt time.Time
	Message string
}

// later queues an event raised under e.mu; unlock delivers it.
func (e *Engine) later(ev Event) { e.outbox = append(e.outbox, ev) }

// unlock releases e.mu and then delivers the events raised while it was
// held, so that a slow Events callback never holds up the engine's lock.
func (e *Engine) unlock() {
	out := e.outbox
	e.outbox = nil
	var drained chan struct{}
	if e.drainDue {
		e.drainDue = false
		drained = e.drained
	}
	e.mu.Unlock()
	for _, ev := range out {
		e.emit(ev)
	}
	if drained != nil {
		close(drained)
	}
}
