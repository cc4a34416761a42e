package fair

import (
	"context"
	"fmt"

	"calq/sched"
)

// Reservation holds room for a request's files in the gate's bounds,
// from Reserve until each file acquires through it or Done. It is safe
// for concurrent use: a request may acquire its files from several
// goroutines.
type Reservation struct {
	g    *Gate
	user string
	left int // units not yet spent; guarded by g.mu
}

// Reserve counts n files of user against MaxWaiting and
// MaxWaitingPerUser before the request is accepted, so that its files
// never meet ErrFull halfway. It returns ErrTooLarge (wrapped) when n
// exceeds a bound by itself, and ErrFull or ErrUserFull (wrapped) when
// the files already waiting or reserved leave no room for n. Reserved
// files count as waiting in PredictWait, ahead of any new request of the
// same user. The caller must call Done once the request is over.
func (g *Gate) Reserve(user string, n int) (*Reservation, error) {
	if n < 0 {
		return nil, fmt.Errorf("reserving %d files: a negative count", n)
	}
	if m := g.o.MaxWaiting; m > 0 && n > m {
		return nil, fmt.Errorf("%w: %d files, at most %d", ErrTooLarge, n, m)
	}
	if m := g.o.MaxWaitingPerUser; m > 0 && n > m {
		return nil, fmt.Errorf("%w: %d files, at most %d per user", ErrTooLarge, n, m)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.checkBounds(user, n); err != nil {
		return nil, err
	}
	if n > 0 {
		g.user(user).reserved += n
		g.reserved += n
	}
	return &Reservation{g: g, user: user, left: n}, nil
}

// Acquire is Gate.Acquire for one of the reserved files: it spends one
// unit and never meets the bounds. A failed Acquire (ctx ended) gives its
// unit back, unless Done came meanwhile. It returns ErrSpent when no unit
// is left.
func (r *Reservation) Acquire(ctx context.Context, class sched.Class) (*Slot, error) {
	if err := checkClass(class); err != nil {
		return nil, err
	}
	g := r.g
	g.mu.Lock()
	if r.left <= 0 {
		g.mu.Unlock()
		return nil, fmt.Errorf("acquiring for %s: %w", r.user, ErrSpent)
	}
	r.unreserve(1)
	s, err := g.wait(ctx, r.user, class) // unlocks
	if err != nil {
		g.mu.Lock()
		if r.left >= 0 {
			r.left++
			g.user(r.user).reserved++
			g.reserved++
		}
		g.mu.Unlock()
	}
	return s, err
}

// Left returns how many units are not yet spent.
func (r *Reservation) Left() int {
	r.g.mu.Lock()
	defer r.g.mu.Unlock()
	return max(r.left, 0)
}

// Done gives back the units not spent. Calling it again is a no-op;
// Acquire after Done returns ErrSpent.
func (r *Reservation) Done() {
	g := r.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if r.left > 0 {
		r.unreserve(r.left)
	}
	r.left = -1 // done: a failed Acquire gives nothing back
	g.forget()
}

// unreserve takes n units off r and the counts, with g.mu held.
func (r *Reservation) unreserve(n int) {
	g := r.g
	r.left -= n
	g.user(r.user).reserved -= n
	g.reserved -= n
}
