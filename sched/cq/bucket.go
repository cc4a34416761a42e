package cq

// Bucket storage. A bucket keeps its first inlineN events inline, so that
// the common small bucket costs one cache line or two and no pointer; the
// rest go to chunks drawn from an index-based pool shared by the queue's
// calendars. Buckets live in pages allocated on first use, so a new
// calendar of a million buckets costs nothing until it is filled and a
// rebuild never stalls on zeroing one huge array.

const (
	inlineN   = 4
	chunkN    = 8
	pageShift = 10
	pageSize  = 1 << pageShift
)

type bucket[K Key, V any] struct {
	n    int32
	ovf  int32 // 1 + pool index of the first overflow chunk; 0 for none
	tail int32 // 1 + pool index of the last overflow chunk
	lo   int64 // smallest slot held: a lower bound after a Remove, MinInt64 when stale
	e    [inlineN]entry[K, V]
}

type chunk[K Key, V any] struct {
	e    [chunkN]entry[K, V]
	next int32 // 1 + pool index of the next chunk; 0 for none
}

// pool hands out chunks by index and takes them back on a free list.
// Chunks live in fixed pages, so growing the pool never copies it.
type pool[K Key, V any] struct {
	pages []*[chunkPage]chunk[K, V]
	used  int32 // chunks handed out at least once
	free  int32 // 1 + index of the first free chunk
	nfree int   // chunks on the free list
}

const chunkPage = 256

// c returns chunk id (1-based).
func (p *pool[K, V]) c(id int32) *chunk[K, V] {
	i := id - 1
	return &p.pages[i/chunkPage][i%chunkPage]
}

// spare is how many chunks can be handed out before the pool must grow.
func (p *pool[K, V]) spare() int {
	return p.nfree + len(p.pages)*chunkPage - int(p.used)
}

// reserve grows the pool by a page when less than half a page is spare, so
// that a settled queue's pool grows in the per-operation upkeep, not in
// the middle of a push.
func (p *pool[K, V]) reserve() {
	if p.spare() < chunkPage/2 {
		p.pages = append(p.pages, new([chunkPage]chunk[K, V]))
	}
}

func (p *pool[K, V]) get() int32 {
	if p.free != 0 {
		p.nfree--
		id := p.free
		c := p.c(id)
		p.free, c.next = c.next, 0
		return id
	}
	if int(p.used) == len(p.pages)*chunkPage {
		p.pages = append(p.pages, new([chunkPage]chunk[K, V]))
	}
	p.used++
	return p.used
}

func (p *pool[K, V]) put(id int32) {
	c := p.c(id)
	clear(c.e[:])
	c.next = p.free
	p.free = id
	p.nfree++
}

// pos walks a bucket's events in order: inline first, then the chunks.
type pos struct {
	ci  int32 // 0 inline, else 1 + chunk index
	off int
}

func (p *pool[K, V]) at(b *bucket[K, V], c pos) *entry[K, V] {
	if c.ci == 0 {
		return &b.e[c.off]
	}
	return &p.c(c.ci).e[c.off]
}

func (p *pool[K, V]) step(b *bucket[K, V], c *pos) {
	c.off++
	if c.ci == 0 && c.off == inlineN {
		c.ci, c.off = b.ovf, 0
	} else if c.ci != 0 && c.off == chunkN {
		c.ci, c.off = p.c(c.ci).next, 0
	}
}

// push appends e to b.
func (p *pool[K, V]) push(b *bucket[K, V], e entry[K, V]) {
	n := int(b.n)
	b.n++
	if n < inlineN {
		b.e[n] = e
		return
	}
	k := n - inlineN
	if k == 0 {
		id := p.get()
		b.ovf, b.tail = id, id
		p.c(id).e[0] = e
		return
	}
	if k%chunkN == 0 {
		id := p.get()
		p.c(b.tail).next = id
		b.tail = id
	}
	p.c(b.tail).e[k%chunkN] = e
}

// truncate shortens b to n events, returning the chunks it no longer needs.
func (p *pool[K, V]) truncate(b *bucket[K, V], n int) {
	old := int(b.n)
	b.n = int32(n)
	if n < inlineN {
		clear(b.e[n:min(old, inlineN)])
	}
	if b.ovf == 0 {
		return
	}
	keep := (n - inlineN + chunkN - 1) / chunkN // chunks still needed
	if n <= inlineN {
		keep = 0
	}
	id, last := b.ovf, int32(0)
	for i := 0; id != 0; i++ {
		next := p.c(id).next
		switch {
		case i < keep-1:
		case i == keep-1:
			last = id
			c := p.c(id)
			clear(c.e[(n-inlineN)-i*chunkN:])
			c.next = 0
		default:
			p.put(id)
		}
		id = next
	}
	if keep == 0 {
		b.ovf = 0
	}
	b.tail = last
}
