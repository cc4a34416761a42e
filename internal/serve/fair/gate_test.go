package fair

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"testing/synctest"

	"calq/sched"
)

// TestFairness: a user with 100 files waiting does not hold back another
// user's single file that comes after them: it is the next grant (SFQ's
// newcomer starts at the virtual time, the busy user one tag ahead), so
// certainly within the next c. The busy user's files keep their order.
func TestFairness(t *testing.T) {
	for _, c := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("c=%d", c), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, Options{Servers: c})
				h.hold("a", c)
				for i := range 100 {
					h.acquire(t.Context(), i, "a", sched.P2)
				}
				h.acquire(t.Context(), 1000, "b", sched.P2)
				order := h.drain()
				if got := slices.Index(order, 1000); got != 0 {
					t.Errorf("b's file was grant %d of %v, want 0", got, order[:min(len(order), 5)])
				}
				a := slices.DeleteFunc(order, func(id int) bool { return id == 1000 })
				if !slices.IsSorted(a) || len(a) != 100 {
					t.Errorf("a's files granted in order %v, want 0..99", a)
				}
			})
		})
	}
}

// TestWeights: two users who both keep files waiting share the server in
// the ratio of their weights, within SFQ's bound: after any number of
// grants, |n_a/w_a - n_b/w_b| ≤ 1/w_a + 1/w_b. A weight that is not
// positive counts as 1.
func TestWeights(t *testing.T) {
	tests := []struct {
		name   string
		wa, wb float64
	}{
		{"equal", 1, 1},
		{"three to one", 3, 1},
		{"one to four", 1, 4},
		{"fractional", 0.5, 1.5},
		{"not positive is 1", -2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				weights := map[string]float64{"a": tt.wa, "b": tt.wb}
				h := newHarness(t, Options{Servers: 1, Weight: func(u string) float64 { return weights[u] }})
				h.hold("x", 1)
				for i := range 60 {
					h.acquire(t.Context(), i, "a", sched.P2)
					h.acquire(t.Context(), 100+i, "b", sched.P2)
				}
				wa, wb := effective(tt.wa), effective(tt.wb)
				bound := 1/wa + 1/wb
				na, nb := 0, 0
				for k, id := range h.drain() {
					if id < 100 {
						na++
					} else {
						nb++
					}
					if na == 60 || nb == 60 {
						break // one of them stopped waiting
					}
					if d := math.Abs(float64(na)/wa - float64(nb)/wb); d > bound+1e-9 {
						t.Fatalf("after %d grants a has %d, b %d: |n_a/w_a - n_b/w_b| = %.3g, want ≤ %.3g", k+1, na, nb, d, bound)
					}
				}
			})
		})
	}
}

func effective(w float64) float64 {
	if w > 0 {
		return w
	}
	return 1
}

// TestPriorityWithinUser: one user's files go by class, P0 first, then by
// arrival; the zero class is P2.
func TestPriorityWithinUser(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Options{Servers: 1})
		h.hold("a", 1)
		classes := []sched.Class{sched.P3, sched.P2, sched.P1, sched.P0, sched.P2, 0, sched.P0}
		for i, c := range classes {
			h.acquire(t.Context(), i, "a", c)
		}
		s := h.g.Stats()
		if want := [sched.NumClasses]int{2, 1, 3, 1}; s.WaitingByClass != want {
			t.Errorf("waiting by class %v, want %v", s.WaitingByClass, want)
		}
		if got, want := h.drain(), []int{3, 6, 2, 1, 4, 5, 0}; !slices.Equal(got, want) {
			t.Errorf("granted %v, want %v", got, want)
		}
	})
}

// TestPriorityIsPerUser: classes order one user's files only; between
// users fair queueing decides, so b's P0 files alternate with a's P3.
func TestPriorityIsPerUser(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Options{Servers: 1})
		h.hold("x", 1)
		for i := range 3 {
			h.acquire(t.Context(), i, "a", sched.P3)
		}
		for i := range 3 {
			h.acquire(t.Context(), 10+i, "b", sched.P0)
		}
		if got, want := h.drain(), []int{0, 10, 1, 11, 2, 12}; !slices.Equal(got, want) {
			t.Errorf("granted %v, want %v", got, want)
		}
	})
}

