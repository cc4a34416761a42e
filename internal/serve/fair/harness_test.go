package fair

import (
	"context"
	"testing"
	"testing/synctest"

	"calq/sched"
)

// harness drives a Gate inside a synctest bubble: each waiter runs in its
// own goroutine, and synctest.Wait lets the test know when every one of
// them is blocked, so the order of events is the test's, not the
// scheduler's.
type harness struct {
	t    *testing.T
	g    *Gate
	got  chan grant
	held []grant // slots granted and not yet released, oldest first
}

// grant is what one Acquire returned.
type grant struct {
	id   int
	slot *Slot
	err  error
}

func newHarness(t *testing.T, o Options) *harness {
	return &harness{t: t, g: New(o), got: make(chan grant, 10_000)}
}

// acquire starts a waiter with this id and waits until it is granted or
// queued.
func (h *harness) acquire(ctx context.Context, id int, user string, class sched.Class) {
	h.start(id, func() (*Slot, error) { return h.g.Acquire(ctx, user, class) })
}

// start runs acquire as waiter id and waits until it is granted or
// queued.
func (h *harness) start(id int, acquire func() (*Slot, error)) {
	go func() {
		s, err := acquire()
		h.got <- grant{id, s, err}
	}()
	synctest.Wait()
}

// hold acquires n slots for user, each granted at once.
func (h *harness) hold(user string, n int) {
	h.t.Helper()
	for range n {
		h.acquire(context.Background(), -1, user, sched.P2)
		h.held = append(h.held, h.one())
	}
}

// one returns the one grant that came, failing unless exactly one did.
func (h *harness) one() grant {
	h.t.Helper()
	synctest.Wait()
	select {
	case gr := <-h.got:
		if gr.err != nil {
			h.t.Fatalf("waiter %d: %v", gr.id, gr.err)
		}
		h.none()
		return gr
	default:
		h.t.Fatal("no waiter was granted")
		return grant{}
	}
}

// none fails when a grant came.
func (h *harness) none() {
	h.t.Helper()
	synctest.Wait()
	select {
	case gr := <-h.got:
		h.t.Fatalf("waiter %d returned (err %v), want nothing", gr.id, gr.err)
	default:
	}
}

// drain releases the oldest held slot, one at a time, until nothing
// waits, and returns the ids in the order they were granted. It then
// releases every slot.
func (h *harness) drain() []int {
	h.t.Helper()
	var order []int
	for h.g.Stats().Waiting > 0 {
		h.held[0].slot.Release()
		gr := h.one()
		order = append(order, gr.id)
		h.held = append(h.held[1:], gr)
	}
	for _, gr := range h.held {
		gr.slot.Release()
	}
	h.held = nil
	h.checkIdle()
	return order
}

// checkIdle fails unless every server is free and nothing waits.
func (h *harness) checkIdle() {
	h.t.Helper()
	s := h.g.Stats()
	h.g.mu.Lock()
	free := len(h.g.free)
	h.g.mu.Unlock()
	if s.Busy != 0 || s.Waiting != 0 || free != s.Servers || len(s.WaitingByUser) != 0 {
		h.t.Fatalf("at rest: busy %d, waiting %d, free %d of %d, by user %v; want all free, none waiting",
			s.Busy, s.Waiting, free, s.Servers, s.WaitingByUser)
	}
}
