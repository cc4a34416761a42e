package cq

import "math"

// staging holds a few pushed events before they are filed into their
// buckets. Filing one event is a random memory access, and in a hold loop
// each one waits for the previous: filing a batch lets the processor
// overlap the cache misses, which at 10^6 events is most of the cost of
// a push. Events only wait here while they cannot be the next to leave:
// their slots are at or after the front, and the queue files them before
// it moves the front past min.
type staging[K Key, V any] struct {
	e    []entry[K, V]
	slot []int64
	min  int64 // smallest slot staged, MaxInt64 (no slot) when empty
	sink int32
}

const stageN = 32

func (st *staging[K, V]) init() {
	st.e = make([]entry[K, V], 0, stageN)
	st.slot = make([]int64, 0, stageN)
	st.min = math.MaxInt64
}

// add stages e for slot s and reports whether the stage is full.
func (st *staging[K, V]) add(s int64, e entry[K, V]) bool {
	st.e = append(st.e, e)
	st.slot = append(st.slot, s)
	st.min = min(st.min, s)
	return len(st.e) == stageN
}

func (st *staging[K, V]) remove(seq uint64) bool {
	for i := range st.e {
		if st.e[i].seq != seq {
			continue
		}
		last := len(st.e) - 1
		st.e[i], st.slot[i] = st.e[last], st.slot[last]
		clear(st.e[last:])
		st.e, st.slot = st.e[:last], st.slot[:last]
		st.min = math.MaxInt64
		for _, s := range st.slot {
			st.min = min(st.min, s)
		}
		return true
	}
	return false
}

// flush files the staged events into the current calendar: first touching
// every target bucket (and the last chunk of a crowded one), so that the
// misses overlap, then adding.
func (q *Queue[K, V]) flush() {
	st := &q.stage
	if len(st.e) == 0 {
		return
	}
	c := q.cal
	var sink int32
	for _, s := range st.slot {
		sink += c.bucket(s & c.mask).n
	}
	for _, s := range st.slot { // crowded buckets: their last chunk too
		if b := c.bucket(s & c.mask); b.tail != 0 {
			sink += c.p.c(b.tail).next
		}
	}
	st.sink += sink
	for i := range st.e {
		c.add(st.slot[i], st.e[i])
	}
	clear(st.e)
	st.e, st.slot = st.e[:0], st.slot[:0]
	st.min = math.MaxInt64
}
