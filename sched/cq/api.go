package cq

// Key is the type of a queue's timestamps.
type Key interface{ ~int64 | ~float64 }

// entry is one pending event, stored by value in buckets and heaps: no
// pointer per event. seq is the insertion sequence that breaks ties so that
// equal keys leave in FIFO order.
type entry[K Key, V any] struct {
	key K
	seq uint64
	val V
}

// less orders entries by key, then by insertion sequence.
func (a *entry[K, V]) less(b *entry[K, V]) bool {
	return a.key < b.key || (a.key == b.key && a.seq < b.seq)
}
