package analyze

import (
	"context"
	"math"
)

// The Erlang A measures are sums over the waiting states c+j, j ≥ 0, of
// the terms t_j = y^j / ((x+1)(x+2)···(x+j)), with x = cμ/θ and y = λ/θ:
// t_j is P(N = c+j) / P(N = c), the birth-death chain's ratio. Their sum
// is Palm's A(x, y) = x·e^y·y^-x·γ(x, y), γ the lower incomplete gamma
// function (γ's power series is this sum), so summing the terms is the
// incomplete gamma function evaluated without its prefix, which is where
// large x and y overflow. Each term comes from the one before by one
// multiplication and one division: no factorial, no power.

// maxAbandonTerms bounds the terms one sum may take (about 0.5 s):
// abandonment so slow against the rates that the sum needs more is a
// usage error (ErlangA's error names θ and what it would take).
const maxAbandonTerms = 100_000_000

// abandonTerms is an upper estimate of the terms aSeries takes for x and
// y: up to the largest term, at j ≈ y - x - 1, then until the terms fall
// by e^-40, which the ratio y/(x+1+j) < 1 does in at most 40/ln((x+1+j)/y)
// steps, and the ratio's own decline (e^(-m²/2z)) in at most 9√z.
func abandonTerms(x, y float64) float64 {
	j0 := math.Max(0, math.Ceil(y-x-1))
	z0 := x + 1 + j0
	m := 9*math.Sqrt(z0) + 2
	if z0 > y {
		m = math.Min(m, 40/math.Log(z0/y)+2)
	}
	return j0 + m + 2
}

// aSums are the sums of t_j and of t_j weighted, all scaled by e^-scale
// (a sum whose terms pass 1e250 is divided, and scale grows, so that the
// largest heavy-traffic sums stay inside float64):
//
//	s0        Σ t_j = A(x, y)                    P(wait) = π_c·s0
//	s1        Σ j·t_j                            Lq = π_c·s1
//	served    Σ t_j·h_j/(x+j+1)                  E[Wq; served] = π_c·x·served/θ
//	abandoned Σ t_j·k_j/(x+j+1)                  E[Wq; abandons] = π_c·abandoned/θ
//
// with h_j = Σ_{i=1..j+1} 1/(x+i) and k_j = Σ_{i=1..j+1} i/(x+i). An
// arrival that finds j waiting is served after j+1 departures from the
// head of the line, at rates cμ + iθ, i = j..0, unless its own patience
// (rate θ) runs out first: it is served with probability x/(x+j+1), its
// wait if served has mean h_j/θ under that tilt, and its wait if it
// abandons adds k_j/(θ(x+j+1)). Every weight is a sum of positive terms,
// so no measure is a difference of nearly equal numbers (the closed form
// P(abandon) = P(wait)·(1 - 1/ρ + 1/(ρA)) cancels for small θ).
type aSums struct {
	scale, s0, s1, served, abandoned float64
}

// lnA is ln A(x, y).
func (s aSums) lnA() float64 { return s.scale + math.Log(s.s0) }

const (
	aSeriesEps   = 1e-17
	aSeriesScale = 1e250
)

// aSeries sums the terms until each sum's next term is below 1e-17 of it
// past the largest term. It returns ctx.Err() when cancelled, and ErrInput
// if it runs past twice abandonTerms (which the checks before it exclude).
func aSeries(ctx context.Context, x, y float64) (aSums, error) {
	s := aSums{s0: 1}
	t, h, k := 1.0, 1/(x+1), 1/(x+1)
	s.served, s.abandoned = h/(x+1), k/(x+1)
	limit := 2*abandonTerms(x, y) + 100
	peak := y - x - 1
	for j := 1; float64(j) <= limit; j++ {
		if err := stopped(ctx, j); err != nil {
			return aSums{}, err
		}
		fj := float64(j)
		t *= y / (x + fj)
		i := fj + 1
		h += 1 / (x + i)
		k += i / (x + i)
		d := x + fj + 1
		a0, a1, as, aa := t, fj*t, t*h/d, t*k/d
		s.s0 += a0
		s.s1 += a1
		s.served += as
		s.abandoned += aa
		if t > aSeriesScale {
			t /= aSeriesScale
			s.s0 /= aSeriesScale
			s.s1 /= aSeriesScale
			s.served /= aSeriesScale
			s.abandoned /= aSeriesScale
			s.scale += math.Log(aSeriesScale)
		}
		if fj > peak && a0 <= aSeriesEps*s.s0 && a1 <= aSeriesEps*s.s1 &&
			as <= aSeriesEps*s.served && aa <= aSeriesEps*s.abandoned {
			return s, nil
		}
	}
	return aSums{}, inputErr("the Erlang A sum for x = cμ/θ = %g, y = λ/θ = %g did not converge in %g terms", x, y, limit)
}

// logAddExp is ln(e^a + e^b) without overflow.
func logAddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}
