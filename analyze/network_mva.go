package analyze

import (
	"context"
	"fmt"
	"math"
)

// MaxMultiServer bounds the multi-server stations of a closed network:
// each doubles the MVA's work (see ClosedNetwork).
const MaxMultiServer = 16

// ClosedNetwork solves a closed single-class network of N customers by
// exact mean value analysis (Reiser and Lavenberg): the arrival theorem
// gives each station's residence time at population n from its queue at
// n-1. Single-server stations take R = D(1+Q), delay stations R = D, and
// multi-server stations the load-dependent form with the marginal
// probabilities of their first c-1 states (Bolch et al., section 8.2.1),
// c counted at most N (more servers than customers are never all busy).
//
// The textbook MVA takes p(0|n) = 1 - Σ…, a subtraction whose error grows
// like e^c near saturation (Octave's qncsmva warns of negative values at
// c = 10 and N = 100). Here p(0|n) = p(0|n-1)·X(n)/X₋ₖ(n) instead, with
// X₋ₖ the throughput of the network without station k, so that every
// step multiplies or adds positive numbers: exact to rounding. The
// complements are solved alongside, one MVA per subset of the m
// multi-server stations (2^m, m at most MaxMultiServer).
//
// The visit ratios are the stations' Visits, or solve v = vP with v = 1
// at the first station. Work is 2^m·N·Σ(1+min(c,N)) steps, at most
// MaxMVASteps, checked before it starts; ctx is seen at every step of
// every net.
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
	if err := n.checkWork(); err != nil {
		return NetworkResult{}, err
	}
	visits, err := n.visits(ctx)
	if err != nil {
		return NetworkResult{}, err
	}
	return mva(ctx, n, visits)
}

// checkWork bounds the MVA's steps before any work.
func (n Network) checkWork() error {
	multi, servers := 0, 0
	for _, s := range n.Stations {
		c := effServers(s, n.Population)
		servers += 1 + c
		multi += countTrue(c > 1)
	}
	if multi > MaxMultiServer {
		return inputErr("%d stations with more than one server, more than the limit of %d", multi, MaxMultiServer)
	}
	if steps := math.Ldexp(float64(servers)*float64(n.Population), multi); steps > MaxMVASteps {
		return inputErr("population = %d: the MVA would take %g steps (%d multi-server of %d stations), more than the limit of %d",
			n.Population, steps, multi, len(n.Stations), MaxMVASteps)
	}
	return nil
}

// effServers is the servers of s that N customers can keep busy, 0 for a
// delay station.
func effServers(s Station, n int) int {
	if s.Servers == InfiniteServers {
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
	v, err := solveLinear(ctx, a, v)
	if err != nil {
		return nil, fmt.Errorf("closed network: %w", err)
	}
	return v, nil
}

// mvaStation is one station's state in the MVA recursion.
type mvaStation struct {
	demand float64   // D = v/μ
	c      int       // servers counted (0: delay)
	bit    uint      // multi-server: its bit in a subset mask
	q      float64   // Q(n-1), then Q(n)
	lp     []float64 // multi-server: ln p(j | n-1) for j < c
	lj     []float64 // multi-server: ln j for j < c, shared by the nets
	r      float64   // residence time R(n)
}

// mvaNet is the network without the multi-server stations of removed,
// with its throughput X(n) at the current population.
type mvaNet struct {
	removed uint64
	st      []mvaStation
	x       float64
}

func mva(ctx context.Context, n Network, visits []float64) (NetworkResult, error) {
	var all []mvaStation
	var multi uint
	for i, s := range n.Stations {
		m := mvaStation{demand: visits[i] / s.Mu, c: effServers(s, n.Population)}
		if m.c > 1 {
			m.bit = multi
			multi++
			m.lj = make([]float64, m.c)
			for j := 1; j < m.c; j++ {
				m.lj[j] = math.Log(float64(j))
			}
		}
		all = append(all, m)
	}
	// Subsets by mask: nets[T] lacks the stations of T, and T|k > T, so
	// going from the highest mask down computes X₋ₖ before it is needed.
	nets := make([]mvaNet, 1<<multi)
	for t := range nets {
		nets[t] = newMVANet(uint64(t), all)
	}
	for pop := 1; pop <= n.Population; pop++ {
		for t := len(nets) - 1; t >= 0; t-- {
			if err := ctx.Err(); err != nil { // a step is Σc, up to MaxMVASteps/N
				return NetworkResult{}, err
			}
			nets[t].step(pop, nets)
		}
	}
	return closedResult(n, visits, nets[0].st, nets[0].x), nil
}

func newMVANet(removed uint64, all []mvaStation) mvaNet {
	net := mvaNet{removed: removed}
	for _, s := range all {
		if s.c > 1 {
			if removed&(1<<s.bit) != 0 {
				continue
			}
			s.lp = make([]float64, s.c) // p(0|0) = 1
			for j := 1; j < s.c; j++ {
				s.lp[j] = math.Inf(-1)
			}
		}
		net.st = append(net.st, s)
	}
	return net
}

// step moves the net from population pop-1 to pop; nets holds the
// complements, already at pop.
func (net *mvaNet) step(pop int, nets []mvaNet) {
	if len(net.st) == 0 {
		net.x = math.Inf(1) // no station: G(n) = 0 for n ≥ 1
		return
	}
	total := 0.0
	for i := range net.st {
		net.st[i].r = net.st[i].residence()
		total += net.st[i].r
	}
	net.x = float64(pop) / total
	for i := range net.st {
		s := &net.st[i]
		if s.c > 1 {
			s.marginals(net.x, nets[net.removed|1<<s.bit].x)
		}
		s.q = net.x * s.r
	}
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
		sum += float64(s.c-j) * math.Exp(s.lp[j-1])
	}
	return s.demand / float64(s.c) * sum
}

// marginals moves p(j|n-1) to p(j|n) for j < c: p(j|n) = X·D/j ·
// p(j-1|n-1), and p(0|n) = p(0|n-1)·X(n)/X₋ₖ(n) (both from
// p(j|n) = D^j/Πα · G₋ₖ(n-j)/G(n)); xWithout is X₋ₖ(n). In logs: p(0|n)
// underflows float64 long before p(c-1|n+c-1), which it makes, is small.
func (s *mvaStation) marginals(x, xWithout float64) {
	lbusy := math.Log(x * s.demand)
	for j := s.c - 1; j >= 1; j-- {
		s.lp[j] = lbusy - s.lj[j] + s.lp[j-1]
	}
	s.lp[0] += math.Log(x / xWithout)
}

func closedResult(n Network, visits []float64, st []mvaStation, x float64) NetworkResult {
	res := NetworkResult{Closed: true, Population: n.Population, Throughput: x, Stable: true,
		L: float64(n.Population), W: float64(n.Population) / x}
	for i, s := range n.Stations {
		busy := x * st[i].demand
		r := StationResult{Name: s.Name, Servers: s.Servers, Mu: s.Mu, Visits: visits[i], Lambda: x * visits[i],
			Busy: busy, Stable: true, L: st[i].q, W: st[i].r / visits[i], Residence: st[i].r}
		r.Wq, r.Lq = max(0, r.W-1/s.Mu), max(0, r.L-busy)
		if s.Servers >= n.Population {
			r.Wq, r.Lq = 0, 0 // a server for each: none waits (the above is rounding)
		}
		if s.Servers != InfiniteServers {
			r.Rho = busy / float64(s.Servers)
			res.Response += st[i].r
		}
		res.Stations = append(res.Stations, r)
	}
	return res
}
