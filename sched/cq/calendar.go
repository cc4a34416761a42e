package cq

import (
	"math"
	"math/bits"
)

// maxSlot bounds slot numbers so that float64 to int64 conversion stays
// defined for any key (±Inf and huge values collapse into the end slots,
// which keeps the slot function monotone, the only property correctness
// needs).
const maxSlot = 1 << 62

// calendar is one generation of buckets: nb buckets (a power of two) of
// width w. An event with key t belongs to absolute slot floor(t/w) and lives
// in bucket slot&mask together with the events of the same bucket in later
// "years" (Brown's circular layout), in no particular order: a bucket is
// ordered only when its slot becomes current, by moving its current-year
// events into the queue's small heap.
type calendar[K Key, V any] struct {
	w, inv float64
	mask   int64
	pages  []*[pageSize]bucket[K, V]
	bits   []uint64 // bit i set iff bucket i is non-empty
	glo    []int64  // per 64 buckets: a lower bound of their lo
	n      int      // events held
	maxN   int32    // most events a bucket has held
	// nextPage is where prealloc looks for a page not yet allocated.
	nextPage int
	p        *pool[K, V]
}

func newCalendar[K Key, V any](nb int, w float64, p *pool[K, V]) *calendar[K, V] {
	return &calendar[K, V]{
		w:     w,
		inv:   1 / w,
		mask:  int64(nb - 1),
		pages: make([]*[pageSize]bucket[K, V], (nb+pageSize-1)/pageSize),
		bits:  make([]uint64, (nb+63)/64),
		glo:   newGroupLows((nb + 63) / 64),
		p:     p,
	}
}

func newGroupLows(n int) []int64 {
	g := make([]int64, n)
	for i := range g {
		g[i] = maxSlot
	}
	return g
}

func (c *calendar[K, V]) buckets() int { return int(c.mask + 1) }

// slot returns floor(x/w), clamped to ±maxSlot. It is monotone in x.
func (c *calendar[K, V]) slot(x float64) int64 {
	y := x * c.inv
	if !(y < maxSlot) { // also catches NaN, which Push rejects anyway
		return maxSlot
	}
	if y < -maxSlot {
		return -maxSlot
	}
	s := int64(y)
	if float64(s) > y {
		s--
	}
	return s
}

// start returns the first key of absolute slot s (approximately: it only
// bounds migration, with a slot of margin).
func (c *calendar[K, V]) start(s int64) float64 { return float64(s) * c.w }

// prealloc allocates the next page not yet in use, if any: the queue calls
// it every few operations, so that a settled queue has all its pages and
// allocates nothing, without one rebuild paying for them all at once.
func (c *calendar[K, V]) prealloc() {
	for c.nextPage < len(c.pages) && c.pages[c.nextPage] != nil {
		c.nextPage++
	}
	if c.nextPage < len(c.pages) {
		c.pages[c.nextPage] = new([pageSize]bucket[K, V])
	}
}

// bucket returns bucket i, allocating its page on first use.
func (c *calendar[K, V]) bucket(i int64) *bucket[K, V] {
	pg := c.pages[i>>pageShift]
	if pg == nil {
		pg = new([pageSize]bucket[K, V])
		c.pages[i>>pageShift] = pg
	}
	return &pg[i&(pageSize-1)]
}

func (c *calendar[K, V]) add(s int64, e entry[K, V]) {
	i := s & c.mask
	b := c.bucket(i)
	if b.n == 0 {
		c.bits[i>>6] |= 1 << (i & 63)
		b.lo = s
	}
	b.lo = min(b.lo, s)
	c.glo[i>>6] = min(c.glo[i>>6], s)
	c.p.push(b, e)
	c.maxN = max(c.maxN, b.n)
	c.n++
}

// take appends the events of absolute slot s in its bucket to run and
// reports how many it moved and how many of later years it scanned past.
func (c *calendar[K, V]) take(s int64, run *[]entry[K, V]) (moved, kept int) {
	i := s & c.mask
	if b := c.bucket(i); b.lo > s {
		// Only later years here (the bound says so without a scan): a
		// crowded bucket of a cluster a few years ahead costs O(1), and
		// none of its events counts as passed over.
		return 0, 0
	}
	return c.extract(i, s, func(e *entry[K, V]) { *run = append(*run, *e) })
}

// extract hands f the events of bucket i whose slot is at most upTo and
// removes them, keeping the rest (later years); it recomputes the bucket's
// bound and reports how many it moved and kept.
func (c *calendar[K, V]) extract(i, upTo int64, f func(*entry[K, V])) (moved, kept int) {
	b := c.bucket(i)
	var r, w pos
	n := int(b.n)
	lo := int64(maxSlot)
	for k := 0; k < n; k++ {
		e := c.p.at(b, r)
		if es := c.slot(float64(e.key)); es <= upTo {
			f(e)
			moved++
		} else {
			if w != r {
				*c.p.at(b, w) = *e
			}
			lo = min(lo, es)
			kept++
			c.p.step(b, &w)
		}
		c.p.step(b, &r)
	}
	b.lo = lo
	if moved > 0 {
		c.p.truncate(b, kept)
		c.n -= moved
		if kept == 0 {
			c.bits[i>>6] &^= 1 << (i & 63)
			if c.bits[i>>6] == 0 {
				c.glo[i>>6] = maxSlot
			}
		}
	}
	return moved, kept
}

