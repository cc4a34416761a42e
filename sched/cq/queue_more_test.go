package cq

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

func TestRemove(t *testing.T) {
	q := NewQueue[float64, string](Options{})
	a := q.Push(2, "a")
	b := q.Push(1, "b")
	c := q.Push(2, "c")
	tests := []struct {
		name string
		h    Handle[float64]
		want bool
	}{
		{"zero handle", Handle[float64]{}, false},
		{"pending", a, true},
		{"again", a, false},
		{"unknown seq", Handle[float64]{key: 1, seq: 99}, false},
	}
	for _, tt := range tests {
		if got := q.Remove(tt.h); got != tt.want {
			t.Errorf("%s: Remove = %v, want %v", tt.name, got, tt.want)
		}
	}
	if k, v, _ := q.Pop(); k != 1 || v != "b" {
		t.Fatalf("Pop() = %v, %q, want 1, b", k, v)
	}
	if q.Remove(b) {
		t.Error("Remove of a popped event = true, want false")
	}
	if k, v, _ := q.Peek(); k != 2 || v != "c" {
		t.Fatalf("Peek() = %v, %q, want 2, c", k, v)
	}
	if !q.Remove(c) || q.Len() != 0 {
		t.Fatalf("Remove(c) left Len() = %d", q.Len())
	}
	if _, _, ok := q.Pop(); ok {
		t.Error("Pop() on an empty queue reported ok")
	}
}

func TestInt64Keys(t *testing.T) {
	keys := []int64{math.MaxInt64, math.MinInt64, 0, -1, 1, math.MaxInt64, math.MinInt64 + 1, 1 << 53, 1<<53 + 1, 1<<53 + 2}
	q := NewQueue[int64, int](Options{})
	for i, k := range keys {
		q.Push(k, i)
	}
	var got []string
	for q.Len() > 0 {
		k, i, _ := q.Pop()
		got = append(got, fmt.Sprint(k, "#", i))
		if err := q.verify(); err != nil {
			t.Fatal(err)
		}
	}
	want := fmt.Sprint([]string{"-9223372036854775808#1", "-9223372036854775807#6", "-1#3", "0#2", "1#4",
		"9007199254740992#7", "9007199254740993#8", "9007199254740994#9", "9223372036854775807#0", "9223372036854775807#5"})
	if fmt.Sprint(got) != want {
		t.Errorf("order\n got %v\nwant %v", got, want)
	}
}

func TestNaNKeyPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Push(NaN) did not panic")
		}
	}()
	NewQueue[float64, int](Options{}).Push(math.NaN(), 0)
}

// TestPolicies checks the bucket counts each policy settles on, and that
// a queue which fills and drains again and again (bursts) is resized fewer
// times under PRAM than under Brown's rule.
func TestPolicies(t *testing.T) {
	const n = 50000
	resizes := map[Policy]int{}
	for _, p := range []Policy{PolicyPRAM, PolicyBrown} {
		q := NewQueue[float64, struct{}](Options{Policy: p})
		r := rand.New(rand.NewPCG(3, 4))
		for range 3 {
			for range n {
				q.Push(r.Float64(), struct{}{})
			}
			s := q.Stats()
			lo, hi := n/3, 3*n // PRAM's triggers
			if p == PolicyBrown {
				lo, hi = n/2, 2*n
			}
			if s.Buckets < lo/2 || s.Buckets > hi {
				t.Errorf("%v: %d buckets for %d events", p, s.Buckets, n)
			}
			if err := q.verify(); err != nil {
				t.Fatal(err)
			}
			for q.Len() > 0 {
				q.Pop()
			}
		}
		resizes[p] = q.Stats().Resizes
	}
	if 2*resizes[PolicyPRAM] > resizes[PolicyBrown] {
		t.Errorf("resizes over 3 bursts of %d: pram %d, brown %d; want pram at most half", n, resizes[PolicyPRAM], resizes[PolicyBrown])
	}
}

func TestPramBucketsStable(t *testing.T) {
	for _, rho := range []float64{0, 0.5, 0.99, 1, 1.01, 2, math.Inf(1)} {
		for _, n := range []int{0, 1, 10, 1000, 123456} {
			nb := pramBuckets(rho, 2*n, n, minBuckets)
			if nb&(nb-1) != 0 || nb < minBuckets {
				t.Errorf("pramBuckets(%v, n=%d) = %d, not a power of two ≥ %d", rho, n, nb, minBuckets)
			}
			// The new size must not trigger at once: n within (nb/3, 3nb).
			if n > 3*nb || (nb > minBuckets && n < nb/3) {
				t.Errorf("pramBuckets(%v, n=%d) = %d re-triggers", rho, n, nb)
			}
		}
	}
}

// TestHoldAllocsSteady counts allocations over many holds once the
// calendar has settled: none.
func TestHoldAllocsSteady(t *testing.T) {
	for _, p := range []Policy{PolicyPRAM, PolicyBrown} {
		q := NewQueue[float64, int](Options{Policy: p})
		r := rand.New(rand.NewPCG(5, 6))
		const n = 10000
		for range n {
			q.Push(r.ExpFloat64(), 0)
		}
		hold := func() {
			k, v, _ := q.Pop()
			q.Push(k+r.ExpFloat64(), v)
		}
		for range 20 * n {
			hold()
		}
		// MemStats counts the whole process: keep the least of three
		// passes, so another goroutine's stray allocation is not blamed
		// on the queue while a real per-hold allocation still fails.
		got := uint64(math.MaxUint64)
		for range 3 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range 100000 {
				hold()
			}
			runtime.ReadMemStats(&after)
			if got = min(got, after.Mallocs-before.Mallocs); got == 0 {
				break
			}
		}
		if got != 0 {
			t.Errorf("%v: %d allocations in 100000 holds (best of 3), want 0", p, got)
		}
	}
}

func ExampleQueue() {
	q := NewQueue[float64, string](Options{})
	q.Push(2.5, "second")
	h := q.Push(1.0, "cancelled")
	q.Push(0.5, "first")
	q.Push(2.5, "third (same time as second: FIFO)")
	q.Remove(h)
	for q.Len() > 0 {
		t, v, _ := q.Pop()
		fmt.Println(t, v)
	}
	// Output:
	// 0.5 first
	// 2.5 second
	// 2.5 third (same time as second: FIFO)
}
