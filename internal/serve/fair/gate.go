package fair

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"calq/sched"
)

// Errors of Acquire and Reserve, for callers to branch on (errors.Is): the
// server answers ErrFull and ErrUserFull with 429 (Retry-After: Drain of
// the request's files), ErrTooLarge with 413.
var (
	// ErrFull: the whole gate already holds MaxWaiting waiting or
	// reserved files.
	ErrFull = errors.New("too many files waiting for a converter")
	// ErrUserFull: this user already holds MaxWaitingPerUser waiting or
	// reserved files.
	ErrUserFull = errors.New("too many of this user's files waiting for a converter")
	// ErrTooLarge: the request has more files than the bounds allow even
	// on an idle gate.
	ErrTooLarge = errors.New("more files than may ever wait for a converter")
	// ErrSpent: Reservation.Acquire after all its units were used or Done
	// was called.
	ErrSpent = errors.New("reservation spent")
)

// Options configure a Gate.
type Options struct {
	// Servers is c, the number of instances; at least 1.
	Servers int
	// MaxWaiting bounds the files waiting or reserved in the whole gate,
	// MaxWaitingPerUser those of one user; 0 means no bound.
	MaxWaiting        int
	MaxWaitingPerUser int
	// Weight gives a user's share (a user of weight 2 is served twice as
	// often as one of weight 1 when both wait). Nil, or a result that is
	// not positive and finite, means 1. It is called with the gate's lock
	// held, when a user starts waiting, so it must be quick and must not
	// call the Gate.
	Weight func(user string) float64
	// DefaultService is the service time PredictWait assumes before any
	// has been measured, and the prior the estimate goes back to (see
	// estimate); 0 means 1 s.
	DefaultService time.Duration
	// Window is how many recent service times the estimate is the mean
	// of; 0 means 32.
	Window int
	// HalfLife is the age at which a measured service time counts half
	// as much as a fresh one against DefaultService; 0 means 5 minutes.
	HalfLife time.Duration
	// Now is the clock service times are measured with; nil means
	// time.Now.
	Now func() time.Time
}

// Gate is a fair semaphore over Options.Servers servers. The zero Gate is
// not usable: call New.
type Gate struct {
	o Options

	mu       sync.Mutex
	free     []int    // indexes of idle servers, used as a stack
	ready    userHeap // users with waiting files, by start tag
	users    map[string]*user
	vtime    float64  // virtual time: the start tag of the last grant
	maxTag   float64  // the largest finish tag granted
	seq      uint64   // orders users who start waiting, to break ties
	sweepAt  int      // sweep user records when there are this many
	waiting  int      // files waiting in Acquire
	reserved int      // units of live Reservations not yet acquired
	service  estimate // from recent service times
}

