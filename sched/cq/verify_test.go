package cq

import (
	"fmt"
	"math"
)

// verify checks the queue's invariants: counts add up, the bitmap matches
// the buckets, every event sits in the bucket of its slot at or after the
// front (or, in a retired calendar, at or after the migration point), the
// bottom is a heap, and every bottom event precedes every calendar event.
func (q *Queue[K, V]) verify() error {
	total := q.bottom.len() + len(q.stage.e)
	stMin := int64(math.MaxInt64)
	for i := range q.stage.e {
		s := q.cal.slot(float64(q.stage.e[i].key))
		if s != q.stage.slot[i] || s < q.front {
			return fmt.Errorf("stage: key %v in slot %d, recorded %d, front %d", q.stage.e[i].key, s, q.stage.slot[i], q.front)
		}
		stMin = min(stMin, s)
	}
	if stMin != q.stage.min {
		return fmt.Errorf("stage: min slot %d, recorded %d", stMin, q.stage.min)
	}
	var botMax *entry[K, V]
	h := &q.bottom.late
	for i := 1; i < len(h.e); i++ {
		if h.e[i].less(&h.e[(i-1)/h.arity]) {
			return fmt.Errorf("bottom: heap order broken at %d", i)
		}
	}
	r := q.bottom.run
	if q.bottom.head > len(r) || q.bottom.head == len(r) && len(r) > 0 {
		return fmt.Errorf("bottom: head %d of %d", q.bottom.head, len(r))
	}
	for i := q.bottom.head + 1; i < q.bottom.sorted; i++ {
		if r[i].less(&r[i-1]) {
			return fmt.Errorf("bottom: run out of order at %d", i)
		}
	}
	// Groups ascend: no event of a group is below one of an earlier group.
	prev := q.bottom.sorted
	var prevMax *entry[K, V]
	if prev > q.bottom.head {
		prevMax = &r[prev-1]
	}
	for _, end := range q.bottom.ends[q.bottom.gi:] {
		if int(end) <= prev {
			return fmt.Errorf("bottom: empty group ending %d after %d", end, prev)
		}
		groupMax := prevMax
		for i := prev; i < int(end); i++ {
			if prevMax != nil && r[i].less(prevMax) {
				return fmt.Errorf("bottom: group ending %d holds %v below %v of an earlier one", end, r[i].key, prevMax.key)
			}
			if groupMax == nil || groupMax.less(&r[i]) {
				groupMax = &r[i]
			}
		}
		prev, prevMax = int(end), groupMax
	}
	if q.bottom.sorted < len(r) && (len(q.bottom.ends) == q.bottom.gi || int(q.bottom.ends[len(q.bottom.ends)-1]) != len(r)) {
		return fmt.Errorf("bottom: unsorted tail without groups")
	}
	var errB error
	q.bottom.each(func(e *entry[K, V]) {
		if errB != nil {
			return
		}
		if botMax == nil || botMax.less(e) {
			botMax = e
		}
		if s := q.cal.slot(float64(e.key)); s >= q.front {
			errB = fmt.Errorf("bottom: key %v in slot %d, not below front %d", e.key, s, q.front)
		}
	})
	if errB != nil {
		return errB
	}
	n, err := q.cal.verify(q.front, botMax)
	if err != nil {
		return fmt.Errorf("calendar: %w", err)
	}
	total += n
	if o := q.mig.old; o != nil {
		var n int
		n, err = o.verify(q.mig.next, botMax)
		if err != nil {
			return fmt.Errorf("retired calendar: %w", err)
		}
		total += n
		for i := int64(0); i <= o.mask; i++ {
			o.each(i, func(e *entry[K, V]) {
				if err == nil && q.cal.slot(float64(e.key)) < q.front {
					err = fmt.Errorf("retired calendar holds key %v below the front", e.key)
				}
			})
		}
		if err != nil {
			return err
		}
	}
	if total != q.n {
		return fmt.Errorf("holds %d events, Len says %d", total, q.n)
	}
	return nil
}

func (c *calendar[K, V]) verify(from int64, botMax *entry[K, V]) (int, error) {
	nb := c.buckets()
	if nb&(nb-1) != 0 || nb < minBuckets {
		return 0, fmt.Errorf("%d buckets", nb)
	}
	if !(c.w > 0) || math.IsInf(c.w, 0) {
		return 0, fmt.Errorf("width %v", c.w)
	}
	total := 0
	for i := int64(0); i < int64(nb); i++ {
		var n int32
		if pg := c.pages[i>>pageShift]; pg != nil {
			n = pg[i&(pageSize-1)].n
		}
		if set := c.bits[i>>6]>>(i&63)&1 == 1; set != (n > 0) {
			return 0, fmt.Errorf("bucket %d: bit %v with %d events", i, set, n)
		}
		var err error
		seen := int32(0)
		var lo int64 = maxSlot
		if n > 0 {
			lo = c.bucket(i).lo
		}
		c.each(i, func(e *entry[K, V]) {
			seen++
			s := c.slot(float64(e.key))
			switch {
			case err != nil:
			case s&c.mask != i:
				err = fmt.Errorf("key %v (slot %d) in bucket %d", e.key, s, i)
			case s < from:
				err = fmt.Errorf("key %v in slot %d before %d", e.key, s, from)
			case s < lo:
				err = fmt.Errorf("bucket %d: slot %d below its bound %d", i, s, lo)
			case s < c.glo[i>>6]:
				err = fmt.Errorf("bucket %d: slot %d below its group's bound %d", i, s, c.glo[i>>6])
			case botMax != nil && e.less(botMax):
				err = fmt.Errorf("key %v queued behind bottom key %v", e.key, botMax.key)
			}
		})
		if err != nil {
			return 0, err
		}
		if seen != n {
			return 0, fmt.Errorf("bucket %d: walked %d events of %d", i, seen, n)
		}
		total += int(n)
	}
	if total != c.n {
		return 0, fmt.Errorf("holds %d events, count says %d", total, c.n)
	}
	return total, nil
}
