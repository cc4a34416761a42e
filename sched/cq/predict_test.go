package cq

import (
	"math"
	"testing"
)

// mm1nBySum is L for M/M/1/N by summing normalised weights p_n ∝ ρ^n,
// computed as ρ^(n-k) relative to the largest term so nothing overflows.
func mm1nBySum(rho float64, n int) float64 {
	k := 0 // index of the largest weight
	if rho > 1 {
		k = n
	}
	var sum, mean float64
	for i := 0; i <= n; i++ {
		w := math.Pow(rho, float64(i-k))
		sum += w
		mean += float64(i) * w
	}
	return mean / sum
}

func TestMM1NMeanLength(t *testing.T) {
	tests := []struct {
		rho float64
		n   int
	}{
		{0.5, 10}, {0.9, 100}, {0.999, 1000}, {1, 10}, {1, 1001},
		{1 + 1e-9, 10}, {1 - 1e-9, 10}, {1 + 1e-6, 1000}, {1.5, 50},
		{2, 10}, {10, 1000}, {0.01, 5}, {1.0001, 100000},
	}
	for _, tt := range tests {
		got, want := MM1NMeanLength(tt.rho, tt.n), mm1nBySum(tt.rho, tt.n)
		if math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Errorf("MM1NMeanLength(%v, %d) = %.12g, want %.12g", tt.rho, tt.n, got, want)
		}
	}
	if got := MM1NMeanLength(math.Inf(1), 7); got != 7 {
		t.Errorf("MM1NMeanLength(+Inf, 7) = %v, want 7", got)
	}
	for _, bad := range []float64{0, -1, math.NaN()} {
		if got := MM1NMeanLength(bad, 10); got != 0 {
			t.Errorf("MM1NMeanLength(%v, 10) = %v, want 0", bad, got)
		}
	}
}
