package cq

import "math"

// MM1NMeanLength returns L, the mean number in system of an M/M/1/N queue
// with utilisation rho = λ/μ (N counts the one in service). It stays exact
// near rho = 1 and for rho > 1, where the textbook closed form cancels or
// overflows: for rho > 1 it uses L(rho) = N - L(1/rho), and near 1 a series.
// rho = +Inf gives N.
func MM1NMeanLength(rho float64, n int) float64 {
	if n <= 0 || rho <= 0 || math.IsNaN(rho) {
		return 0
	}
	N := float64(n)
	if math.IsInf(rho, 1) {
		return N
	}
	if rho > 1 {
		return N - MM1NMeanLength(1/rho, n)
	}
	lr := math.Log(rho) // ≤ 0
	if x := -lr * (N + 1); x < 1e-4 {
		// L = N/2 + N(N+2)/12·(rho-1) + O((rho-1)²): the closed form's two
		// large terms cancel here.
		return N/2 + N*(N+2)/12*(rho-1)
	}
	// L = rho/(1-rho) - (N+1)·rho^(N+1)/(1-rho^(N+1))
	a := -math.Expm1(lr)           // 1 - rho
	r := math.Exp(lr * (N + 1))    // rho^(N+1)
	b := -math.Expm1(lr * (N + 1)) // 1 - rho^(N+1)
	return rho/a - (N+1)*r/b
}

// ResizeThresholds returns when a calendar of nb buckets resizes under
// policy p: it grows once it holds more than grow events and shrinks once
// it holds fewer than shrink (-1: never, at the smallest size). PRAM
// resizes at NE > 3·NB and NE < NB/3, Brown at NE > 2·NB and NE < NB/2 - 2.
func ResizeThresholds(p Policy, nb int) (grow, shrink int) {
	if p == PolicyBrown {
		grow, shrink = 2*nb, nb/2-2
	} else {
		grow, shrink = 3*nb, nb/3
	}
	if nb <= minBuckets {
		shrink = -1
	}
	return grow, shrink
}

// PRAMBuckets is the bucket count a PolicyPRAM queue resizes to when it
// holds events events with push/pop ratio rho and capacity N (see
// PolicyPRAM): NB = L/3 + 0.01·L for the M/M/1/N mean length L, clamped
// into [events/2, 2·events] and rounded to a power of two, at least the
// smallest calendar. calq analyze resize calls this, so the calculator and
// the queue cannot disagree.
func PRAMBuckets(rho float64, capacity, events int) int {
	return pramBuckets(rho, capacity, events, minBuckets)
}

// MinBuckets is the smallest calendar: a queue starts with it and never
// shrinks below it.
const MinBuckets = minBuckets
