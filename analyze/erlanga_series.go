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
// y: up to the largest term, at j ≈ y - x - 1 (or none when it starts
// there), then until the terms fall
// by e^-40, which the ratio y/(x+1+j) < 1 does in at most 40/ln((x+1+j)/y)
// steps, and the ratio's own decline (e^(-m²/2z)) in at most 9√z.
func abandonTerms(x, y float64) float64 {
	j0 := math.Max(0, math.Ceil(y-x-1))
	z0 := x + 1 + j0
	m := 9*math.Sqrt(z0) + 2
	if z0 > y {
		m = math.Min(m, 40/math.Log(z0/y)+2)
	}
	if math.Floor(y-x) >= peakStart {
		// From the peak: down as far as up, not all the way to 0.
		return 2*m + 4
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
	// peakStart is the index of the largest term from which aSeries
	// starts there instead of at j = 0, summing down and up: the terms
	// below the peak that matter are about 9·√y, not all y - x of them.
	peakStart = 1 << 16
)

// add adds the term t_j = t (relative to the sums' scale), whose h_j and
// k_j are h and k, and says whether it was negligible in every sum.
func (s *aSums) add(x, fj, t, h, k float64) bool {
	d := x + fj + 1
	a0, a1, as, aa := t, fj*t, t*h/d, t*k/d
	s.s0 += a0
	s.s1 += a1
	s.served += as
	s.abandoned += aa
	return a0 <= aSeriesEps*s.s0 && a1 <= aSeriesEps*s.s1 && as <= aSeriesEps*s.served && aa <= aSeriesEps*s.abandoned
}

// rescale divides the sums and t by aSeriesScale when t passes it.
func (s *aSums) rescale(t float64) float64 {
	if t <= aSeriesScale {
		return t
	}
	s.s0 /= aSeriesScale
	s.s1 /= aSeriesScale
	s.served /= aSeriesScale
	s.abandoned /= aSeriesScale
	s.scale += math.Log(aSeriesScale)
	return t / aSeriesScale
}

// aSeries sums the terms until each sum's next term is below 1e-17 of it
// past the largest term, from j = 0, or from the largest term both ways
// when it is at peakStart or beyond (then abandoned is NaN: k_j there
// would be a difference of nearly equal numbers, and ErlangA takes
// E[Wq; abandons] as Wq - E[Wq; served] instead). It returns ctx.Err()
// when cancelled, and ErrInput if it runs past twice abandonTerms (which
// the checks before it exclude).
func aSeries(ctx context.Context, x, y float64) (aSums, error) {
	limit := 2*abandonTerms(x, y) + 100
	if jp := math.Floor(y - x); jp >= peakStart {
		return aSeriesFromPeak(ctx, x, y, jp, limit)
	}
	s := aSums{}
	t, h, k := 1.0, 1/(x+1), 1/(x+1)
	s.add(x, 0, t, h, k)
	peak := y - x - 1
	for j := 1; float64(j) <= limit; j++ {
		if err := stopped(ctx, j); err != nil {
			return aSums{}, err
		}
		fj := float64(j)
		t *= y / (x + fj)
		h += 1 / (x + fj + 1)
		k += (fj + 1) / (x + fj + 1)
		small := s.add(x, fj, t, h, k)
		t = s.rescale(t)
		if fj > peak && small {
			return s, nil
		}
	}
	return aSums{}, errNoConvergence(x, y, limit)
}

func errNoConvergence(x, y, limit float64) error {
	return inputErr("the Erlang A sum for x = cμ/θ = %g, y = λ/θ = %g did not converge in %g terms", x, y, limit)
}

// aSeriesFromPeak is aSeries from the largest term, t_jp, at jp ≥ 1:
// the sums are relative to it (scale = ln t_jp), down to j = 0 and up
// until the terms are negligible.
func aSeriesFromPeak(ctx context.Context, x, y, jp, limit float64) (aSums, error) {
	s := aSums{scale: lnTerm(x, y, jp)}
	hp := harmonic(x, jp)
	s.add(x, jp, 1, hp, 0)
	steps := 0
	t, h := 1.0, hp
	for j := jp - 1; j >= 0; j-- {
		if steps++; float64(steps) > limit {
			return aSums{}, errNoConvergence(x, y, limit)
		}
		if err := stopped(ctx, steps); err != nil {
			return aSums{}, err
		}
		t *= (x + j + 1) / y
		h -= 1 / (x + j + 2)
		if s.add(x, j, t, h, 0) {
			break
		}
	}
	t, h = 1.0, hp
	for j := jp + 1; ; j++ {
		if steps++; float64(steps) > limit {
			return aSums{}, errNoConvergence(x, y, limit)
		}
		if err := stopped(ctx, steps); err != nil {
			return aSums{}, err
		}
		t *= y / (x + j)
		h += 1 / (x + j + 1)
		if s.add(x, j, t, h, 0) {
			break
		}
	}
	s.abandoned = math.NaN()
	return s, nil
}

// lnTerm is ln t_n = Σ_{i=1..n} ln(y/(x+i)): the first terms summed
// until x+i ≥ 20, the rest as n'·ln y - (lnΓ(b) - lnΓ(a)), a = x+i,
// b = a+n', by Stirling's series with its large parts rearranged so that
// nothing of size n·ln y is subtracted: -n'·log1p((b-y)/y) + a·(u -
// log1p(u)) + ½·log1p(u) - (C(b) - C(a)), u = n'/a. Its absolute error
// is about 1e-16·n.
func lnTerm(x, y, n float64) float64 {
	acc, a := 0.0, x+1
	for ; a < 20 && n > 0; a, n = a+1, n-1 {
		acc += math.Log(y / a)
	}
	if n == 0 {
		return acc
	}
	b, u := a+n, n/a
	return acc - n*math.Log1p((b-y)/y) + a*uMinusLog1p(u) + 0.5*math.Log1p(u) - (stirlingC(b) - stirlingC(a))
}

// stirlingC is lnΓ(z) - ((z-½)ln z - z + ½ln 2π), for z ≥ 20 (error
// below 1e-17).
func stirlingC(z float64) float64 {
	z2 := 1 / (z * z)
	return (1.0/12 - z2*(1.0/360-z2*(1.0/1260-z2/1680))) / z
}

// uMinusLog1p is u - ln(1+u), by its series for small u.
func uMinusLog1p(u float64) float64 {
	if u > 0.1 {
		return u - math.Log1p(u)
	}
	sum, p := 0.0, u
	for k := 2.0; k < 60; k++ {
		p *= -u
		term := -p / k
		sum += term
		if math.Abs(term) < 1e-17*sum {
			break
		}
	}
	return sum
}

// harmonic is h_n = Σ_{i=1..n+1} 1/(x+i) = ψ(x+n+2) - ψ(x+1): the first
// terms summed until x+i ≥ 20, the rest from ψ's asymptotic series,
// ln z - 1/(2z) - D(z), with ln(b/a) as log1p.
func harmonic(x, n float64) float64 {
	acc, a, m := 0.0, x+1, n+1
	for ; a < 20 && m > 0; a, m = a+1, m-1 {
		acc += 1 / a
	}
	if m == 0 {
		return acc
	}
	b := a + m
	return acc + math.Log1p(m/a) - (1/(2*b) - 1/(2*a)) - (digammaD(b) - digammaD(a))
}

// digammaD is ln z - 1/(2z) - ψ(z) for z ≥ 20 (error below 1e-17).
func digammaD(z float64) float64 {
	z2 := 1 / (z * z)
	return z2 * (1.0/12 - z2*(1.0/120-z2*(1.0/252-z2*(1.0/240-z2/132))))
}

// logAddExp is ln(e^a + e^b) without overflow.
func logAddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}
