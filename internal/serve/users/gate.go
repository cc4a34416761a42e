package users

import (
	"errors"
	"runtime/debug"
	"sync"
	"time"
)

// ErrBusy is a password check or change refused because as many
// password hashes as the HashGate allows are running: the caller may
// try again in a moment (calq serve answers 429 with Retry-After).
var ErrBusy = errors.New("too many password hashes at once")

// DefaultMaxHashes is how many password hashes Hashes lets run at once:
// 4 × HashMemory is 76 MiB.
const DefaultMaxHashes = 4

// HashMemory is what one password hash takes while it runs, in bytes:
// argon2id's 19 MiB.
const HashMemory = argonMemory * 1024

// Hashes is the process's HashGate: every Store's CheckPassword and
// SetPassword pass through it, since the memory they take is the
// process's.
var Hashes = NewHashGate(DefaultMaxHashes)

// A HashGate bounds the password hashes that run at once, and gives their
// memory back to the operating system once they are over: each argon2id
// hash allocates HashMemory, which Go's heap would otherwise keep after a
// burst. Beyond Max, TryEnter refuses at once rather than queueing, so
// that neither memory nor waiting requests grow with a burst. It is safe
// for concurrent use.
type HashGate struct {
	mu      sync.Mutex
	max     int
	stats   HashStats
	every   time.Duration // at most one release per every
	last    time.Time     // of the last release
	pending bool          // a release is scheduled or running
	again   bool          // hashes ended while it was: one more is due
	release func()        // gives the free memory back: debug.FreeOSMemory
}

// HashStats are what a HashGate counted since it was made.
type HashStats struct {
	Running  int    // hashes running now
	Most     int    // the most that ran at once
	Done     uint64 // hashes that ran
	Busy     uint64 // refused by TryEnter: Max were running
	Released uint64 // times the memory was given back after a burst
	// Unreleased is how many hashes ended since the memory was last
	// given back: 0 once a burst's memory is back.
	Unreleased int
}

// NewHashGate returns a HashGate that lets max hashes run at once (at
// least 1), and gives the memory back at most once a second.
func NewHashGate(n int) *HashGate {
	return &HashGate{max: max(1, n), every: time.Second, release: debug.FreeOSMemory}
}

// SetMax changes how many hashes may run at once (at least 1). Hashes
// running beyond a lowered Max end as they would.
func (g *HashGate) SetMax(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.max = max(1, n)
}

// Max is how many hashes may run at once.
func (g *HashGate) Max() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.max
}

// TryEnter takes a place for one hash and says whether it got one;
// false when Max hashes are running. A true must be followed by Leave.
func (g *HashGate) TryEnter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stats.Running >= g.max {
		g.stats.Busy++
		return false
	}
	g.stats.Running++
	g.stats.Most = max(g.stats.Most, g.stats.Running)
	return true
}

// Leave gives back the place of a hash that ended. When it was the last
// one running, the memory is given back to the operating system, in the
// background: now, or a second after the last time when that was sooner.
func (g *HashGate) Leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stats.Running--
	g.stats.Done++
	g.stats.Unreleased++
	if g.stats.Running == 0 {
		g.schedule()
	}
}

// schedule gives the memory back once a second has passed since the last
// time; g.mu is held.
func (g *HashGate) schedule() {
	if g.pending {
		g.again = true
		return
	}
	g.pending = true
	time.AfterFunc(max(0, g.every-time.Since(g.last)), g.releaseIdle)
}

// releaseIdle gives the memory back unless hashes started meanwhile (the
// last of them to end schedules it again).
func (g *HashGate) releaseIdle() {
	g.mu.Lock()
	idle := g.stats.Running == 0
	owed := g.stats.Unreleased
	g.again = false
	if !idle {
		g.pending = false
	}
	g.mu.Unlock()
	if !idle {
		return
	}
	g.release()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.last = time.Now()
	g.stats.Released++
	g.stats.Unreleased -= owed
	g.pending = false
	if g.again && g.stats.Running == 0 {
		g.again = false
		g.schedule()
	}
}

// Stats returns what g counted.
func (g *HashGate) Stats() HashStats {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stats
}
