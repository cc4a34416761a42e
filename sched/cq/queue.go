package cq

import "math"

// Options configure a Queue. The zero value is ready to use.
type Options struct {
	// Policy chooses how the number of buckets follows the number of
	// pending events; PolicyPRAM by default.
	Policy Policy
	// Capacity is the N of the M/M/1/N model that PolicyPRAM predicts with;
	// 0 means twice the largest number of events held so far.
	Capacity int
}

// Stats describe a Queue's shape and the work it has done.
type Stats struct {
	Resizes   int     // rebuilds that changed the number of buckets
	Retunes   int     // rebuilds at the same number of buckets, for the width
	Jumps     int     // direct searches for the next slot over a stretch of empty ones
	Buckets   int     // current number of buckets
	Width     float64 // current bucket width, in key units
	Migrating bool    // a rebuild is being carried out incrementally
}

// Handle identifies a pushed event for Remove. The zero Handle is valid to
// pass to Remove and removes nothing.
type Handle[K Key] struct {
	key K
	seq uint64
}

// Queue is a calendar queue: a priority queue of values keyed by timestamps,
// FIFO among equal keys, with O(1) amortised Push and Pop. See the package
// documentation for the design. A Queue is not safe for concurrent use.
type Queue[K Key, V any] struct {
	opts   Options
	n      int
	seq    uint64
	bottom bottom[K, V]    // events of slots < front
	cal    *calendar[K, V] // where new events go
	front  int64           // next slot of cal to move into bottom
	// lastGroup is the group of 64 buckets last taken from, whose bound
	// is made exact when the front leaves it.
	lastGroup int64
	rnd       uint64 // for width samples
	mig       migration[K, V]
	pool      pool[K, V]
	stage     staging[K, V]
	est       estimator
	stats     Stats
}

const minBuckets = 64

// NewQueue returns an empty calendar queue.
func NewQueue[K Key, V any](opts Options) *Queue[K, V] {
	// The bottom's slices start empty and grow to what the queue's
	// events need, then keep their capacity: a queue that holds a few
	// events (calq serve builds an engine, with its queues, for each
	// request) costs a few hundred bytes, not the 200 KB of slices sized
	// for a settled queue of thousands.
	q := &Queue[K, V]{opts: opts, bottom: bottom[K, V]{late: dheap[K, V]{arity: 4}}}
	q.stage.init()
	q.lastGroup = -1
	q.cal = newCalendar[K, V](minBuckets, 1, &q.pool)
	q.est.init()
	q.est.setThresholds(opts.Policy, minBuckets)
	return q
}

// Len returns the number of pending events.
func (q *Queue[K, V]) Len() int { return q.n }

// Stats returns counters and the current shape of the calendar.
func (q *Queue[K, V]) Stats() Stats {
	s := q.stats
	s.Buckets = q.cal.buckets()
	s.Width = q.cal.w
	s.Migrating = q.mig.old != nil
	return s
}

// Push adds v at key and returns a handle for Remove. It panics if key is
// NaN, which has no place in an order.
func (q *Queue[K, V]) Push(key K, v V) Handle[K] {
	x := float64(key)
	if x != x {
		panic("sched: Push with NaN key")
	}
	q.seq++
	e := entry[K, V]{key: key, seq: q.seq, val: v}
	if s := q.cal.slot(x); s < q.front {
		q.bottom.late.push(e)
	} else if q.stage.add(s, e) {
		q.flush()
	}
	q.n++
	q.est.push(x, q.n)
	q.afterOp()
	return Handle[K]{key: key, seq: q.seq}
}

// place files e in the bottom or in the current calendar.
func (q *Queue[K, V]) place(e entry[K, V]) {
	s := q.cal.slot(float64(e.key))
	if s < q.front {
		q.bottom.late.push(e)
		return
	}
	q.cal.add(s, e)
}

