package sched

import "testing"

func TestClass(t *testing.T) {
	tests := []struct {
		in     string
		want   Class
		str    string
		weight float64
	}{
		{"P0", P0, "P0", 4},
		{"interactive", P1, "P1", 2},
		{"2", P2, "P2", 1},
		{" p3 ", P3, "P3", 0.5},
	}
	for _, tt := range tests {
		c, err := ParseClass(tt.in)
		if err != nil || c != tt.want || c.String() != tt.str || c.Weight() != tt.weight {
			t.Errorf("ParseClass(%q) = %v (%v, weight %v), want %v (weight %v)", tt.in, c, err, c.Weight(), tt.str, tt.weight)
		}
		if b, err := c.MarshalText(); err != nil || string(b) != tt.str {
			t.Errorf("%v.MarshalText() = %q, %v", c, b, err)
		}
	}
	var zero Class
	if zero.Index() != P2.Index() || zero.Weight() != 1 {
		t.Errorf("the zero Class has index %d, weight %v; want P2's", zero.Index(), zero.Weight())
	}
	if _, err := ParseClass("P4"); err == nil {
		t.Error("ParseClass(P4) succeeded")
	}
	if _, err := Class(9).MarshalText(); err == nil {
		t.Error("Class(9).MarshalText() succeeded")
	}
}

// FuzzParseClass: a class that parses prints as itself and parses back.
func FuzzParseClass(f *testing.F) {
	for _, s := range []string{"P0", "p3", "2", "background", "P9", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseClass(s)
		if err != nil {
			return
		}
		if c < P0 || c > P3 {
			t.Fatalf("ParseClass(%q) = %d, out of range", s, c)
		}
		if back, err := ParseClass(c.String()); err != nil || back != c {
			t.Errorf("ParseClass(%q) = %v, but %v parses to %v, %v", s, c, c, back, err)
		}
	})
}
