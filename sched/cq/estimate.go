package cq

import "math"

// estimator watches the operations: arrival (push) and service (pop) rates
// for the PRAM prediction, the key span, and the cost of dequeues for the
// width retune. All updates are O(1).
type estimator struct {
	growAt, shrinkAt int

	window         int     // operations since the window started
	pushFrac       float64 // smoothed fraction of operations that push
	peak           int     // most events held at once
	minKey, maxKey float64 // span of keys pushed, for a fallback width
	visits, futile int     // slot visits in this window, and those that moved nothing
	moved, kept    int     // events moved to the bottom, and later-year events passed over
	sinceRebuild   int     // operations since the last rebuild
	lastRetune     int     // +1 if the last retune widened the buckets, -1 if it narrowed them
	haveKeys       bool
}

const (
	windowOps     = 4096      // operations per estimation window
	maxPerSlot    = 4096      // events per slot taken above which the width is too large
	targetPerSlot = 64        // what a retune for too large a width aims at
	maxWaste      = 4         // later-year events passed over per event taken, above which it is too small
	smoothing     = 1.0 / 128 // weight of one operation in pushFrac
)

func (e *estimator) init() { e.pushFrac = 0.5 }

func (e *estimator) setThresholds(p Policy, nb int) {
	e.growAt, e.shrinkAt = ResizeThresholds(p, nb)
}

func (e *estimator) push(x float64, n int) {
	e.pushFrac += (1 - e.pushFrac) * smoothing
	e.window++
	e.sinceRebuild++
	e.peak = max(e.peak, n)
	if !e.haveKeys {
		e.minKey, e.maxKey, e.haveKeys = x, x, true
	}
	e.minKey = min(e.minKey, x)
	e.maxKey = max(e.maxKey, x)
}

func (e *estimator) pop(x float64) {
	e.pushFrac -= e.pushFrac * smoothing
	e.window++
	e.sinceRebuild++
	e.minKey = x // keys below the last popped one are rare; a fallback only
}

func (e *estimator) visit(moved, kept int) {
	e.visits++
	if moved == 0 {
		e.futile++
	}
	e.moved += moved
	e.kept += kept
}

// rho estimates λ/μ, the ratio of the arrival (push) rate to the service
// (pop) rate, from the smoothed share of pushes among the last hundred or
// so operations: short enough to see a burst coming and going. It is +Inf
// while only pushes have been seen.
func (e *estimator) rho() float64 {
	if e.pushFrac >= 1 {
		return math.Inf(1)
	}
	return e.pushFrac / (1 - e.pushFrac)
}

// windowDone closes a window every windowOps operations.
func (e *estimator) windowDone() bool {
	return e.window >= windowOps
}

// retuneFactor judges the closed window's dequeue cost and returns the
// factor the width should change by (1 when it is fine): too many events
// per slot taken means the width is too large, too many later-year events
// passed over per event taken that the year is too short. Visits that find
// nothing do not count: the jumps bound them, and clustered keys make many
// whatever the width. The measure covers thousands of dequeues, so it is
// steadier than a head sample. It resets the window.
func (e *estimator) retuneFactor() float64 {
	f := 1.0
	if e.moved >= 64 {
		perSlot := float64(e.moved) / float64(max(1, e.visits-e.futile))
		waste := float64(e.kept) / float64(e.moved)
		switch {
		case perSlot > maxPerSlot:
			f = max(targetPerSlot/perSlot, 1.0/16)
		case waste > maxWaste:
			// Wider, but not into crowded slots: clustered keys pass over
			// later years however wide the buckets are.
			f = min(waste, 16, maxPerSlot/4/perSlot)
		}
	}
	e.resetWindow()
	return f
}

func (e *estimator) resetWindow() {
	e.window = 0
	e.visits, e.futile, e.moved, e.kept = 0, 0, 0, 0
}