// extractUpTo moves every event whose slot is at most upTo to f, skipping
// through the group and bucket bounds whatever holds none: O(nb/64) plus
// the buckets that hold such events.
func (c *calendar[K, V]) extractUpTo(upTo int64, front int64, f func(*entry[K, V])) {
	for g := range c.glo {
		if c.glo[g] > upTo {
			continue
		}
		for w := c.bits[g]; w != 0; w &= w - 1 {
			i := int64(g)<<6 | int64(bits.TrailingZeros64(w))
			if b := c.bucket(i); b.lo <= upTo {
				c.extract(i, upTo, f)
			}
		}
		c.refreshGroup(int64(g), front)
	}
}

// remove deletes the event with sequence seq from the bucket of slot s.
func (c *calendar[K, V]) remove(s int64, seq uint64) bool {
	i := s & c.mask
	if c.bits[i>>6]>>(i&63)&1 == 0 {
		return false
	}
	b := c.bucket(i)
	var r pos
	n := int(b.n)
	for k := 0; k < n; k++ {
		if e := c.p.at(b, r); e.seq == seq {
			last := pos{}
			for j := 0; j < n-1; j++ {
				c.p.step(b, &last)
			}
			*e = *c.p.at(b, last)
			c.p.truncate(b, n-1)
			c.n--
			if n == 1 {
				c.bits[i>>6] &^= 1 << (i & 63)
			}
			return true
		}
		c.p.step(b, &r)
	}
	return false
}

// drain hands up to limit events of bucket i to f and removes them; it
// reports how many it moved and whether the bucket is now empty. A bucket
// larger than limit gives up whole overflow chunks from the front of its
// chain, which costs O(limit) however long the chain is.
func (c *calendar[K, V]) drain(i int64, limit int, f func(entry[K, V])) (int, bool) {
	b := c.bucket(i)
	n := int(b.n)
	if n > limit && b.ovf != b.tail {
		moved := 0
		for moved+chunkN <= limit && b.ovf != b.tail {
			id := b.ovf
			ch := c.p.c(id)
			for k := range ch.e {
				f(ch.e[k])
			}
			b.ovf = ch.next
			c.p.put(id)
			moved += chunkN
		}
		b.n -= int32(moved)
		c.n -= moved
		// The bucket's bound may now be too low; mark it for a rescan.
		b.lo, c.glo[i>>6] = math.MinInt64, math.MinInt64
		return max(moved, 1), false
	}
	var r pos
	for k := 0; k < n; k++ {
		f(*c.p.at(b, r))
		c.p.step(b, &r)
	}
	c.p.truncate(b, 0)
	c.n -= n
	c.bits[i>>6] &^= 1 << (i & 63)
	if c.bits[i>>6] == 0 {
		c.glo[i>>6] = maxSlot
	}
	return n, true
}

// refreshGroup recomputes the lower bound of group g (64 buckets) from its
// buckets' own; a bucket whose bound fell behind front (after a Remove) is
// rescanned.
func (c *calendar[K, V]) refreshGroup(g int64, front int64) int64 {
	lo := int64(maxSlot)
	for w := c.bits[g]; w != 0; w &= w - 1 {
		i := g<<6 | int64(bits.TrailingZeros64(w))
		b := c.bucket(i)
		if b.lo < front {
			b.lo = maxSlot
			c.each(i, func(e *entry[K, V]) { b.lo = min(b.lo, c.slot(float64(e.key))) })
		}
		lo = min(lo, b.lo)
	}
	c.glo[g] = lo
	return lo
}

// lowest returns the smallest slot ≥ front holding an event, in O(nb/64):
// it finds the group with the smallest bound and makes that bound exact,
// until the smallest bound is an exact one.
func (c *calendar[K, V]) lowest(front int64) int64 {
	for {
		g := int64(0)
		for j := range c.glo {
			if c.glo[j] < c.glo[g] {
				g = int64(j)
			}
		}
		old := c.glo[g]
		if lo := c.refreshGroup(g, front); lo == old {
			return lo
		}
	}
}

// each calls f for every event of bucket i.
func (c *calendar[K, V]) each(i int64, f func(*entry[K, V])) {
	if c.bits[i>>6]>>(i&63)&1 == 0 {
		return
	}
	b := c.bucket(i)
	var r pos
	for k := 0; k < int(b.n); k++ {
		f(c.p.at(b, r))
		c.p.step(b, &r)
	}
}

// next returns the smallest absolute slot t ≥ s whose bucket is non-empty,
// looking one year (nb slots) ahead; ok is false if there is none.
func (c *calendar[K, V]) next(s int64) (t int64, ok bool) {
	if c.n == 0 {
		return 0, false
	}
	nb := c.mask + 1
	i := s & c.mask
	for d := int64(0); d < nb; {
		w := c.bits[i>>6] >> (i & 63)
		if w != 0 {
			z := int64(bits.TrailingZeros64(w))
			if d+z >= nb {
				return 0, false
			}
			return s + d + z, true
		}
		step := 64 - (i & 63)
		d += step
		i = (i + step) & c.mask
	}
	return 0, false
}