// TestCancelWhileWaiting: a waiter whose ctx ends leaves the queue with
// the ctx's error and no server; the next waiter gets the server.
func TestCancelWhileWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Options{Servers: 1})
		h.hold("a", 1)
		ctx, cancel := context.WithCancel(t.Context())
		h.acquire(ctx, 1, "b", sched.P2)
		h.acquire(t.Context(), 2, "c", sched.P2)
		cancel()
		synctest.Wait()
		gr := <-h.got
		if gr.id != 1 || !errors.Is(gr.err, context.Canceled) || gr.slot != nil {
			t.Fatalf("cancelled waiter returned id %d, slot %v, err %v; want 1, nil, context.Canceled", gr.id, gr.slot, gr.err)
		}
		if s := h.g.Stats(); s.Waiting != 1 || s.WaitingByUser["b"] != 0 || s.Busy != 1 {
			t.Errorf("after cancel: waiting %d (b %d), busy %d; want 1 (b 0), 1", s.Waiting, s.WaitingByUser["b"], s.Busy)
		}
		if got := h.drain(); !slices.Equal(got, []int{2}) {
			t.Errorf("granted %v, want [2]", got)
		}
	})
}

// TestCancelledBeforeAcquire: a ctx already ended gets no server, even a
// free one.
func TestCancelledBeforeAcquire(t *testing.T) {
	g := New(Options{Servers: 2})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if s, err := g.Acquire(ctx, "a", sched.P2); !errors.Is(err, context.Canceled) || s != nil {
		t.Errorf("Acquire on an ended ctx: slot %v, err %v; want nil, context.Canceled", s, err)
	}
	if s := g.Stats(); s.Busy != 0 || s.Waiting != 0 {
		t.Errorf("busy %d, waiting %d; want 0, 0", s.Busy, s.Waiting)
	}
}

// TestCancelRacesGrant: a ctx that ends while its waiter is being granted
// either returns the slot or gives the server back; none is lost.
func TestCancelRacesGrant(t *testing.T) {
	for range 50 {
		synctest.Test(t, func(t *testing.T) {
			h := newHarness(t, Options{Servers: 1})
			h.hold("a", 1)
			ctx, cancel := context.WithCancel(t.Context())
			h.acquire(ctx, 1, "b", sched.P2)
			h.held[0].slot.Release() // grants b ...
			cancel()                 // ... as its ctx ends
			synctest.Wait()
			gr := <-h.got
			if gr.err == nil {
				gr.slot.Release()
			} else if !errors.Is(gr.err, context.Canceled) {
				t.Fatalf("err %v, want nil or context.Canceled", gr.err)
			}
			h.held = nil
			h.checkIdle()
		})
	}
}

// TestServers: the slots granted at once hold distinct servers, all of
// them; a second Release changes nothing.
func TestServers(t *testing.T) {
	g := New(Options{Servers: 3})
	var slots []*Slot
	var servers []int
	for range 3 {
		s, err := g.Acquire(t.Context(), "a", sched.P2)
		if err != nil {
			t.Fatal(err)
		}
		slots = append(slots, s)
		servers = append(servers, s.Server())
	}
	slices.Sort(servers)
	if !slices.Equal(servers, []int{0, 1, 2}) {
		t.Errorf("servers %v, want 0, 1, 2", servers)
	}
	slots[0].Release()
	slots[0].Release()
	if got := g.Stats().Busy; got != 2 {
		t.Errorf("busy %d after releasing one slot twice, want 2", got)
	}
}

// TestBadClass: a class past P3 is refused.
func TestBadClass(t *testing.T) {
	g := New(Options{Servers: 1})
	if _, err := g.Acquire(t.Context(), "a", sched.P3+1); err == nil {
		t.Error("Acquire with class 5: no error")
	}
	r, err := g.Reserve("a", 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Acquire(t.Context(), sched.P3+1); err == nil || r.Left() != 1 {
		t.Errorf("Reservation.Acquire with class 5: err %v, left %d; want an error, 1", err, r.Left())
	}
}
