# Independent check of the priority formulas: the truncated Markov chain of
# M/M/2 with two classes and one mu, solved by Gauss-Seidel, Wq_k = Lq_k/lambda_k.
import sys
l1, l2, mu, c, N = 1.0, 2.0, 4.0, 2, 45
def solve(states, trans):
    idx = {s:i for i,s in enumerate(states)}
    out = [0.0]*len(states); inn = [[] for _ in states]
    for s in states:
        for t, r in trans(s):
            if t in idx:
                out[idx[s]] += r; inn[idx[t]].append((idx[s], r))
    p = [1.0/len(states)]*len(states)
    for it in range(3000):
        for j in range(len(states)):
            p[j] = sum(p[i]*r for i, r in inn[j]) / out[j]
        z = sum(p); p = [x/z for x in p]
    return dict(zip(states, p))
# non-preemptive: (busy, q1, q2); queue only when busy == c
def np_trans(s):
    b, q1, q2 = s; t = []
    for lam, k in ((l1, 1), (l2, 2)):
        if b < c: t.append(((b+1, q1, q2), lam))
        else: t.append(((b, q1+(k==1), q2+(k==2)), lam))
    if b > 0:
        if q1 > 0: t.append(((b, q1-1, q2), b*mu))
        elif q2 > 0: t.append(((b, q1, q2-1), b*mu))
        else: t.append(((b-1, 0, 0), b*mu))
    return t
st = [(b,0,0) for b in range(c)] + [(c,i,j) for i in range(N) for j in range(N)]
p = solve(st, np_trans)
print("nonpre Wq", sum(v*s[1] for s,v in p.items())/l1, sum(v*s[2] for s,v in p.items())/l2)
# preemptive-resume: (n1, n2) in system
def pr_trans(s):
    n1, n2 = s; t = [((n1+1, n2), l1), ((n1, n2+1), l2)]
    s1 = min(n1, c); s2 = min(n2, c - s1)
    if s1: t.append(((n1-1, n2), s1*mu))
    if s2: t.append(((n1, n2-1), s2*mu))
    return t
st = [(i,j) for i in range(N) for j in range(N)]
p = solve(st, pr_trans)
for k, lam in ((0, l1), (1, l2)):
    L = sum(v*s[k] for s,v in p.items())
    print("pre Wq", k, L/lam - 1/mu)
