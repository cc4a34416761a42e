package schedbench

import (
	"fmt"
	"math"
)

// Goal is one performance goal evaluated on rows of a Run: a
// ratio against a baseline measured in the same run, or a latency bound.
type Goal struct {
	Goal   string  `json:"goal"`   // e.g. "hold-vs-heap4/exp"
	Value  float64 `json:"value"`  // the measured ratio, or milliseconds
	Target string  `json:"target"` // e.g. "<= 0.5"
	Met    bool    `json:"met"`
	Detail string  `json:"detail"` // what was divided by what
}

// Goals evaluates the goals below on whatever rows exist, skipping a
// goal whose rows are missing, in this order:
//
//   - hold-vs-heap4/<dist>: cq-pram ÷ heap4 ns/op, hold, at cq-pram's
//     largest size; target <= 0.5.
//   - hold-scaling/<dist>: cq-pram hold ns/op at its largest size ÷ at its
//     smallest; target <= 2 (needs two sizes).
//   - max-op/<model>/<dist>: cq-pram's slowest single op at its largest
//     size, hold and updown, in ms; target <= 1.
//   - trace-resizes/bursty: cq-pram ÷ cq-brown resizes on the bursty trace,
//     with cq-brown's count floored at 1 to keep the value finite (JSON has
//     no infinity); target <= 0.5.
//
// It is a pure function of rows.
func Goals(rows []Row) []Goal {
	var goals []Goal
	add := func(g Goal, ok bool) {
		if ok {
			goals = append(goals, g)
		}
	}
	for _, d := range DistNames {
		add(vsHeap4Goal(rows, d))
	}
	for _, d := range DistNames {
		add(scalingGoal(rows, d))
	}
	for _, m := range []string{"hold", "updown"} {
		for _, d := range DistNames {
			add(maxOpGoal(rows, m, d))
		}
	}
	for _, d := range DistNames {
		add(allocGoal(rows, d))
	}
	add(traceGoal(rows))
	return goals
}

func vsHeap4Goal(rows []Row, dist string) (Goal, bool) {
	_, hi, ok := sizeRange(rows, "cq-pram", "hold", dist)
	cq, ok1 := findRow(rows, "cq-pram", "hold", dist, hi)
	h4, ok2 := findRow(rows, "heap4", "hold", dist, hi)
	if !ok || !ok1 || !ok2 || h4.NsPerOp <= 0 {
		return Goal{}, false
	}
	v := cq.NsPerOp / h4.NsPerOp
	return Goal{
		Goal: "hold-vs-heap4/" + dist, Value: v, Target: "<= 0.5", Met: v <= 0.5,
		Detail: fmt.Sprintf("cq-pram %.1f ns/op ÷ heap4 %.1f ns/op (hold, %s, n=%d)",
			cq.NsPerOp, h4.NsPerOp, dist, hi),
	}, true
}

func scalingGoal(rows []Row, dist string) (Goal, bool) {
	lo, hi, ok := sizeRange(rows, "cq-pram", "hold", dist)
	big, _ := findRow(rows, "cq-pram", "hold", dist, hi)
	small, _ := findRow(rows, "cq-pram", "hold", dist, lo)
	if !ok || lo == hi || small.NsPerOp <= 0 {
		return Goal{}, false
	}
	v := big.NsPerOp / small.NsPerOp
	return Goal{
		Goal: "hold-scaling/" + dist, Value: v, Target: "<= 2", Met: v <= 2,
		Detail: fmt.Sprintf("cq-pram %.1f ns/op at n=%d ÷ %.1f ns/op at n=%d (hold, %s)",
			big.NsPerOp, hi, small.NsPerOp, lo, dist),
	}, true
}

func maxOpGoal(rows []Row, model, dist string) (Goal, bool) {
	_, hi, ok := sizeRange(rows, "cq-pram", model, dist)
	r, _ := findRow(rows, "cq-pram", model, dist, hi)
	if !ok {
		return Goal{}, false
	}
	v := float64(r.MaxOpNs) / 1e6
	return Goal{
		Goal: "max-op/" + model + "/" + dist, Value: v, Target: "<= 1 ms", Met: v <= 1,
		Detail: fmt.Sprintf("cq-pram slowest op %d ns (%s, %s, n=%d)", r.MaxOpNs, model, dist, hi),
	}, true
}

func traceGoal(rows []Row) (Goal, bool) {
	_, hi, ok := sizeRange(rows, "cq-pram", "trace", "bursty")
	pram, _ := findRow(rows, "cq-pram", "trace", "bursty", hi)
	brown, ok2 := findRow(rows, "cq-brown", "trace", "bursty", hi)
	if !ok || !ok2 {
		return Goal{}, false
	}
	v := float64(pram.Resizes) / float64(max(brown.Resizes, 1))
	return Goal{
		Goal: "trace-resizes/bursty", Value: v, Target: "<= 0.5", Met: v <= 0.5,
		Detail: fmt.Sprintf("cq-pram %d resizes ÷ cq-brown %d resizes (bursty trace, %d arrivals)",
			pram.Resizes, brown.Resizes, hi),
	}, true
}

// sizeRange returns the smallest and largest Size among the rows of queue,
// model and dist.
func sizeRange(rows []Row, queue, model, dist string) (lo, hi int, ok bool) {
	lo, hi = math.MaxInt, 0
	for _, r := range rows {
		if r.Queue == queue && r.Model == model && r.Dist == dist {
			lo, hi, ok = min(lo, r.Size), max(hi, r.Size), true
		}
	}
	return lo, hi, ok
}

// findRow returns the last row of queue, model, dist and size.
func findRow(rows []Row, queue, model, dist string, size int) (Row, bool) {
	for i := len(rows) - 1; i >= 0; i-- {
		r := rows[i]
		if r.Queue == queue && r.Model == model && r.Dist == dist && r.Size == size {
			return r, true
		}
	}
	return Row{}, false
}

// allocGoal: heap allocations per hold of cq-pram at the largest size, in
// steady state (after N warm-up holds).
func allocGoal(rows []Row, dist string) (Goal, bool) {
	_, hi, ok := sizeRange(rows, "cq-pram", "hold", dist)
	r, _ := findRow(rows, "cq-pram", "hold", dist, hi)
	if !ok {
		return Goal{}, false
	}
	return Goal{
		Goal: "allocs-per-hold/" + dist, Value: r.AllocsPerOp, Target: "= 0", Met: r.AllocsPerOp == 0,
		Detail: fmt.Sprintf("cq-pram heap allocations per hold after %d warm-up holds (n=%d)", hi, hi),
	}, true
}
