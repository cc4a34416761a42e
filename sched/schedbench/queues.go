package schedbench

import (
	"container/heap"

	"calq/sched/cq"
)

// pq is the view of a queue the workloads drive; pop is only called on a
// non-empty queue.
type pq interface {
	push(key float64)
	pop() float64
	len() int
	resizes() int
}

func newPQ(name string) pq {
	switch name {
	case "cq-pram":
		return cqPQ{cq.NewQueue[float64, struct{}](cq.Options{Policy: cq.PolicyPRAM})}
	case "cq-brown":
		return cqPQ{cq.NewQueue[float64, struct{}](cq.Options{Policy: cq.PolicyBrown})}
	case "heap2":
		return heapPQ{cq.NewHeap2[float64, struct{}]()}
	case "heap4":
		return heapPQ{cq.NewHeap4[float64, struct{}]()}
	case "container-heap":
		return &boxPQ{}
	}
	return nil
}

type cqPQ struct{ q *cq.Queue[float64, struct{}] }

func (a cqPQ) push(k float64) { a.q.Push(k, struct{}{}) }
func (a cqPQ) pop() float64   { k, _, _ := a.q.Pop(); return k }
func (a cqPQ) len() int       { return a.q.Len() }
func (a cqPQ) resizes() int   { return a.q.Stats().Resizes }

type heapPQ struct{ h *cq.Heap[float64, struct{}] }

func (a heapPQ) push(k float64) { a.h.Push(k, struct{}{}) }
func (a heapPQ) pop() float64   { k, _, _ := a.h.Pop(); return k }
func (a heapPQ) len() int       { return a.h.Len() }
func (a heapPQ) resizes() int   { return 0 }

// boxPQ is container/heap over pointers to entries: every push allocates,
// and every Less and Swap goes through an interface, as in most Go code.
type boxPQ struct {
	h   boxHeap
	seq uint64
}

type boxed struct {
	key float64
	seq uint64 // FIFO among equal keys
}

func (a *boxPQ) push(k float64) { a.seq++; heap.Push(&a.h, &boxed{k, a.seq}) }
func (a *boxPQ) pop() float64   { return heap.Pop(&a.h).(*boxed).key }
func (a *boxPQ) len() int       { return len(a.h) }
func (a *boxPQ) resizes() int   { return 0 }

type boxHeap []*boxed

func (h boxHeap) Len() int { return len(h) }
func (h boxHeap) Less(i, j int) bool {
	return h[i].key < h[j].key || (h[i].key == h[j].key && h[i].seq < h[j].seq)
}
func (h boxHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *boxHeap) Push(x any)   { *h = append(*h, x.(*boxed)) }
func (h *boxHeap) Pop() any {
	old := *h
	n := len(old) - 1
	x := old[n]
	old[n] = nil
	*h = old[:n]
	return x
}