// New returns a Gate with every server free. It panics when o.Servers is
// less than 1, a programming error.
func New(o Options) *Gate {
	if o.Servers < 1 {
		panic(fmt.Sprintf("fair.New: %d servers", o.Servers))
	}
	if o.DefaultService <= 0 {
		o.DefaultService = time.Second
	}
	if o.Window <= 0 {
		o.Window = 32
	}
	if o.HalfLife <= 0 {
		o.HalfLife = 5 * time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	g := &Gate{o: o, users: make(map[string]*user), service: newEstimate(o.DefaultService, o.HalfLife, o.Window)}
	for i := o.Servers - 1; i >= 0; i-- {
		g.free = append(g.free, i) // server 0 on top: the first grant gets it
	}
	return g
}

// Slot is one server held by one file, from Acquire until Release.
type Slot struct {
	g        *Gate
	server   int
	start    time.Time
	released bool
}

// Server returns which server (0 to Servers-1) the slot holds.
func (s *Slot) Server() int { return s.server }

// Release frees the server for the next waiter and records the time since
// Acquire returned as a service time. Releasing twice, or after
// ReleaseCut, is a no-op.
func (s *Slot) Release() { s.release(false) }

// ReleaseCut is Release for a service that did not run to its end (it
// timed out, or was cancelled): its time says only that the file would
// have taken longer, so it counts as at most a few typical service times
// (see estimate), and one file cut at 30 s cannot make every other file
// look that slow.
func (s *Slot) ReleaseCut() { s.release(true) }

func (s *Slot) release(cut bool) {
	g := s.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if s.released {
		return
	}
	s.released = true
	now := g.o.Now()
	g.service.add(now.Sub(s.start), now, cut)
	g.freeServer(s.server)
}

// Acquire waits until a server is free and it is this file's turn, and
// returns the slot: the caller converts on Slot.Server and then calls
// Release. It returns at once with ErrFull or ErrUserFull (wrapped) when
// the file would have to wait and the bounds are reached, and with
// ctx.Err() (wrapped) when ctx ends first, in which case no server is
// held. A class out of P0..P3 is an error; the zero class is P2.
func (g *Gate) Acquire(ctx context.Context, user string, class sched.Class) (*Slot, error) {
	if err := checkClass(class); err != nil {
		return nil, err
	}
	g.mu.Lock()
	if len(g.free) == 0 {
		if err := g.checkBounds(user, 1); err != nil {
			g.mu.Unlock()
			return nil, err
		}
	}
	return g.wait(ctx, user, class) // unlocks
}

// wait queues a file of user and waits for its grant. It is called with
// g.mu held and returns with it released.
func (g *Gate) wait(ctx context.Context, user string, class sched.Class) (*Slot, error) {
	if err := ctx.Err(); err != nil {
		g.mu.Unlock()
		return nil, fmt.Errorf("waiting for a converter: %w", err)
	}
	w := g.enqueue(user, class)
	g.dispatch()
	g.mu.Unlock()
	select {
	case <-w.granted:
		return g.slot(w), nil
	case <-ctx.Done():
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-w.granted: // granted as ctx ended: give the server back, but
		// keep the user's tag moved on, as a cancel after a grant costs a turn
		g.freeServer(w.server)
	default:
		g.remove(w)
	}
	return nil, fmt.Errorf("waiting for a converter: %w", ctx.Err())
}

func (g *Gate) slot(w *waiter) *Slot {
	return &Slot{g: g, server: w.server, start: g.o.Now()}
}

// checkBounds returns an error when n more files of user may not wait.
func (g *Gate) checkBounds(user string, n int) error {
	if m := g.o.MaxWaiting; m > 0 && g.waiting+g.reserved+n > m {
		return fmt.Errorf("%w: %d waiting or reserved, at most %d", ErrFull, g.waiting+g.reserved, m)
	}
	if m := g.o.MaxWaitingPerUser; m > 0 {
		held := 0
		if u := g.users[user]; u != nil {
			held = u.waiting + u.reserved
		}
		if held+n > m {
			return fmt.Errorf("%w: %d waiting or reserved, at most %d", ErrUserFull, held, m)
		}
	}
	return nil
}

func checkClass(c sched.Class) error {
	if c > sched.P3 {
		return fmt.Errorf("priority class %d out of range", uint8(c))
	}
	return nil
}

// freeServer returns server to the idle stack and hands it on.
func (g *Gate) freeServer(server int) {
	g.free = append(g.free, server)
	g.dispatch()
}

// dispatch grants free servers to waiters, smallest start tag first,
// until either runs out.
func (g *Gate) dispatch() {
	for len(g.free) > 0 && len(g.ready) > 0 {
		u := g.ready[0]
		w := u.pop()
		g.waiting--
		g.vtime = u.start
		u.finish = u.start + 1/u.weight
		g.maxTag = max(g.maxTag, u.finish)
		if u.waiting > 0 {
			u.start = u.finish
			heap.Fix(&g.ready, 0)
		} else {
			heap.Pop(&g.ready)
		}
		w.server = g.free[len(g.free)-1]
		g.free = g.free[:len(g.free)-1]
		close(w.granted)
	}
	g.forget()
}

// forget drops the user records fair queueing no longer needs. When the
// gate is idle (no server busy, no file waiting) a busy period ends and,
// as in SFQ, the virtual time moves to the largest finish tag: everyone
// starts equal again. Otherwise a user record can go once its user has
// nothing waiting or reserved and its finish tag is behind the virtual
// time (it would start there anyway); those are swept whenever the
// records have doubled since the last sweep, so a sweep costs O(1)
// amortized.
func (g *Gate) forget() {
	idle := len(g.ready) == 0 && len(g.free) == g.o.Servers
	if idle {
		g.vtime = g.maxTag
	}
	if !idle && len(g.users) < g.sweepAt {
		return
	}
	for name, u := range g.users {
		if u.waiting == 0 && u.reserved == 0 && u.finish <= g.vtime {
			delete(g.users, name)
		}
	}
	g.sweepAt = 2*len(g.users) + 16
}
