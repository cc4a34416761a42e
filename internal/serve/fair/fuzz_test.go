package fair

import (
	"context"
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/synctest"

	"calq/sched"
)

// FuzzGate runs a random mix of Acquire, Reservation.Acquire, Release,
// cancel, Reserve and Done, one op per byte, and checks after each that
// no server is lost or doubly held: the servers of the slots the test
// holds and the gate's free servers are 0..c-1 exactly once, and no
// server is free while a file waits. At the end, with every waiter
// cancelled, every reservation done and every slot released, the gate is
// idle and has forgotten every user.
func FuzzGate(f *testing.F) {
	f.Add(uint8(2), []byte{0, 0, 0, 8, 16, 2, 3, 4, 1, 9, 5, 2, 2, 2})
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		ops := make([]byte, 200)
		for i := range ops {
			ops[i] = byte(rng.Uint32())
		}
		f.Add(uint8(rng.IntN(4)), ops)
	}
	f.Fuzz(func(t *testing.T, servers uint8, ops []byte) {
		synctest.Test(t, func(t *testing.T) {
			r := newRun(t, int(servers%4)+1)
			for _, op := range ops {
				r.step(op)
				r.check()
			}
			r.finish()
		})
	})
}

// run is one FuzzGate case.
type run struct {
	*harness
	c       int
	next    int                        // id of the next waiter
	cancels map[int]context.CancelFunc // of waiters not yet returned
	resv    []*Reservation             // not yet done
}

func newRun(t *testing.T, c int) *run {
	h := newHarness(t, Options{Servers: c, MaxWaiting: 12, MaxWaitingPerUser: 6})
	return &run{harness: h, c: c, cancels: make(map[int]context.CancelFunc)}
}

// step does the op that b names; its high bits pick a user, a class or
// a count.
func (r *run) step(b byte) {
	user := []string{"a", "b", "c"}[int(b>>3)%3]
	class := sched.ClassOf(int(b>>5) % sched.NumClasses)
	switch b % 6 {
	case 0:
		ctx, cancel := context.WithCancel(context.Background())
		r.wait(cancel, func() (*Slot, error) { return r.g.Acquire(ctx, user, class) })
	case 1:
		if len(r.resv) > 0 {
			res := r.resv[int(b>>3)%len(r.resv)]
			ctx, cancel := context.WithCancel(context.Background())
			r.wait(cancel, func() (*Slot, error) { return res.Acquire(ctx, class) })
		}
	case 2:
		if len(r.held) > 0 {
			i := int(b>>3) % len(r.held)
			r.held[i].slot.Release()
			r.held = slices.Delete(r.held, i, i+1)
		}
	case 3:
		if len(r.cancels) > 0 { // the oldest waiter
			r.cancels[slices.Min(slices.Collect(maps.Keys(r.cancels)))]()
		}
	case 4:
		if res, err := r.g.Reserve(user, int(b>>5)%4); err == nil {
			r.resv = append(r.resv, res)
		} else if !errors.Is(err, ErrFull) && !errors.Is(err, ErrUserFull) {
			r.t.Fatalf("Reserve: %v", err)
		}
	case 5:
		if len(r.resv) > 0 {
			i := int(b>>3) % len(r.resv)
			r.resv[i].Done()
			r.resv = slices.Delete(r.resv, i, i+1)
		}
	}
	r.collect()
}

func (r *run) wait(cancel context.CancelFunc, acquire func() (*Slot, error)) {
	r.cancels[r.next] = cancel
	r.start(r.next, acquire)
	r.next++
}

// collect takes what the waiters returned: slots to hold, and errors
// that must be a bound, a spent reservation or a cancel.
func (r *run) collect() {
	synctest.Wait()
	for {
		select {
		case gr := <-r.got:
			r.cancels[gr.id]()
			delete(r.cancels, gr.id)
			switch {
			case gr.err == nil:
				r.held = append(r.held, gr)
			case errors.Is(gr.err, context.Canceled), errors.Is(gr.err, ErrFull),
				errors.Is(gr.err, ErrUserFull), errors.Is(gr.err, ErrSpent):
			default:
				r.t.Fatalf("waiter %d: %v", gr.id, gr.err)
			}
		default:
			return
		}
	}
}

// check fails when a server is lost, held twice, or free while a file
// waits.
func (r *run) check() {
	r.t.Helper()
	g := r.g
	g.mu.Lock()
	servers := slices.Clone(g.free)
	waiting, free := g.waiting, len(g.free)
	g.mu.Unlock()
	for _, gr := range r.held {
		servers = append(servers, gr.slot.Server())
	}
	slices.Sort(servers)
	want := make([]int, r.c)
	for i := range want {
		want[i] = i
	}
	if !slices.Equal(servers, want) {
		r.t.Fatalf("held and free servers %v, want each of 0..%d once", servers, r.c-1)
	}
	if waiting > 0 && free > 0 {
		r.t.Fatalf("%d files wait while %d servers are free", waiting, free)
	}
	if s := g.Stats(); s.Waiting != len(r.cancels) {
		r.t.Fatalf("gate has %d waiting, the test %d", s.Waiting, len(r.cancels))
	}
}

// finish ends every waiter and reservation, releases every slot and
// checks that the gate is idle and empty.
func (r *run) finish() {
	for _, cancel := range r.cancels {
		cancel()
	}
	for _, res := range r.resv {
		res.Done()
	}
	r.collect()
	for _, gr := range r.held {
		gr.slot.Release()
	}
	r.held = nil
	r.checkIdle()
	if s := r.g.Stats(); s.Reserved != 0 {
		r.t.Fatalf("reserved %d at the end, want 0", s.Reserved)
	}
	r.g.mu.Lock()
	defer r.g.mu.Unlock()
	if len(r.g.users) != 0 || len(r.g.ready) != 0 {
		r.t.Fatalf("%d user records and %d ready users on an idle gate, want none", len(r.g.users), len(r.g.ready))
	}
}
