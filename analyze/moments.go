package analyze

import "math"

// The moments of the distributions Simulate draws from, for the formulas
// that take a distribution by its moments (MG1, GGc). SCV is the squared
// coefficient of variation, Var/Mean²: 1 for exponential, 0 for constant.

// MeanTime is the mean service time in seconds: 1/Rate for exp, else
// the field Mean (which is why this is not called Mean).
func (s Service) MeanTime() float64 {
	if s.Kind == KindExp {
		return 1 / s.Rate
	}
	return s.Mean
}

// SCV is the service time's squared coefficient of variation: 1 for
// exp, 0 for const, CV² for lognormal.
func (s Service) SCV() float64 {
	switch s.Kind {
	case KindExp:
		return 1
	case KindLognormal:
		return s.CV * s.CV
	}
	return 0
}

// ThirdRatio is E[S³]/E[S]³, the third moment in units of the mean
// (finite where E[S³] itself would overflow): 6 for exp, 1 for const,
// and for lognormal (1+CV²)³, since E[S^k] = exp(k·m + k²σ²/2) with
// m = ln(Mean) − σ²/2 and σ² = ln(1+CV²). MG1Dist needs it for the
// variance of the wait.
func (s Service) ThirdRatio() float64 {
	switch s.Kind {
	case KindExp:
		return 6
	case KindLognormal:
		return math.Pow(1+s.CV*s.CV, 3)
	}
	return 1
}

// MeanTime is the mean time between arrivals in seconds, each counted
// from the one before (the first from 0): 1/Rate for exp; T/(N+1) for N
// uniform times in [0, T], the mean of their spacings; a trace's last
// time over its count. 0 when a trace's times are all 0.
func (a Arrivals) MeanTime() float64 {
	switch a.Kind {
	case KindExp:
		return 1 / a.Rate
	case KindUniform:
		return a.Span / float64(a.Count+1)
	case KindTrace:
		return a.Times[len(a.Times)-1] / float64(len(a.Times))
	}
	return 0
}

// SCV is the squared coefficient of variation of the times between
// arrivals: 1 for exp; N/(N+2) for N uniform times, the spacings of
// uniform order statistics (each Beta(1, N), scaled by T); a trace's
// gaps' own, their variance over the square of their mean (NaN when
// the times are all 0).
func (a Arrivals) SCV() float64 {
	switch a.Kind {
	case KindExp:
		return 1
	case KindUniform:
		n := float64(a.Count)
		return n / (n + 2)
	case KindTrace:
		return traceSCV(a.Times)
	}
	return math.NaN()
}

// traceSCV is the SCV of the gaps between times, the first from 0, by
// Welford's update (a sum of squares would lose the variance to
// cancellation when the gaps are nearly equal).
func traceSCV(times []float64) float64 {
	var mean, m2, prev float64
	for i, t := range times {
		g := t - prev
		prev = t
		d := g - mean
		mean += d / float64(i+1)
		m2 += d * (g - mean)
	}
	return m2 / float64(len(times)) / (mean * mean)
}
