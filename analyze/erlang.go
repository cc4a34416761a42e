package analyze

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// ErrInput marks an invalid parameter; the CLI reports it as a usage error.
var ErrInput = errors.New("invalid input")

func inputErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInput}, args...)...)
}

// ErlangB is the blocking probability of c servers offered a Erlangs
// (M/M/c/c), by the recurrence B(k) = a·B(k-1) / (k + a·B(k-1)), B(0) = 1:
// O(c), every step in (0, 1], so it neither overflows nor loses precision
// where the textbook sum of a^k/k! does (c ≈ 150). It returns ctx.Err()
// when ctx is cancelled.
func ErlangB(ctx context.Context, c int, a float64) (float64, error) {
	if err := checkErlang(c, a); err != nil {
		return 0, err
	}
	return erlangB(ctx, c, a)
}

// checkErlang rejects servers outside [1, MaxServers] or a load outside
// [MinRate, MaxLoad].
func checkErlang(c int, a float64) error {
	if err := checkServers(c); err != nil {
		return err
	}
	if err := checkRate("load", a); err != nil {
		return err
	}
	return checkLoad(a)
}

func erlangB(ctx context.Context, c int, a float64) (float64, error) {
	b := 1.0
	for k := 1; k <= c; k++ {
		if err := stopped(ctx, k); err != nil {
			return 0, err
		}
		b = a * b / (float64(k) + a*b)
	}
	return b, nil
}

// tinyB is where float64 Erlang B stops being trusted: below it the
// recurrence nears the subnormal range, so LogErlangB takes over.
const tinyB = 1e-250

// LogErlangB is ln B(c, a), exact where B itself underflows float64 (c =
// 10^6 at half load has B ≈ 10^-54000): the plain recurrence while B ≥
// 1e-250, then the same recurrence on ln(1/B), 1/B(k) = 1 + (k/a)/B(k-1),
// as ln(1/B(k)) = x + ln(1 + e^-x) with x = ln(k/a) + ln(1/B(k-1)).
func LogErlangB(ctx context.Context, c int, a float64) (float64, error) {
	if err := checkErlang(c, a); err != nil {
		return 0, err
	}
	return logErlangB(ctx, c, a)
}

func logErlangB(ctx context.Context, c int, a float64) (float64, error) {
	// The plain recurrence stops before a step below tinyB: with a tiny
	// load one step can fall from 1e-250 past float64's range to 0.
	b, k := 1.0, 1
	for ; k <= c; k++ {
		if err := stopped(ctx, k); err != nil {
			return 0, err
		}
		next := a * b / (float64(k) + a*b)
		if next < tinyB {
			break
		}
		b = next
	}
	// ln(1/B) only grows from here (B falls with k), so every step adds
	// ln(k/a) + ln(1 + e^-x) > 0 to it; the additions are compensated
	// (Kahan), or a million roundings would cost about 7 digits.
	inv, comp := -math.Log(b), 0.0 // ln(1/B(k-1)) = inv - comp
	la := math.Log(a)
	for ; k <= c; k++ {
		if err := stopped(ctx, k); err != nil {
			return 0, err
		}
		lk := math.Log(float64(k)) - la
		x := lk + inv
		d := lk + math.Log1p(math.Exp(-x)) - comp
		t := inv + d
		comp = (t - inv) - d
		inv = t
	}
	return -inv, nil
}

// ErlangC is the probability that an arrival waits in M/M/c with offered
// load a = λ/μ: B / (1 - ρ(1-B)), ρ = a/c. It is 1 when ρ ≥ 1.
func ErlangC(ctx context.Context, c int, a float64) (float64, error) {
	b, err := ErlangB(ctx, c, a)
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
