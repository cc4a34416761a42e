# Independent reference values for calq analyze priority: mpmath at 40 digits,
# Erlang C from its factorial sum (not calq's recurrence).
from mpmath import mp, mpf, factorial
mp.dps = 40
def erlangC(c, a):
    s = sum(a**k/factorial(k) for k in range(c))
    t = a**c/factorial(c) * c/(c-a)
    return t/(s+t)
def LMMc(lam, mu, c):
    a = lam/mu; C = erlangC(c, a)
    return C*a/(c-a) + a  # Lq + a... Lq = C*rho/(1-rho) = C*a/(c-a)
def nonpre(lams, mus, c):
    K=len(lams); sig=[]; s=mpf(0)
    for l,m in zip(lams,mus): s+=l/(c*m); sig.append(s)
    if len(set(mus))==1:
        mu=mus[0]; w0 = erlangC(c, sum(lams)/mu)/(c*mu)
    else:
        w0 = sum(l/m**2 for l,m in zip(lams,mus))
    out=[]
    for k in range(K):
        up = 1 if k==0 else 1-sig[k-1]
        out.append(w0/(up*(1-sig[k])))
    return out
def pre(lams, mus, c):
    K=len(lams); out=[]
    if c>1:
        mu=mus[0]; prev=mpf(0); L=mpf(0)
        for k in range(K):
            Lk = LMMc(sum(lams[:k+1]), mu, c)
            out.append((Lk-L)/lams[k]-1/mu); L=Lk
        return out
    s=mpf(0); R=mpf(0)
    for k in range(K):
        up=1-s; s+=lams[k]/mus[k]; R+=lams[k]/mus[k]**2
        out.append(1/mus[k]/up + R/(up*(1-s)) - 1/mus[k])
    return out
cases = [
 ("nonpre", [mpf(1),mpf(2),mpf(3)], [mpf(4)], 2),
 ("pre",    [mpf(1),mpf(2),mpf(3)], [mpf(4)], 2),
 ("nonpre", [mpf('0.2'),mpf('0.3'),mpf('0.1')], [mpf(1),mpf(2),mpf('0.5')], 1),
 ("pre",    [mpf('0.2'),mpf('0.3'),mpf('0.1')], [mpf(1),mpf(2),mpf('0.5')], 1),
 ("nonpre", [mpf(5),mpf(10),mpf(20),mpf(40)], [mpf(1)], 100),
 ("pre",    [mpf(5),mpf(10),mpf(20),mpf(40)], [mpf(1)], 100),
]
for kind,l,m,c in cases:
    mus = m*len(l) if len(m)==1 else m
    f = nonpre if kind=="nonpre" else pre
    w = f(l, mus, c)
    print(kind, ",".join(mp.nstr(x,10) for x in l), ",".join(mp.nstr(x,10) for x in m), c, [mp.nstr(x,17) for x in w])

# A class with no arrivals (lambda = 0) under preemption on c > 1 servers:
# its wait is the limit dLq/dLambda of the M/M/c of the classes above,
# here by mpmath's numerical differentiation of Lq = L - a.
for lam, mu, c in ((mpf(1), mpf(4), 2), (mpf(30), mpf(1), 40)):
    d = mp.diff(lambda x: LMMc(x, mu, c) - x/mu, lam)
    print("pre zero-rate class below", mp.nstr(lam, 5), mp.nstr(mu, 5), c, mp.nstr(d, 17))
