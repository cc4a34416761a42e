package analyze

import (
	"errors"
	"fmt"
	"math"
)

// ErrInput marks an invalid parameter; the CLI reports it as a usage error.
var ErrInput = errors.New("invalid input")

func inputErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInput}, args...)...)
}

// checkRate rejects a rate or load that is not a positive finite number.
func checkRate(name string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return inputErr("%s = %v: want a positive number", name, v)
	}
	return nil
}

// ErlangB is the blocking probability of c servers offered a Erlangs
// (M/M/c/c), by the recurrence B(k) = a·B(k-1) / (k + a·B(k-1)), B(0) = 1:
// O(c), every step in (0, 1], so it neither overflows nor loses precision
// where the textbook sum of a^k/k! does (c ≈ 150).
func ErlangB(c int, a float64) (float64, error) {
	if c < 1 {
		return 0, inputErr("servers = %d: want at least 1", c)
	}
	if err := checkRate("load", a); err != nil {
		return 0, err
	}
	return erlangB(c, a), nil
}

func erlangB(c int, a float64) float64 {
	b := 1.0
	for k := 1; k <= c; k++ {
		b = a * b / (float64(k) + a*b)
	}
	return b
}

// ErlangC is the probability that an arrival waits in M/M/c with offered
// load a = λ/μ: B / (1 - ρ(1-B)), ρ = a/c. It is 1 when ρ ≥ 1.
func ErlangC(c int, a float64) (float64, error) {
	b, err := ErlangB(c, a)
	if err != nil {
		return 0, err
	}
	return erlangC(c, a, b), nil
}

func erlangC(c int, a, b float64) float64 {
	rho := a / float64(c)
	if rho >= 1 {
		return 1
	}
	return b / (1 - rho*(1-b))
}
