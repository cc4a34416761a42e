package analyze

import (
	"context"
	"fmt"
	"math"
)

// ErrRows is Poisson's error for rows it cannot print: the first past
// the last (the default last, where the upper tail ends, included), or
// more than MaxPoissonRows of them, which it would hold in memory. It
// wraps ErrInput.
var ErrRows = fmt.Errorf("%w rows", ErrInput)

// PoissonRow is one row of a Poisson table: the probability of exactly N
// arrivals, of at most N, and of more than N.
type PoissonRow struct {
	N      int     `json:"n"`
	P      float64 `json:"p"`
	AtMost float64 `json:"p_at_most"`
	More   float64 `json:"p_more"`
}

// Poisson returns P(N = n) for the number of arrivals N in time t of a
// Poisson process of rate λ (mean m = λt), for n from lo to hi; hi < 0
// picks the rows that hold all but 1e-6 of the mass on either side, lo < 0
// likewise. Terms come from logs (n·ln m − m − ln n!), so m may be 10^6 or
// more; both tails are summed, each from its own end, so neither loses its
// digits to 1 − x. Rows past MaxPoissonRow are ErrInput, more than
// MaxPoissonRows of them, ErrRows; O(hi) time, and it returns
// ctx.Err() when ctx is cancelled.
func Poisson(ctx context.Context, lambda, t float64, lo, hi int) ([]PoissonRow, error) {
	if err := checkRate("lambda", lambda); err != nil {
		return nil, err
	}
	if err := checkRate("t", t); err != nil {
		return nil, err
	}
	m := lambda * t
	if m > MaxPoissonMean {
		return nil, inputErr("λt = %v: want at most %d arrivals on average", m, MaxPoissonMean)
	}
	if lo > MaxPoissonRow || hi > MaxPoissonRow {
		return nil, inputErr("rows %d to %d: want rows up to %d", lo, hi, MaxPoissonRow)
	}
	lm := math.Log(m)
	pmf := func(n int) float64 { return math.Exp(float64(n)*lm - m - lgamma(float64(n)+1)) }
	// Far enough above the mean that the rest of the mass is below 1e-300.
	top := int(m + 40*math.Sqrt(m) + 50)
	const tail = 1e-6
	if lo < 0 {
		lo = 0
		for cum := pmf(0); cum < tail; cum += pmf(lo) {
			lo++
			if err := stopped(ctx, lo); err != nil {
				return nil, err
			}
		}
	}
	if hi < 0 {
		hi, more := top, 0.0
		for ; hi > lo; hi-- {
			if more += pmf(hi); more >= tail {
				break
			}
		}
		return Poisson(ctx, lambda, t, lo, hi)
	}
	if hi < lo {
		return nil, fmt.Errorf("%w %d to %d: the first is past the last", ErrRows, lo, hi)
	}
	if hi-lo >= MaxPoissonRows {
		return nil, fmt.Errorf("%w %d to %d: more than the limit of %d rows", ErrRows, lo, hi, MaxPoissonRows)
	}
	rows := make([]PoissonRow, hi-lo+1)
	cum := 0.0
	for n := 0; n <= hi; n++ {
		if err := stopped(ctx, n+1); err != nil {
			return nil, err
		}
		p := pmf(n)
		cum += p
		if n >= lo {
			rows[n-lo] = PoissonRow{N: n, P: p, AtMost: min(cum, 1)}
		}
	}
	more := 0.0
	for n := max(top, hi); n > hi; n-- {
		if err := stopped(ctx, n); err != nil {
			return nil, err
		}
		more += pmf(n)
	}
	for i := len(rows) - 1; i >= 0; i-- {
		rows[i].More = more
		more += rows[i].P
	}
	return rows, nil
}
