package analyze

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestServiceMoments: the moments by formula, and against the draws of
// the sampler Simulate uses.
func TestServiceMoments(t *testing.T) {
	for _, tt := range []struct {
		name                  string
		s                     Service
		mean, scv, thirdRatio float64
	}{
		{"exp", Service{Kind: KindExp, Rate: 4}, 0.25, 1, 6},
		{"const", Service{Kind: KindConst, Mean: 3}, 3, 0, 1},
		{"lognormal cv 0.3", Service{Kind: KindLognormal, Mean: 2, CV: 0.3}, 2, 0.09, math.Pow(1.09, 3)},
		{"lognormal cv 0", Service{Kind: KindLognormal, Mean: 2}, 2, 0, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.MeanTime(); !near(got, tt.mean, 1e-15) {
				t.Errorf("mean %g, want %g", got, tt.mean)
			}
			if got := tt.s.SCV(); !near(got, tt.scv, 1e-15) {
				t.Errorf("SCV %g, want %g", got, tt.scv)
			}
			if got := tt.s.ThirdRatio(); !near(got, tt.thirdRatio, 1e-14) {
				t.Errorf("E[S³]/E[S]³ %g, want %g", got, tt.thirdRatio)
			}
			// 3·10^5 draws: the sample moments' relative errors are below
			// 0.5 % here (SCV ≤ 1, a light third moment).
			sm, r := tt.s.sampler(), rand.New(rand.NewPCG(1, 2))
			var m1, m2, m3 float64
			const n = 300_000
			for range n {
				x := sm.draw(r)
				m1, m2, m3 = m1+x/n, m2+x*x/n, m3+x*x*x/n
			}
			if !near(m1, tt.mean, 0.005) || math.Abs((m2-m1*m1)/(m1*m1)-tt.scv) > 0.01 || !near(m3/(m1*m1*m1), tt.thirdRatio, 0.02) {
				t.Errorf("sampled mean %g, SCV %g, third ratio %g; want %g, %g, %g", m1, (m2-m1*m1)/(m1*m1), m3/(m1*m1*m1), tt.mean, tt.scv, tt.thirdRatio)
			}
		})
	}
}

// TestArrivalMoments: the gaps' mean and SCV for each kind, and for
// uniform times against sorted draws, as Simulate makes them.
func TestArrivalMoments(t *testing.T) {
	for _, tt := range []struct {
		name      string
		a         Arrivals
		mean, scv float64
	}{
		{"exp", Arrivals{Kind: KindExp, Rate: 0.5}, 2, 1},
		{"uniform 4 in 10 s", Arrivals{Kind: KindUniform, Count: 4, Span: 10}, 2, 4.0 / 6},
		{"trace evenly spaced", Arrivals{Kind: KindTrace, Times: []float64{1, 2, 3, 4}}, 1, 0},
		{"trace gaps 1 and 2", Arrivals{Kind: KindTrace, Times: []float64{1, 3}}, 1.5, 0.25 / 2.25},
		{"trace nearly even", Arrivals{Kind: KindTrace, Times: []float64{1e9 + 1, 1e9 + 2, 1e9 + 3}}, (1e9 + 3) / 3, -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.MeanTime(); !near(got, tt.mean, 1e-15) {
				t.Errorf("mean %g, want %g", got, tt.mean)
			}
			got := tt.a.SCV()
			if tt.scv >= 0 && !near(got, tt.scv, 1e-14) || got < 0 || math.IsNaN(got) {
				t.Errorf("SCV %g, want %g", got, tt.scv)
			}
		})
	}
	a := Arrivals{Kind: KindUniform, Count: 4, Span: 10}
	r := rand.New(rand.NewPCG(5, 6))
	var m1, m2 float64
	const reps = 200_000
	for range reps {
		s := a.stream(r)
		prev := 0.0
		for range a.Count {
			g := s.at(r) - prev
			prev += g
			m1, m2 = m1+g/(reps*4), m2+g*g/(reps*4)
		}
	}
	if scv := (m2 - m1*m1) / (m1 * m1); !near(m1, a.MeanTime(), 0.01) || math.Abs(scv-a.SCV()) > 0.01 {
		t.Errorf("sampled uniform gaps: mean %g, SCV %g; want %g, %g", m1, scv, a.MeanTime(), a.SCV())
	}
}
