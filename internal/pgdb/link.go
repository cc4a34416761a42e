package pgdb

import (
	"sync"
	"time"
)

// Link is a long-running loop's view of the server: it reports an outage
// once when it begins (Lost, with its first error) and once when it ends
// (Back, with how long it lasted), however many operations fail in
// between. The zero Link reports nothing; a nil *Link is a valid no-op.
type Link struct {
	Lost func(err error)
	Back func(down time.Duration)

	mu   sync.Mutex
	down time.Time // zero while connected
}

// Fail notes err from an operation on the server and reports whether it
// is an outage (see Transient); the first of an outage goes to Lost.
func (l *Link) Fail(err error) bool {
	if !Transient(err) {
		return false
	}
	if l == nil {
		return true
	}
	l.mu.Lock()
	first := l.down.IsZero()
	if first {
		l.down = time.Now()
	}
	l.mu.Unlock()
	if first && l.Lost != nil {
		l.Lost(err)
	}
	return true
}

// OK notes a successful operation: the end of an outage goes to Back.
func (l *Link) OK() {
	if l == nil {
		return
	}
	l.mu.Lock()
	since := l.down
	l.down = time.Time{}
	l.mu.Unlock()
	if !since.IsZero() && l.Back != nil {
		l.Back(time.Since(since))
	}
}

// Down reports whether an outage is under way.
func (l *Link) Down() bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.down.IsZero()
}
