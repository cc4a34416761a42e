package fair

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"calq/sched"
)

// TestBounds: Reserve and a waiting Acquire count against MaxWaiting and
// MaxWaitingPerUser, each step on the state the steps before left.
func TestBounds(t *testing.T) {
	g := New(Options{Servers: 1, MaxWaiting: 5, MaxWaitingPerUser: 3})
	busy, err := g.Acquire(t.Context(), "x", sched.P2) // from here on, files wait
	if err != nil {
		t.Fatal(err)
	}
	var held []*Reservation
	steps := []struct {
		name     string
		user     string
		acquire  bool // Acquire one file, else Reserve n
		n        int
		done     int // before the step, Done the held reservation of this index+1
		want     error
		reserved int // Stats().Reserved after the step
	}{
		{name: "more than a user may ever", user: "a", n: 4, want: ErrTooLarge},
		{name: "more than the gate may ever", user: "a", n: 6, want: ErrTooLarge},
		{name: "a takes its 3", user: "a", n: 3, reserved: 3},
		{name: "a has no room", user: "a", n: 1, want: ErrUserFull, reserved: 3},
		{name: "a's Acquire has no room", user: "a", acquire: true, want: ErrUserFull, reserved: 3},
		{name: "b takes 2", user: "b", n: 2, reserved: 5},
		{name: "the gate is full", user: "c", n: 1, want: ErrFull, reserved: 5},
		{name: "c's Acquire finds it full", user: "c", acquire: true, want: ErrFull, reserved: 5},
		{name: "a's Done makes room", user: "c", n: 1, done: 1, reserved: 3},
		{name: "a zero reservation is no error", user: "c", n: 0, reserved: 3},
	}
	for _, s := range steps {
		if s.done > 0 {
			held[s.done-1].Done()
		}
		var err error
		if s.acquire {
			_, err = g.Acquire(t.Context(), s.user, sched.P2)
		} else {
			var r *Reservation
			if r, err = g.Reserve(s.user, s.n); err == nil {
				held = append(held, r)
			}
		}
		if !errors.Is(err, s.want) || (err != nil) != (s.want != nil) {
			t.Errorf("%s: err %v, want %v", s.name, err, s.want)
		}
		if got := g.Stats().Reserved; got != s.reserved {
			t.Errorf("%s: reserved %d, want %d", s.name, got, s.reserved)
		}
	}
	if _, err := g.Reserve("a", -1); err == nil {
		t.Error("Reserve of -1 files: no error")
	}
	busy.Release()
	// A free server needs no waiting, so the bounds do not apply.
	s, err := g.Acquire(t.Context(), "b", sched.P2)
	if err != nil {
		t.Errorf("Acquire with a free server and b's bound reached: %v", err)
	} else {
		s.Release()
	}
}

// TestReservationAccounting: a reserved file stays counted while it
// waits, a failed Acquire gives its unit back, and Done gives back the
// rest; after Done nothing more can be acquired.
func TestReservationAccounting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Options{Servers: 1, MaxWaitingPerUser: 2})
		h.hold("x", 1)
		r, err := h.g.Reserve("a", 2)
		if err != nil {
			t.Fatal(err)
		}
		check := func(step string, waiting, reserved, left int) {
			t.Helper()
			s := h.g.Stats()
			if s.Waiting != waiting || s.Reserved != reserved || r.Left() != left {
				t.Errorf("%s: waiting %d, reserved %d, left %d; want %d, %d, %d",
					step, s.Waiting, s.Reserved, r.Left(), waiting, reserved, left)
			}
		}
		ctx, cancel := context.WithCancel(t.Context())
		h.start(1, func() (*Slot, error) { return r.Acquire(ctx, sched.P1) })
		check("one waits", 1, 1, 1)
		if _, err := h.g.Acquire(t.Context(), "a", sched.P2); !errors.Is(err, ErrUserFull) {
			t.Errorf("a's own Acquire beside its reservation: %v, want ErrUserFull", err)
		}
		cancel()
		if gr := <-h.got; !errors.Is(gr.err, context.Canceled) {
			t.Fatalf("cancelled reserved Acquire: %v", gr.err)
		}
		check("cancelled", 0, 2, 2)

		h.start(2, func() (*Slot, error) { return r.Acquire(t.Context(), sched.P2) })
		h.start(3, func() (*Slot, error) { return r.Acquire(t.Context(), sched.P2) })
		check("both wait", 2, 0, 0)
		if _, err := r.Acquire(t.Context(), sched.P2); !errors.Is(err, ErrSpent) {
			t.Errorf("a third Acquire of two units: %v, want ErrSpent", err)
		}
		if got := h.drain(); len(got) != 2 {
			t.Errorf("granted %v, want waiters 2 and 3", got)
		}
		r.Done()
		r.Done()
		check("done", 0, 0, 0)

		// Done while a reserved file waits: its failure gives nothing back.
		h.hold("x", 1)
		r, _ = h.g.Reserve("a", 2)
		ctx, cancel = context.WithCancel(t.Context())
		h.start(4, func() (*Slot, error) { return r.Acquire(ctx, sched.P2) })
		r.Done()
		check("done while one waits", 1, 0, 0)
		cancel()
		<-h.got
		check("cancelled after done", 0, 0, 0)
		if _, err := r.Acquire(t.Context(), sched.P2); !errors.Is(err, ErrSpent) {
			t.Errorf("Acquire after Done: %v, want ErrSpent", err)
		}
		h.drain()
		h.g.mu.Lock()
		defer h.g.mu.Unlock()
		if len(h.g.users) != 0 {
			t.Errorf("%d user records left on an idle gate, want 0", len(h.g.users))
		}
	})
}
