package sms

import "testing"

// TestNormalizeNumber: separators people write are dropped; letters,
// a second "+" and too few or many digits are refused.
func TestNormalizeNumber(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"+4915112345678", "+4915112345678", true},
		{"+49 151 2345-678", "+491512345678", true},
		{"(0151) 234.56.78", "01512345678", true},
		{"0151/2345678", "01512345678", true},
		{" 4711 ", "4711", true},
		{"112", "112", true},
		{"12", "", false},
		{"+49 151 CALL-ME", "", false},
		{"++4915112345678", "", false},
		{"49+151", "", false},
		{"", "", false},
		{"123456789012345678901", "", false},
	}
	for _, tt := range tests {
		got, err := NormalizeNumber(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("NormalizeNumber(%q) = %q, %v; want %q, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
