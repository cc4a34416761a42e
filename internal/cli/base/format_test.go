package base

import "testing"

func TestPlural(t *testing.T) {
	tests := []struct {
		n          int
		noun, want string
	}{
		{0, "job", "0 jobs"},
		{1, "job", "1 job"},
		{2, "job", "2 jobs"},
		{1, "entry", "1 entry"},
		{3, "entry", "3 entries"},
		{-1, "file", "-1 files"},
	}
	for _, tt := range tests {
		if got := Plural(tt.n, tt.noun); got != tt.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", tt.n, tt.noun, got, tt.want)
		}
	}
}

func TestCells(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tests := []struct{ name, got, want string }{
		{"OrDash empty", OrDash(""), "-"},
		{"OrDash text", OrDash("x"), "x"},
		{"Seconds none", Seconds(nil), "-"},
		{"Seconds ms", Seconds(f(1.23456)), "1.235s"},
		{"Seconds µs", Seconds(f(0.0000123)), "12µs"},
		{"Ratio none", Ratio(nil), "-"},
		{"Ratio", Ratio(f(2.0 / 3)), "0.667"},
		{"YesNo true", YesNo(true), "yes"},
		{"YesNo false", YesNo(false), "no"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}
