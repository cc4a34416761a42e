package analyze

import "calq/sched/cq"

// Preemptive-resume priority: an arrival finding every server busy takes
// the server of a customer of the lowest class in service below its own,
// if any; that customer goes back to the head of its class's line and
// later resumes where it stopped. Its departure event is removed from the
// event list (cq.Queue.Remove) and a new one pushed when it resumes.

// preemption is a preemptive run's servers: a slot per customer in
// service (slots are reused, so there are at most as many as servers busy
// at once, never c of them up front) and, per class, the slots serving it.
type preemption struct {
	slots   []slot
	free    []int
	serving [][]int
}

// slot is a customer in service.
type slot struct {
	c      waiting // c.req is its whole service time
	class  int
	depart float64
	ev     cq.Handle[float64]
	pos    int // in serving[class]
}

// occupy starts c's service of s (what is left of it, when resumed) in a
// free slot.
func (r *replication) occupy(k int, c waiting, s float64) {
	p := r.pre
	var i int
	if n := len(p.free); n > 0 {
		i, p.free = p.free[n-1], p.free[:n-1]
	} else {
		i = len(p.slots)
		p.slots = append(p.slots, slot{})
	}
	sl := &p.slots[i]
	*sl = slot{c: c, class: k, depart: r.now + s, pos: len(p.serving[k])}
	sl.ev = r.fel.Push(sl.depart, event{kind: departure, class: uint8(k), ref: int32(i)})
	p.serving[k] = append(p.serving[k], i)
}

// release frees slot i and returns what it held.
func (r *replication) release(i int) slot {
	p := r.pre
	sl := p.slots[i]
	list := p.serving[sl.class]
	last := list[len(list)-1]
	list[sl.pos], p.slots[last].pos = last, sl.pos
	p.serving[sl.class] = list[:len(list)-1]
	p.free = append(p.free, i)
	return sl
}

// finish tallies the customer leaving slot i: its wait is its time in
// system less its service time.
func (r *replication) finish(i int) {
	sl := r.release(i)
	w := r.now - sl.c.at
	r.served(sl.class, sl.c, w-sl.c.req, sl.c.req)
}

// preempt frees a server for an arrival of class k by sending back to its
// line a customer of the lowest class in service below k; false if every
// customer in service is of class k or higher.
func (r *replication) preempt(k int) bool {
	p := r.pre
	for j := len(p.serving) - 1; j > k; j-- {
		if n := len(p.serving[j]); n > 0 {
			sl := r.release(p.serving[j][n-1])
			r.fel.Remove(sl.ev)
			c := sl.c
			c.left, c.resumed = sl.depart-r.now, true
			r.lines[j].pushFront(c)
			r.busyClass[j]--
			return true
		}
	}
	return false
}
