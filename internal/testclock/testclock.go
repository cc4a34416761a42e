// Package testclock is a clock that tests set by hand, for the Now
// options of calq's packages (journal.Options.Now and the like). It is
// safe for concurrent use.
package testclock

import (
	"sync"
	"time"
)

// Clock is a time that changes only when Set is called.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// New returns a Clock showing t.
func New(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the time last set.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}