// Pop removes and returns the value with the smallest key (the earliest
// pushed among equal keys).
func (q *Queue[K, V]) Pop() (K, V, bool) {
	if !q.ready() {
		var k K
		var v V
		return k, v, false
	}
	e := q.bottom.pop()
	q.n--
	q.est.pop(float64(e.key))
	q.afterOp()
	return e.key, e.val, true
}

// Peek returns the value Pop would return, without removing it.
func (q *Queue[K, V]) Peek() (K, V, bool) {
	if !q.ready() {
		var k K
		var v V
		return k, v, false
	}
	e := q.bottom.min()
	return e.key, e.val, true
}

// ready brings the next event into the bottom; false if there is none.
func (q *Queue[K, V]) ready() bool {
	if q.n == 0 {
		return false
	}
	if q.bottom.len() == 0 {
		q.advance()
	}
	return true
}

// Remove deletes the event h was returned for. It reports false if that
// event has already left the queue.
func (q *Queue[K, V]) Remove(h Handle[K]) bool {
	if h.seq == 0 || h.seq > q.seq {
		return false
	}
	x := float64(h.key)
	found := q.stage.remove(h.seq)
	if s := q.cal.slot(x); !found && s >= q.front {
		found = q.cal.remove(s, h.seq)
	}
	if !found && q.mig.old != nil {
		if s := q.mig.old.slot(x); s >= q.mig.next {
			found = q.mig.old.remove(s, h.seq)
		}
	}
	if !found {
		found = q.bottom.remove(h.seq)
	}
	if found {
		q.n--
		q.afterOp()
	}
	return found
}

// advance moves the events of the next non-empty slot into the bottom.
// It is called with the bottom empty and q.n > 0. Slots are found through
// the bitmap; after maxFutile visits to buckets holding only later years it
// jumps straight to the smallest slot through the group bounds, which is
// what carries it over the empty stretches of clustered keys.
func (q *Queue[K, V]) advance() {
	futile := 0
	for q.bottom.len() == 0 {
		q.ensureMigrated(q.front)
		if q.bottom.len() > 0 {
			return // migration filed events below the front
		}
		s, ok := q.cal.next(q.front)
		if !ok {
			if len(q.stage.e) > 0 {
				q.flush()
				continue
			}
			if q.mig.old != nil {
				q.migrateNext(math.MaxInt)
				continue
			}
			panic("sched: calendar queue lost events") // unreachable: n > 0
		}
		if futile >= maxFutile {
			futile = 0
			s = q.jump()
		}
		if q.stage.min <= s {
			q.flush()
			continue
		}
		if o := q.mig.old; o != nil && s > q.front {
			left := o.n
			q.ensureMigrated(s)
			if q.mig.old == nil || o.n != left {
				continue // events may have landed before s: look again
			}
		}
		moved, kept := q.cal.take(s, &q.bottom.run)
		q.leaveGroup(s & q.cal.mask >> 6)
		q.est.visit(moved, kept)
		q.front = s + 1
		if moved == 0 {
			futile++
		} else {
			q.bottom.arrange(q.cal.start(s), q.cal.w)
		}
	}
}

const maxFutile = 32

// jump returns the smallest slot holding an event, or, during a rebuild,
// a slot at or before it (the caller's ensureMigrated then files what the
// retired calendar holds up to there). It costs O(nb/64).
func (q *Queue[K, V]) jump() int64 {
	q.stats.Jumps++
	q.flush()
	q.leaveGroup(-1)
	s := q.cal.lowest(q.front)
	if o := q.mig.old; o != nil {
		// Every old event sits at or after o's smallest slot, so the
		// migration point may move up to it.
		so := o.lowest(q.mig.next)
		q.mig.next = max(q.mig.next, so)
		if t := q.cal.slot(o.start(so)) - 1; t < s {
			s = max(t, q.front)
		}
	}
	return s
}

// leaveGroup makes the bound of the last group taken from exact once the
// front moves on to group g (-1: in any case).
func (q *Queue[K, V]) leaveGroup(g int64) {
	if q.lastGroup >= 0 && q.lastGroup != g {
		q.cal.refreshGroup(q.lastGroup, q.front)
	}
	q.lastGroup = g
}
