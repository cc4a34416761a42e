package cq

import (
	"math"
	"math/bits"
	"slices"
)

// migration is a rebuild in progress: the retired calendar old is emptied
// into the current one a few buckets per operation, in slot order from the
// front, the way Go maps grow. Every event of old lives in a slot ≥ next.
type migration[K Key, V any] struct {
	old  *calendar[K, V]
	next int64 // first old slot not yet migrated
}

const (
	preallocEvery  = 16 // operations between two page allocations of a settled calendar
	migrateBuckets = 8  // non-empty old buckets moved per operation, at most
	migrateEvents  = 64 // events moved per operation before stopping early
	headSample     = 25 // events Brown samples at the head to set the width
)

// afterOp runs the bounded per-operation upkeep: a step of a running
// migration, or the policy's resize and retune checks.
func (q *Queue[K, V]) afterOp() {
	if q.mig.old != nil {
		q.migrateStep()
		return
	}
	e := &q.est
	if q.n > e.growAt || q.n < e.shrinkAt {
		q.rebuild(q.targetBuckets(), false)
		return
	}
	// A retune moves every event, so it waits until as many operations
	// have passed since the last rebuild as there are events: its cost
	// then stays within one move per operation.
	if e.window%preallocEvery == 0 {
		q.cal.prealloc()
		q.pool.reserve()
	}
	if !e.windowDone() {
		return
	}
	f := e.retuneFactor()
	if f < retuneRatio && f > 1/retuneRatio {
		return
	}
	// Undoing the last retune waits four times as long: clustered keys can
	// look too wide in one window and too narrow in the next.
	dir := 1
	if f < 1 {
		dir = -1
	}
	wait := q.n
	if dir == -e.lastRetune {
		wait *= 4
	}
	if e.sinceRebuild >= wait {
		e.lastRetune = dir
		q.rebuildWidth(q.cal.buckets(), q.cal.w*f, true)
	}
}

// targetBuckets applies the resize policy to the current number of events.
func (q *Queue[K, V]) targetBuckets() int {
	nb := q.cal.buckets()
	if q.opts.Policy == PolicyBrown {
		if q.n > 2*nb {
			return 2 * nb
		}
		return max(nb/2, minBuckets)
	}
	capacity := q.opts.Capacity
	if capacity <= 0 {
		capacity = 2 * q.est.peak
	}
	return pramBuckets(q.est.rho(), capacity, q.n, minBuckets)
}

// pramBuckets is the PRAM rule made stable: NB = L/3 + 0.01·L for the
// M/M/1/N mean length L, clamped into [n/2, 2n] so that the new size sits
// well inside its own triggers (NE > 3·NB, NE < NB/3), and rounded to the
// power of two nearest in ratio.
func pramBuckets(rho float64, capacity, n, minNB int) int {
	l := MM1NMeanLength(rho, capacity)
	t := l/3 + 0.01*l
	t = math.Max(t, float64(n)/2)
	t = math.Min(t, 2*float64(max(n, 1)))
	p := 1 << max(0, bits.Len(uint(t))-1) // power of two ≤ t
	if float64(p)*math.Sqrt2 < t {
		p <<= 1
	}
	return max(p, minNB)
}

// rebuild starts migrating into a new calendar of nb buckets, with the
// policy's width: Brown's head sample, or PRAM's typical separation.
func (q *Queue[K, V]) rebuild(nb int, retune bool) {
	if q.opts.Policy == PolicyBrown {
		q.rebuildWidth(nb, q.headWidth(nb), retune)
		return
	}
	q.rebuildWidth(nb, q.typicalWidth(nb), retune)
}

// rebuildWidth starts migrating into a new calendar of nb buckets of
// width w; retune says the rebuild is for the width alone.
func (q *Queue[K, V]) rebuildWidth(nb int, w float64, retune bool) {
	if !(w > 0) || math.IsInf(w, 0) {
		w = q.cal.w
	}
	q.flush()
	if retune {
		q.stats.Retunes++
	} else {
		q.stats.Resizes++
	}
	old := q.cal
	q.lastGroup = -1
	q.cal = newCalendar[K, V](nb, w, &q.pool)
	q.mig = migration[K, V]{old: old, next: q.front}
	// The new front must keep every bottom event below every calendar one.
	f := q.cal.slot(old.start(q.front)) - 1
	q.bottom.each(func(e *entry[K, V]) { f = max(f, q.cal.slot(float64(e.key))+1) })
	q.front = f
	q.est.setThresholds(q.opts.Policy, nb)
	q.est.resetWindow()
	q.est.sinceRebuild = 0
	q.ensureMigrated(q.front - 1)
}

