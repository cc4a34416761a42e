package serve

import "testing"

func TestSharedConns(t *testing.T) {
	tests := []struct {
		name                 string
		instances, maxActive int
		want                 int
	}{
		{"one instance, default jobs", 1, 0, 4 + 2 + 4},
		{"two instances, default jobs", 2, 0, 8 + 4 + 4},
		{"jobs given", 2, 3, 3 + 4 + 4},
		{"no instance counts as one", 0, 0, 4 + 2 + 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SharedConns(tt.instances, tt.maxActive); got != tt.want {
				t.Errorf("SharedConns(%d, %d) = %d, want %d", tt.instances, tt.maxActive, got, tt.want)
			}
		})
	}
}
