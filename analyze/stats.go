package analyze

import "math"

// ChiSquareQuantile is the p-quantile of the χ² distribution with k
// degrees of freedom (0 < p < 1, k > 0): 2·P⁻¹(k/2, p), with P the
// regularized lower incomplete gamma function. It is accurate to about
// 1e-10 relative; the cost grows as √k (the series and the continued
// fraction behind P need O(√k) terms near the mode).
func ChiSquareQuantile(p, k float64) (float64, error) {
	if !(p > 0 && p < 1) {
		return 0, inputErr("p = %v: want a probability strictly between 0 and 1", p)
	}
	if err := checkRate("degrees of freedom", k); err != nil {
		return 0, err
	}
	return 2 * gammaPInv(k/2, p), nil
}

// gammaCI is the exact two-sided interval for the rate θ of a gamma
// variable: when 2θ·total ~ χ²(2k), as for the sum of k exponential
// times of rate θ, θ lies in [χ²(α/2; 2k), χ²(1-α/2; 2k)] / (2·total)
// with probability conf = 1-α.
func gammaCI(k int, total, conf float64) Interval {
	alpha, df := 1-conf, 2*float64(k)
	return Interval{
		Lo: 2 * gammaPInv(df/2, alpha/2) / (2 * total),
		Hi: 2 * gammaPInv(df/2, 1-alpha/2) / (2 * total),
	}
}

// gammaP is the regularized lower incomplete gamma function P(a, x), by
// its series below x = a+1 and by the continued fraction of Q = 1-P
// above, where each converges fast (Numerical Recipes, 3rd ed., 6.2).
func gammaP(a, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x < a+1:
		return gammaSeries(a, x)
	}
	return 1 - gammaCF(a, x)
}

// gammaPrefix is x^a·e^(-x)/Γ(a), in log space so that it neither
// overflows nor underflows for large a.
func gammaPrefix(a, x float64) float64 {
	return math.Exp(a*math.Log(x) - x - lgamma(a))
}

const gammaEps = 1e-15

func gammaSeries(a, x float64) float64 {
	sum := 1 / a
	term := sum
	for n := 1.0; n < 1e7; n++ {
		term *= x / (a + n)
		sum += term
		if math.Abs(term) < math.Abs(sum)*gammaEps {
			break
		}
	}
	return sum * gammaPrefix(a, x)
}

// gammaCF is Q(a, x) by the modified Lentz method.
func gammaCF(a, x float64) float64 {
	const tiny = 1e-300
	b := x + 1 - a
	c, d := 1/tiny, 1/b
	h := d
	for i := 1.0; i < 1e7; i++ {
		an := -i * (i - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = b + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < gammaEps {
			break
		}
	}
	return gammaPrefix(a, x) * h
}

// gammaPInv is the x with P(a, x) = p, 0 < p < 1: Halley's method from
// the Wilson-Hilferty guess (a > 1) or a small-a guess (Numerical
// Recipes, 3rd ed., 6.2.1), to a relative step below 1e-12.
func gammaPInv(a, p float64) float64 {
	x := gammaPGuess(a, p)
	a1 := a - 1
	for range 100 {
		if !(x > 0) { // NaN too: no loop below runs its 10^7 terms on it
			return 0
		}
		// t is the density of the gamma(a) distribution at x.
		t := math.Exp(a1*math.Log(x) - x - lgamma(a))
		u := (gammaP(a, x) - p) / t
		step := u / (1 - 0.5*min(1, u*(a1/x-1)))
		x -= step
		if x <= 0 {
			x = 0.5 * (x + step) // halve the way to zero instead
		}
		if math.Abs(step) < 1e-12*x {
			break
		}
	}
	return x
}

func gammaPGuess(a, p float64) float64 {
	if a > 1 {
		pp := min(p, 1-p)
		t := math.Sqrt(-2 * math.Log(pp))
		z := (2.30753+t*0.27061)/(1+t*(0.99229+t*0.04481)) - t
		if p < 0.5 {
			z = -z
		}
		return max(1e-3, a*math.Pow(1-1/(9*a)-z/(3*math.Sqrt(a)), 3))
	}
	t := 1 - a*(0.253+a*0.12)
	if p < t {
		return math.Pow(p/t, 1/a)
	}
	return 1 - math.Log(1-(p-t)/(1-t))
}

// meanCV is the mean of xs and their coefficient of variation, the
// sample standard deviation (n-1) over the mean; ok is false with fewer
// than two values or a zero mean.
func meanCV(xs []float64) (mean, cv float64, ok bool) {
	if len(xs) < 2 {
		return 0, 0, false
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if mean <= 0 {
		return mean, 0, false
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss/float64(len(xs)-1)) / mean, true
}
