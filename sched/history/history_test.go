package history

import "testing"

func TestNearestRank(t *testing.T) {
	hundred := make([]float64, 100)
	for i := range hundred {
		hundred[i] = float64(i + 1)
	}
	tests := []struct {
		name   string
		sorted []float64
		p      int
		want   float64
	}{
		{"one value", []float64{7}, 99, 7},
		{"p50 of 4", []float64{1, 2, 3, 4}, 50, 2},
		{"p90 of 10", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 90, 9},
		{"p95 of 100", hundred, 95, 95},
		{"p95 of 10", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 95, 10},
		{"p99 of 100", hundred, 99, 99},
		{"p0 is the least", []float64{3, 5}, 0, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nearestRank(tt.sorted, tt.p); got != tt.want {
				t.Errorf("nearestRank(%v, %d) = %v, want %v", tt.sorted, tt.p, got, tt.want)
			}
		})
	}
}
