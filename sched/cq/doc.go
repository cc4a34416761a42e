// Package cq is the pending-event set calq's engine stands on: Queue, a
// calendar queue keyed by an int64 or float64 timestamp, with the typed
// heaps it is measured against (NewHeap2, NewHeap4) and its resize
// prediction (MM1NMeanLength, ResizeThresholds). It uses the standard
// library only.
//
// # Queue
//
// NewQueue returns a priority queue of values keyed by an int64 or float64
// timestamp. Push, Pop and Peek cost O(1) amortised; Remove costs O(b) for
// the b events of the event's bucket (a handful), or of the current slot.
// Equal keys leave in the order they were pushed. A Queue is not safe for
// concurrent use; no operation blocks.
//
// What is built, and why:
//
//   - Buckets. An event with key t lies in absolute slot floor(t/w) and is
//     kept, unsorted, in bucket slot mod NB together with the events of the
//     same bucket in later "years" (Brown's circular calendar, NB a power of
//     two). A bucket keeps its first four events inline and the rest in
//     chunks of eight from an index-based pool; buckets live in pages of 1024
//     allocated on first use, and the rest of a calendar's pages (and spare
//     chunks) are allocated one every 16 operations. There is no pointer per
//     event, no allocation per operation once the queue has settled, and no
//     rebuild pays for a million buckets at once.
//   - The front. When its slot becomes current, a bucket's events of that
//     year move to the bottom, a run read off in order: up to 32 events are
//     sorted at once; a crowded slot is first split by a counting sort into
//     sub-slots of about four events, each sorted when the reader reaches it
//     (the Ladder Queue's finer rung in its simplest form), so clustered keys
//     cost O(1) per event rather than a sort of the whole slot. Events pushed
//     below the front go to a small heap beside the run.
//   - Empty stretches. A bitmap of non-empty buckets skips empty ones 64 at a
//     time. Each bucket keeps a lower bound of its slots and each group of 64
//     buckets a bound of theirs; after 32 visits that find only later years,
//     the queue jumps straight to the smallest slot in O(NB/64) instead of
//     Brown's O(NE) direct search. This is what carries it across the gaps
//     between clusters (the "camel" distribution).
//   - Staged pushes. Filing an event is a random memory access, and in a hold
//     loop each waits for the previous one. Pushes therefore wait in a stage of
//     32 (only while they cannot be next: their slot is ahead of the front) and
//     are filed as a batch whose cache misses overlap. At 10^6 events this
//     halves the cost of a hold.
//   - Resizes never stall. A resize or retune starts a new calendar and
//     migrates the old one into it a few buckets (at most 64 events) per
//     operation, in slot order, the way Go maps grow. An operation that needs
//     old events early (the front reached their slot) takes just those, not
//     the later years sharing their buckets; crowded old buckets give up whole
//     chunks, so no single step is long.
//
// # Resize policies
//
// PolicyBrown is the classic rule, kept as the baseline: double NB when
// NE > 2·NB, halve it when NE < NB/2 - 2, width 3 × the mean separation of
// 25 events sampled at the head (recomputed without separations ≥ 2× the
// first mean).
//
// PolicyPRAM (the default) predicts the right size with a Markov model
// (an M/M/1/N queue of pushes and pops) and is made stable. It estimates
// ρ = λ/μ online as the smoothed share of pushes among
// the last ~128 operations (pushes are arrivals, pops services; only the
// ratio matters), predicts the mean number of pending events L of an M/M/1/N
// queue (MM1NMeanLength; N is Options.Capacity, or twice the most events
// ever held), and resizes to NB = L/3 + 0.01·L when NE > 3·NB or NE < NB/3.
// Taken literally that target can re-trigger at once (a draining backlog with
// ρ < 1 has NE far above L), so NB is clamped into [NE/2, 2·NE] and rounded
// to a power of two; the new size then sits well inside its own triggers.
// The prediction decides where in that band NB goes: a growing queue (ρ > 1)
// gets room for growth and a draining one (ρ < 1) shrinks in one step, which
// is why PRAM resizes about half as often as Brown's rule on a bursty load.
// Its width comes from a uniform sample of 128 events: 64 × the median gap
// scaled by the sampling rate (slots of about 64 events where most events
// are, which shares the fixed cost of visiting a slot; measured faster than
// Brown's 3 at every size here), and at least what makes the year (NB·w)
// half the sample's range, unless that would put more than 8 × 64 events in
// a typical slot. Brown's head sample is fooled by a sparse head in front
// of clustered keys (it piles each cluster into a few slots), and a year far
// shorter than the span of keys fills every bucket with later years. Brown's
// rule keeps its head sample, floored at a year of 1/8 of the key span.
//
// Both policies re-tune the width at constant size: every 4096 operations
// the queue compares the events taken per slot (more than 4096: too wide) and
// the later-year events passed over per event taken (more than 4: too
// narrow), and rebuilds with a width 4 to 16 times different when the cost
// says so, at most once per NE operations so that a retune's
// moves stay within one per operation (four times NE to undo the last one).
//
// Stats reports resizes, retunes, jumps and the calendar's shape.
package cq
