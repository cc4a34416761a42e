#!/usr/bin/env python3
"""Reference values for analyze.ErlangA, computed with mpmath from the
birth-death chain itself, independently of calq's incomplete-gamma sums.

The chain: states n = 0, 1, ...; birth rate λ; death rate min(n, c)·μ +
max(n-c, 0)·θ. It is truncated where the unnormalised weight falls below
1e-60 of the largest (the tail beyond is smaller than that times a
geometric series, far below the printed digits). Conditional waits come
from the tagged arrival's absorbing chain: with i ahead it moves up at
rate cμ + iθ, abandons at θ; served after j+1 moves. The service level
P(served, wait ≤ t) sums, over the states an arrival finds, the product of
the move probabilities times the hypoexponential CDF of the j+1 holding
times (rates cμ + (i+1)θ), evaluated at 200 digits (its alternating sum
needs them).

Usage: python3 erlanga_mpmath.py lambda mu theta c [t]
"""
import sys
from mpmath import mp, mpf, exp

mp.dps = 60


def chain(lam, mu, theta, c):
    w = [mpf(1)]
    n = 0
    peak = mpf(1)
    while True:
        n += 1
        d = min(n, c) * mu + max(n - c, 0) * theta
        w.append(w[-1] * lam / d)
        peak = max(peak, w[-1])
        if n > c and w[-1] < peak * mpf(10) ** -60:
            break
    z = sum(w)
    return [v / z for v in w]


def measures(lam, mu, theta, c):
    p = chain(lam, mu, theta, c)
    cm = c * mu
    pw = sum(p[c:])
    lq = sum((n - c) * p[n] for n in range(c, len(p)))
    pab = theta * lq / lam
    ws = wa = mpf(0)
    for n in range(c, len(p)):
        j = n - c
        ps, ms, ma = mpf(1), mpf(0), mpf(0)  # P(served), E[T;served], E[T;ab] from 0..j ahead
        for i in range(j + 1):
            r = cm + i * theta + theta
            q = (cm + i * theta) / r
            ma = (theta / r) / r + q * ((1 - ps) / r + ma) if i else (theta / r) / r
            ms = q * (ps / r + ms) if i else q / r
            ps = q * ps if i else q
        ws += p[n] * ms
        wa += p[n] * ma
    thr = lam * (1 - pab)
    return dict(p_wait=pw, p_abandon=pab, lq=lq, wq=lq / lam, wq_served=ws / (1 - pab),
                wq_abandoned=wa / pab, utilisation=thr / cm, p=p)


def service_level(lam, mu, theta, c, t, p):
    mp.dps = 200
    cm = c * mu
    sl = sum(p[:c])
    for n in range(c, len(p)):
        j = n - c
        rates = [cm + (i + 1) * theta for i in range(j + 1)]
        move = mpf(1)
        for i in range(j + 1):
            move *= (cm + i * theta) / rates[i]
        cdf = mpf(0)
        for i, ri in enumerate(rates):
            coef = mpf(1)
            for k, rk in enumerate(rates):
                if k != i:
                    coef *= rk / (rk - ri)
            cdf += coef * (1 - exp(-ri * t))
        sl += p[n] * move * cdf
    mp.dps = 60
    return sl


if __name__ == "__main__":
    lam, mu, theta = (mpf(eval(a)) for a in sys.argv[1:4])
    c = int(sys.argv[4])
    m = measures(lam, mu, theta, c)
    for k, v in m.items():
        if k != "p":
            print(k, mp.nstr(v, 15))
    if len(sys.argv) > 5:
        t = mpf(eval(sys.argv[5]))
        print("service_level", t, mp.nstr(service_level(lam, mu, theta, c, t, m["p"]), 15))
