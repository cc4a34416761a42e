# The reference values of mva-c*.toml in ../models/network.tsv: the exact
# product form of a closed network (stations a: min(j,c)·mu, b: 100,
# z: j·0.05, one visit each) by convolution of its normalising constants
# in 60-digit arithmetic, where nothing cancels or underflows.
# python3 convolution.py C N MU  prints X(N) and a's mean queue.
import sys
from mpmath import mp, mpf

mp.dps = 60


def weights(rate, n):
    w = [mpf(1)]
    for j in range(1, n + 1):
        w.append(w[-1] / rate(j))
    return w


def convolve(f, g, n):
    return [sum(f[i] * g[m - i] for i in range(m + 1)) for m in range(n + 1)]


c, n, mu = int(sys.argv[1]), int(sys.argv[2]), mpf(sys.argv[3])
fa = weights(lambda j: min(j, c) * mu, n)
rest = convolve(weights(lambda j: mpf(100), n), weights(lambda j: j * mpf("0.05"), n), n)
g = convolve(fa, rest, n)
x = g[n - 1] / g[n]
q = sum(j * fa[j] * rest[n - j] for j in range(n + 1)) / g[n]
print(mp.nstr(x, 15), mp.nstr(q, 15))
