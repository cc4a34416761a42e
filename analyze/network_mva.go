package analyze

import (
	"context"
	"errors"
	"fmt"
)

// ClosedNetwork solves a closed single-class network of N customers by
// exact mean value analysis (Reiser and Lavenberg): the arrival theorem
// gives each station's residence time at population n from its queue at
// n-1. Single-server stations take R = D(1+Q), delay stations R = D, and
// multi-server stations the load-dependent form with the marginal
// probabilities of their first c-1 states (Bolch et al., section 8.2.1),
// c counted at most N (more servers than customers are never all busy).
// The visit ratios are the stations' Visits, or solve v = vP with v = 1
// at the first station. Work is O(N·Σ(1+min(c,N))), at most MaxMVASteps,
// checked before it starts; ctx is seen at every n.
//
// Multi-server MVA is known to lose precision at high utilisation (p0
// by subtraction); where a marginal probability comes out below -1e-9 it
// returns an error rather than the numbers.
func ClosedNetwork(ctx context.Context, n Network) (NetworkResult, error) {
	if err := n.check(); err != nil {
		return NetworkResult{}, err
	}
	if !n.Closed() {
		return NetworkResult{}, inputErr("the network is open (no population): solve it with OpenNetwork")
	}
	if err := n.checkGraph(); err != nil {
		return NetworkResult{}, err
	}
	steps := 0
	for _, s := range n.Stations {
		steps += 1 + effServers(s, n.Population)
	}
	if float64(steps)*float64(n.Population) > MaxMVASteps {
		return NetworkResult{}, inputErr("population %d over stations of %d servers in all (counted at most N each): %g MVA steps, more than the limit of %d",
			n.Population, steps-len(n.Stations), float64(steps)*float64(n.Population), MaxMVASteps)
	}
	visits, err := n.visits(ctx)
	if err != nil {
		return NetworkResult{}, err
	}
	return mva(ctx, n, visits)
}

// effServers is the servers of s that N customers can keep busy, 0 for a
// delay station.
func effServers(s Station, n int) int {
	if s.Servers == Infinite {
		return 0
	}
	return min(s.Servers, n)
}

// visits are the given visit ratios, or those of the routing with 1 at
// the first station.
func (n Network) visits(ctx context.Context) ([]float64, error) {
	v := make([]float64, len(n.Stations))
	if n.Stations[0].Visits > 0 {
		for i, s := range n.Stations {
			v[i] = s.Visits
		}
		return v, nil
	}
	a := trafficSystem(n.routing())
	for i := range a[0] {
		a[0][i] = 0
	}
	a[0][0], v[0] = 1, 1
	v, err := solve(ctx, a, v)
	if err != nil {
		return nil, fmt.Errorf("closed network: %w", err)
	}
	return v, nil
}

// mvaStation is one station's state in the MVA recursion.
type mvaStation struct {
	demand float64   // D = v/μ
	c      int       // servers counted (0: delay)
	q      float64   // Q(n-1), then Q(n)
	p      []float64 // p(j | n-1) for j < c-1, multi-server only
	r      float64   // residence time R(n)
}

func mva(ctx context.Context, n Network, visits []float64) (NetworkResult, error) {
	st := make([]mvaStation, len(n.Stations))
	for i, s := range n.Stations {
		st[i] = mvaStation{demand: visits[i] / s.Mu, c: effServers(s, n.Population)}
		if st[i].c > 1 {
			st[i].p = make([]float64, st[i].c)
			st[i].p[0] = 1
		}
	}
	x := 0.0
	for pop := 1; pop <= n.Population; pop++ {
		if err := ctx.Err(); err != nil {
			return NetworkResult{}, err
		}
		total := 0.0
		for i := range st {
			st[i].r = st[i].residence()
			total += st[i].r
		}
		x = float64(pop) / total
		for i := range st {
			if err := st[i].advance(x); err != nil {
				return NetworkResult{}, fmt.Errorf("%s: %w", stationName(i, n.Stations[i].Name), err)
			}
		}
	}
	return closedResult(n, visits, st, x), nil
}

// residence is R(n) from Q(n-1) and p(·|n-1).
func (s *mvaStation) residence() float64 {
	switch s.c {
	case 0:
		return s.demand
	case 1:
		return s.demand * (1 + s.q)
	}
	sum := 1 + s.q
	for j := 1; j < s.c; j++ {
		sum += float64(s.c-j) * s.p[j-1]
	}
	return s.demand / float64(s.c) * sum
}

// errPrecision is the multi-server MVA's loss of precision.
var errPrecision = errors.New("multi-server MVA lost precision")

// advance moves Q and p to population n at throughput x.
func (s *mvaStation) advance(x float64) error {
	s.q = x * s.r
	if s.c <= 1 {
		return nil
	}
	busy := x * s.demand
	sum := busy
	for j := s.c - 1; j >= 1; j-- {
		s.p[j] = busy / float64(j) * s.p[j-1]
		sum += float64(s.c-j) * s.p[j]
	}
	s.p[0] = 1 - sum/float64(s.c)
	if s.p[0] < -1e-9 {
		return fmt.Errorf("%w: the probability of an empty station came out %g", errPrecision, s.p[0])
	}
	return nil
}

func closedResult(n Network, visits []float64, st []mvaStation, x float64) NetworkResult {
	res := NetworkResult{Closed: true, Population: n.Population, Throughput: x, Stable: true,
		L: float64(n.Population), W: float64(n.Population) / x}
	for i, s := range n.Stations {
		busy := x * st[i].demand
		r := StationResult{Name: s.Name, Servers: s.Servers, Mu: s.Mu, Visits: visits[i], Lambda: x * visits[i],
			Busy: busy, Stable: true, L: st[i].q, W: st[i].r / visits[i], Residence: st[i].r}
		r.Wq, r.Lq = max(0, r.W-1/s.Mu), max(0, r.L-busy)
		if s.Servers != Infinite {
			r.Rho = busy / float64(s.Servers)
			res.Response += st[i].r
		}
		res.Stations = append(res.Stations, r)
	}
	return res
}
