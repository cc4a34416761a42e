package fair

import (
	"container/heap"
	"container/list"
	"math"

	"calq/sched"
)

// user is one user's share of the gate: its files waiting, by class, and
// its place in start-time fair queueing.
type user struct {
	name     string
	weight   float64
	queues   [sched.NumClasses]list.List // of *waiter, first come first
	waiting  int                         // files in queues
	reserved int                         // units of its live Reservations
	start    float64                     // start tag of its next grant, while waiting
	finish   float64                     // finish tag of its last grant
	seq      uint64                      // when it last started waiting; breaks ties
	index    int                         // in Gate.ready, while waiting
}

// waiter is one file in Acquire.
type waiter struct {
	user    *user
	class   int
	elem    *list.Element
	granted chan struct{} // closed by dispatch, after server is set
	server  int
}

// user returns the record of name, making it if needed.
func (g *Gate) user(name string) *user {
	u := g.users[name]
	if u == nil {
		u = &user{name: name}
		g.users[name] = u
	}
	return u
}

// enqueue queues a file of name in class. A user who starts waiting
// starts at the virtual time, or at its last finish tag when that is
// later, so it neither loses what it is owed nor gains from having been
// away.
func (g *Gate) enqueue(name string, class sched.Class) *waiter {
	u := g.user(name)
	w := &waiter{user: u, class: class.Index(), granted: make(chan struct{})}
	w.elem = u.queues[w.class].PushBack(w)
	u.waiting++
	g.waiting++
	if u.waiting == 1 {
		u.weight = g.weight(name)
		u.start = max(g.vtime, u.finish)
		u.seq = g.seq
		g.seq++
		heap.Push(&g.ready, u)
	}
	return w
}

// weight returns the user's weight, 1 unless Options.Weight says better.
func (g *Gate) weight(name string) float64 {
	if g.o.Weight == nil {
		return 1
	}
	w := g.o.Weight(name)
	if !(w > 0) || math.IsInf(w, 1) {
		return 1
	}
	return w
}

// remove takes a waiter that was not granted out of its queue.
func (g *Gate) remove(w *waiter) {
	u := w.user
	u.queues[w.class].Remove(w.elem)
	u.waiting--
	g.waiting--
	if u.waiting == 0 {
		heap.Remove(&g.ready, u.index)
	}
	g.forget()
}

// pop takes the user's next file: the oldest of its most urgent class.
func (u *user) pop() *waiter {
	for i := range u.queues {
		if e := u.queues[i].Front(); e != nil {
			u.queues[i].Remove(e)
			u.waiting--
			return e.Value.(*waiter)
		}
	}
	panic("fair: pop from a user with nothing waiting")
}

// userHeap orders waiting users by start tag, then by when they started
// waiting. It implements heap.Interface.
type userHeap []*user

func (h userHeap) Len() int { return len(h) }
func (h userHeap) Less(i, j int) bool {
	if h[i].start != h[j].start {
		return h[i].start < h[j].start
	}
	return h[i].seq < h[j].seq
}
func (h userHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *userHeap) Push(x any) {
	u := x.(*user)
	u.index = len(*h)
	*h = append(*h, u)
}
func (h *userHeap) Pop() any {
	old := *h
	u := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	u.index = -1
	return u
}
