package cq

// Heap is a typed d-ary min-heap keyed by K, FIFO among equal keys: the
// baseline the calendar queue is measured against. Push and Pop cost
// O(log n) and box nothing (unlike container/heap). NewHeap2 makes a binary
// heap, NewHeap4 a 4-ary one, shallower and so kinder to the cache on
// large heaps. A Heap is not safe for concurrent use.
type Heap[K Key, V any] struct {
	h   dheap[K, V]
	seq uint64
}

// NewHeap2 returns an empty binary heap.
func NewHeap2[K Key, V any]() *Heap[K, V] { return &Heap[K, V]{h: dheap[K, V]{arity: 2}} }

// NewHeap4 returns an empty 4-ary heap.
func NewHeap4[K Key, V any]() *Heap[K, V] { return &Heap[K, V]{h: dheap[K, V]{arity: 4}} }

// Push adds v with the given key.
func (h *Heap[K, V]) Push(key K, v V) {
	h.seq++
	h.h.push(entry[K, V]{key: key, seq: h.seq, val: v})
}

// Pop removes and returns the entry with the smallest key.
func (h *Heap[K, V]) Pop() (K, V, bool) { return h.h.popKV() }

// Peek returns the entry with the smallest key without removing it.
func (h *Heap[K, V]) Peek() (K, V, bool) { return h.h.peekKV() }

// Len returns the number of entries.
func (h *Heap[K, V]) Len() int { return len(h.h.e) }

// dheap is a d-ary min-heap of entries ordered by (key, seq). The calendar
// queue also uses one (d = 4) for the events pushed below its front.
type dheap[K Key, V any] struct {
	e     []entry[K, V]
	arity int
}

func (h *dheap[K, V]) push(x entry[K, V]) {
	h.e = append(h.e, x)
	h.up(len(h.e) - 1)
}

func (h *dheap[K, V]) pop() entry[K, V] {
	top := h.e[0]
	n := len(h.e) - 1
	h.e[0] = h.e[n]
	var zero entry[K, V]
	h.e[n] = zero // drop references held by V
	h.e = h.e[:n]
	if n > 0 {
		h.down(0)
	}
	return top
}

func (h *dheap[K, V]) popKV() (K, V, bool) {
	if len(h.e) == 0 {
		var k K
		var v V
		return k, v, false
	}
	x := h.pop()
	return x.key, x.val, true
}

func (h *dheap[K, V]) peekKV() (K, V, bool) {
	if len(h.e) == 0 {
		var k K
		var v V
		return k, v, false
	}
	return h.e[0].key, h.e[0].val, true
}

// removeAt deletes the element at index i, keeping the heap order.
func (h *dheap[K, V]) removeAt(i int) entry[K, V] {
	x := h.e[i]
	n := len(h.e) - 1
	h.e[i] = h.e[n]
	var zero entry[K, V]
	h.e[n] = zero
	h.e = h.e[:n]
	if i < n {
		h.down(i)
		h.up(i)
	}
	return x
}

func (h *dheap[K, V]) up(i int) {
	x := h.e[i]
	for i > 0 {
		p := (i - 1) / h.arity
		if !x.less(&h.e[p]) {
			break
		}
		h.e[i] = h.e[p]
		i = p
	}
	h.e[i] = x
}

func (h *dheap[K, V]) down(i int) {
	n := len(h.e)
	x := h.e[i]
	for {
		c := h.arity*i + 1
		if c >= n {
			break
		}
		end := min(c+h.arity, n)
		m := c
		for j := c + 1; j < end; j++ {
			if h.e[j].less(&h.e[m]) {
				m = j
			}
		}
		if !h.e[m].less(&x) {
			break
		}
		h.e[i] = h.e[m]
		i = m
	}
	h.e[i] = x
}