// ensureMigrated moves every old event whose slot in the current calendar
// could be ≤ f+1 (with a slot of margin for rounding).
func (q *Queue[K, V]) ensureMigrated(f int64) {
	if q.mig.old == nil {
		return
	}
	o := q.mig.old
	need := o.slot(q.cal.start(f+2)) + 1
	if f+2 >= maxSlot {
		q.finishMigration() // keys past the clamp: no start bounds them
		return
	}
	if need < q.mig.next {
		return
	}
	// Only the events that are due move now, not the later years their
	// buckets also hold (in a crowded or clustered calendar, most of it):
	// the background migration takes those.
	place := func(e *entry[K, V]) { q.place(*e) }
	if need-q.mig.next > selectiveSpan {
		o.extractUpTo(need, q.mig.next, place) // a jump: find them by the bounds
	} else {
		for s := q.mig.next; s <= need; s++ {
			i := s & o.mask
			if o.bits[i>>6]>>(i&63)&1 == 1 && o.bucket(i).lo <= need {
				o.extract(i, need, place)
			}
		}
	}
	q.mig.next = need + 1
	if o.n == 0 {
		q.mig = migration[K, V]{}
	}
}

// selectiveSpan is how many old slots ensureMigrated visits one by one
// before it looks for the due events through the group bounds instead.
const selectiveSpan = 64

// migrateStep is the background part of a migration: a bounded number of
// buckets and events per operation.
func (q *Queue[K, V]) migrateStep() {
	budget := migrateEvents
	for i := 0; i < migrateBuckets && budget > 0 && q.mig.old != nil; i++ {
		budget -= q.migrateNext(budget)
	}
}

// migrateNext moves up to limit events of the next non-empty old bucket
// and returns how many it moved (at least 1 when anything remains). The
// migration point passes the bucket only once it is empty.
func (q *Queue[K, V]) migrateNext(limit int) int {
	o := q.mig.old
	s, ok := o.next(q.mig.next)
	if !ok {
		q.mig = migration[K, V]{}
		return 0
	}
	q.mig.next = s
	moved, empty := o.drain(s&o.mask, limit, q.place)
	if empty {
		q.mig.next = s + 1
	}
	if o.n == 0 {
		q.mig = migration[K, V]{}
	}
	return max(moved, 1)
}

func (q *Queue[K, V]) finishMigration() {
	for q.mig.old != nil {
		q.migrateNext(math.MaxInt)
	}
}

// headWidth is Brown's width rule: 3 × the mean separation of about 25
// events at the head, recomputed without separations ≥ 2× the first mean.
// When the first slots hold more events than it samples (a crowded slot)
// it takes the separation from their exact key range and count instead.
// The year (nb·w) is kept to at least 1/yearSpan of the span of pending
// keys: with clustered keys Brown's width alone makes it far shorter, and
// every bucket then holds many later years. It returns 0 when it knows
// nothing.
func (q *Queue[K, V]) headWidth(nb int) float64 {
	span := q.est.maxKey - q.est.minKey
	if !(span > 0) || math.IsInf(span, 0) || q.n < 2 {
		span = 0
	}
	floor := span / (yearSpan * float64(nb))
	h := q.headSample()
	if sep := h.separation(); sep > 0 {
		return max(3*sep, floor)
	}
	return 3 * span / float64(max(q.n, 1))
}

