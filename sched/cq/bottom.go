package cq

import "slices"

// bottom holds the events below the front: the current slot's events in a
// run read off in order, plus a small heap for events pushed below the
// front afterwards. A large slot (clustered keys crowd hundreds of events
// into one) is not sorted at once: it is split by a counting sort into
// sub-slots of about four events, each sorted when the reader reaches it,
// which is the Ladder Queue's finer rung in its simplest form and keeps
// the cost per event O(1).
type bottom[K Key, V any] struct {
	run    []entry[K, V] // run[head:] pending; run[:sorted] in order
	head   int
	sorted int
	ends   []int32 // ends of the sub-slot groups of run after sorted
	gi     int     // next group of ends to sort
	late   dheap[K, V]

	scratch []entry[K, V] // reused by the counting sort
	counts  []int32
}

const smallRun = 32 // runs up to this length are sorted at once

func (b *bottom[K, V]) len() int { return len(b.run) - b.head + len(b.late.e) }

// ready sorts the next group of the run when the reader has reached it.
func (b *bottom[K, V]) ready() {
	if b.head < b.sorted || b.head == len(b.run) {
		return
	}
	end := int(b.ends[b.gi])
	b.gi++
	sortEntries(b.run[b.sorted:end])
	b.sorted = end
}

// min returns the smallest pending event; the bottom must not be empty.
func (b *bottom[K, V]) min() *entry[K, V] {
	b.ready()
	if b.head == len(b.run) || len(b.late.e) > 0 && b.late.e[0].less(&b.run[b.head]) {
		return &b.late.e[0]
	}
	return &b.run[b.head]
}

func (b *bottom[K, V]) pop() entry[K, V] {
	b.ready()
	if b.head == len(b.run) || len(b.late.e) > 0 && b.late.e[0].less(&b.run[b.head]) {
		return b.late.pop()
	}
	e := b.run[b.head]
	var zero entry[K, V]
	b.run[b.head] = zero
	b.head++
	if b.head == len(b.run) {
		b.reset()
	}
	return e
}

func (b *bottom[K, V]) reset() {
	b.run, b.head, b.sorted, b.ends, b.gi = b.run[:0], 0, 0, b.ends[:0], 0
}

// arrange prepares the run a take just filled with the events of one slot,
// whose keys lie in [lo, lo+w).
func (b *bottom[K, V]) arrange(lo, w float64) {
	r := b.run
	if len(r) <= smallRun {
		sortEntries(r)
		b.sorted = len(r)
		return
	}
	nsub := len(r) / 4
	scale := float64(nsub) / w
	sub := func(e *entry[K, V]) int {
		x := (float64(e.key) - lo) * scale
		switch {
		case !(x >= 0): // also NaN (infinite keys)
			return 0
		case x >= float64(nsub-1):
			return nsub - 1
		}
		return int(x)
	}
	b.counts = slices.Grow(b.counts[:0], nsub+1)[:nsub+1]
	clear(b.counts)
	for i := range r {
		b.counts[sub(&r[i])+1]++
	}
	for i := 1; i <= nsub; i++ {
		b.counts[i] += b.counts[i-1]
	}
	b.scratch = slices.Grow(b.scratch[:0], len(r))[:len(r)]
	for i := range r {
		k := sub(&r[i])
		b.scratch[b.counts[k]] = r[i]
		b.counts[k]++
	}
	b.run, b.scratch = b.scratch, r // counts[k] is now the end of group k
	clear(b.scratch)
	b.ends = b.ends[:0]
	prev := int32(0)
	for _, e := range b.counts[:nsub] {
		if e != prev { // no empty groups
			b.ends = append(b.ends, e)
			prev = e
		}
	}
}

// sortAll finishes ordering the run (before an arbitrary removal).
func (b *bottom[K, V]) sortAll() {
	for b.gi < len(b.ends) {
		end := int(b.ends[b.gi])
		b.gi++
		if end > b.sorted {
			sortEntries(b.run[b.sorted:end])
			b.sorted = end
		}
	}
}

func (b *bottom[K, V]) remove(seq uint64) bool {
	for i := b.head; i < len(b.run); i++ {
		if b.run[i].seq != seq {
			continue
		}
		b.sortAll()
		for j := b.head; j < len(b.run); j++ {
			if b.run[j].seq == seq {
				i = j
				break
			}
		}
		copy(b.run[i:], b.run[i+1:])
		var zero entry[K, V]
		b.run[len(b.run)-1] = zero
		b.run = b.run[:len(b.run)-1]
		b.sorted = len(b.run)
		if b.head == len(b.run) {
			b.reset()
		}
		return true
	}
	for i := range b.late.e {
		if b.late.e[i].seq == seq {
			b.late.removeAt(i)
			return true
		}
	}
	return false
}

// each calls f for every pending event.
func (b *bottom[K, V]) each(f func(*entry[K, V])) {
	for i := b.head; i < len(b.run); i++ {
		f(&b.run[i])
	}
	for i := range b.late.e {
		f(&b.late.e[i])
	}
}

// sortEntries orders by (key, seq): insertion sort when short.
func sortEntries[K Key, V any](r []entry[K, V]) {
	if len(r) > 12 {
		slices.SortFunc(r, func(x, y entry[K, V]) int {
			if x.less(&y) {
				return -1
			}
			if y.less(&x) {
				return 1
			}
			return 0
		})
		return
	}
	for i := 1; i < len(r); i++ {
		x := r[i]
		j := i
		for ; j > 0 && x.less(&r[j-1]); j-- {
			r[j] = r[j-1]
		}
		r[j] = x
	}
}
