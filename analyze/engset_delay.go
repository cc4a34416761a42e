package analyze

import (
	"context"
	"math"
)

// rescaleAbove is where the running state weight and its sums are scaled
// down by rescaleBy: a step multiplies the weight by at most N·β ≤ 10^22,
// so nothing reaches float64's 10^308.
const (
	rescaleAbove = 1e200
	rescaleBy    = 1e-200
	log10Rescale = 200
)

// chainSums are the sums over the states n = 0..K of the finite-source
// chain of its unnormalised weights w_n times what each measure counts.
type chainSums struct {
	all     float64 // Σ w_n
	n       float64 // Σ n·w_n
	queued  float64 // Σ (n-c)⁺·w_n
	busy    float64 // Σ min(n, c)·w_n
	enter   float64 // Σ_{n<K} (N-n)·w_n: the rate requests enter, over α
	waiting float64 // Σ_{c≤n<K} (N-n)·w_n: those that enter and wait
	full    float64 // (N-K)·w_K: the requests turned away
	w0      float64 // w_0 after the rescalings
	scales  int     // how many times the sums were scaled by rescaleBy
}

// finiteChain sums the birth-death chain with birth (N-n)α and death
// min(n, c)μ on 0..K: w_0 = 1, w_n = w_{n-1}·(N-n+1)β / min(n, c). The
// ratios fall with n, so the weights rise then fall; once a weight
// underflows to 0 the rest are below float64's resolution of the sums
// and the loop stops.
func finiteChain(ctx context.Context, n, c, k int, beta float64) (chainSums, error) {
	s := chainSums{w0: 1}
	w := 1.0
	s.add(0, n, c, k, w)
	for j := 1; j <= k && w > 0; j++ {
		if err := stopped(ctx, j); err != nil {
			return chainSums{}, err
		}
		w *= float64(n-j+1) * beta / float64(min(j, c))
		if w > rescaleAbove {
			w *= rescaleBy
			s.scale()
		}
		s.add(j, n, c, k, w)
	}
	return s, nil
}

func (s *chainSums) add(j, n, c, k int, w float64) {
	s.all += w
	s.n += float64(j) * w
	s.queued += float64(max(j-c, 0)) * w
	s.busy += float64(min(j, c)) * w
	switch {
	case j == k:
		s.full = float64(n-k) * w
	case j >= c:
		s.enter += float64(n-j) * w
		s.waiting += float64(n-j) * w
	default:
		s.enter += float64(n-j) * w
	}
}

func (s *chainSums) scale() {
	for _, v := range []*float64{&s.all, &s.n, &s.queued, &s.busy, &s.enter, &s.waiting, &s.full, &s.w0} {
		*v *= rescaleBy
	}
	s.scales++
}

func engsetDelay(ctx context.Context, r EngsetResult) (EngsetResult, error) {
	s, err := finiteChain(ctx, r.Sources, r.Servers, r.Capacity, r.Beta)
	if err != nil {
		return EngsetResult{}, err
	}
	r.P0 = s.w0 / s.all
	r.Log10P0 = -float64(s.scales*log10Rescale) - math.Log10(s.all)
	r.L, r.Lq, r.Busy = s.n/s.all, s.queued/s.all, s.busy/s.all
	// N - L, summed apart: it keeps its digits when nearly every source
	// is in the system.
	r.Idle = (s.enter + s.full) / s.all
	r.Utilisation = r.Busy / float64(r.Servers)
	r.Throughput = r.Busy * r.Mu
	r.LambdaEff = r.Throughput
	r.W, r.Wq = r.L/r.LambdaEff, r.Lq/r.LambdaEff
	if s.enter > 0 {
		r.PWait = s.waiting / s.enter
	}
	r.PBlock = s.full / (s.enter + s.full)
	return r, nil
}