// typicalWidth is the width PolicyPRAM rebuilds with: typicalFactor × the
// separation of keys where most events are, rather than at the head. It
// samples about 128 events uniformly (a random bucket, kept with
// probability proportional to its size, then an event of it), and takes the
// median gap between sampled keys scaled back by the sampling rate (the
// median of an exponential gap is ln 2 times its mean). A sparse head in
// front of clustered keys fools Brown's head sample into a width that piles
// each cluster into a few slots; this does not, and jumps carry the queue
// over the sparse stretches.
func (q *Queue[K, V]) typicalWidth(nb int) float64 {
	c := q.cal
	if c.n < 2*sampleEvents {
		return q.headWidth(nb)
	}
	keys := make([]float64, 0, sampleEvents)
	// A bucket is picked with probability proportional to its size: a
	// random bit of the bitmap (cheap to reject when clear), then kept with
	// probability n/maxN, which samples events uniformly however crowded
	// some buckets are. Only the non-empty picks cost a memory access, and
	// they are capped; a short sample is still a uniform one.
	for tries, reads := 0, 0; len(keys) < sampleEvents && tries < 256*sampleEvents && reads < 64*sampleEvents; tries++ {
		r := q.random()
		i := int64(r % uint64(c.buckets()))
		if c.bits[i>>6]>>(i&63)&1 == 0 {
			continue
		}
		reads++
		b := c.bucket(i)
		if uint64(b.n) <= (r>>40)%uint64(max(c.maxN, 1)) {
			continue
		}
		// An event among the first dozen: their order in a bucket is
		// arbitrary, and walking a long chain would cost a miss a chunk.
		k := int((r >> 20) % uint64(min(b.n, inlineN+chunkN)))
		var p pos
		for range k {
			c.p.step(b, &p)
		}
		keys = append(keys, float64(c.p.at(b, p).key))
	}
	if len(keys) < sampleEvents/8 {
		return q.headWidth(nb)
	}
	slices.Sort(keys)
	gaps := make([]float64, 0, len(keys))
	for i := 1; i < len(keys); i++ {
		gaps = append(gaps, keys[i]-keys[i-1])
	}
	slices.Sort(gaps)
	rate := float64(len(keys)) / float64(c.n)
	sep := gaps[len(gaps)/2] * rate / math.Ln2
	if !(sep > 0) {
		return q.headWidth(nb)
	}
	// The sample's range covers most pending keys but not the outliers
	// that inflate the full span (the tail of an exponential): a robust
	// span for the year floor.
	floor := 0.0
	if span := keys[len(keys)-1] - keys[0]; span > 0 && !math.IsInf(span, 0) {
		floor = span / (sampleYearSpan * float64(nb))
	}
	// The floor must not crowd the typical slot past a few hundred events:
	// a slot is ordered at once when the front reaches it.
	return min(max(typicalFactor*sep, floor), 8*typicalFactor*sep)
}

// sampleYearSpan is how many years may divide the range of the sample.
var sampleYearSpan = 2.0

// typicalFactor sets the width from the typical separation: slots of about
// 64 events where most events are. That is far wider than Brown's 3, and
// faster here at every size: the fixed cost of visiting a slot (finding it,
// a cache miss on its bucket, arranging its run) is shared by 64 events,
// and a run of 64 costs O(1) per event to order (see bottom.arrange).
var typicalFactor = 64.0

// random is a 64-bit LCG step, for sampling only.
func (q *Queue[K, V]) random() uint64 {
	q.rnd = q.rnd*6364136223846793005 + 1442695040888963407
	return q.rnd ^ q.rnd>>29
}

const sampleEvents = 128

// yearSpan is how many years may divide the span of pending keys.
var yearSpan = 8.0

// retuneRatio is how far the width must be off before a retune, which
// moves every event, is worth it.
const retuneRatio = 4.0

type sample struct {
	keys   []float64
	m      int // events seen
	lo, hi float64
}

func (h *sample) add(x float64) {
	if h.m == 0 {
		h.lo, h.hi = x, x
	}
	h.m++
	h.lo, h.hi = min(h.lo, x), max(h.hi, x)
	if len(h.keys) < cap(h.keys) {
		h.keys = append(h.keys, x)
	}
}

func (h *sample) separation() float64 {
	if h.m <= len(h.keys) {
		slices.Sort(h.keys)
		return meanSeparation(h.keys[:min(len(h.keys), headSample)])
	}
	return (h.hi - h.lo) / float64(h.m-1)
}

// headSample looks at the bottom, then the current calendar slot by slot
// (at most one year), until it has seen headSample events.
func (q *Queue[K, V]) headSample() sample {
	h := sample{keys: make([]float64, 0, 4*headSample)}
	q.bottom.each(func(e *entry[K, V]) { h.add(float64(e.key)) })
	c := q.cal
	for s, end := q.front, q.front+int64(c.buckets()); h.m < headSample && s < end; s++ {
		t, ok := c.next(s)
		if !ok || t >= end {
			break
		}
		s = t
		c.each(s&c.mask, func(e *entry[K, V]) {
			if c.slot(float64(e.key)) == s {
				h.add(float64(e.key))
			}
		})
	}
	return h
}

func meanSeparation(keys []float64) float64 {
	if len(keys) < 2 {
		return 0
	}
	first := (keys[len(keys)-1] - keys[0]) / float64(len(keys)-1)
	sum, n := 0.0, 0
	for i := 1; i < len(keys); i++ {
		if d := keys[i] - keys[i-1]; d < 2*first {
			sum += d
			n++
		}
	}
	if n == 0 || sum <= 0 {
		return first
	}
	return sum / float64(n)
}
