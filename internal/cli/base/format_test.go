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

func TestText(t *testing.T) {
	tests := []struct{ name, got, want string }{
		{"QuoteName plain", QuoteName("a b.docx"), "a b.docx"},
		{"QuoteName newline", QuoteName("a\nb"), `"a\nb"`},
		{"QuoteName not UTF-8", QuoteName("a\xffb"), `"a\xffb"`},
		{"QuoteName bidi override", QuoteName("a\u202eb"), `"a\u202eb"`},
		{"QuoteName keeps ZWJ", QuoteName("a\u200db"), "a\u200db"},
		{"SafeText plain", SafeText(`say "hi"`), `say "hi"`},
		{"SafeText escapes, unquoted", SafeText("a\x1b[2Jb\xff"), `a\x1b[2Jb\xff`},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		dir, out string
		want     bool
	}{
		{"/o", "/o", true},
		{"/o/x/y", "/o/", true},
		{"/o2", "/o", false},
		{"/", "/o", false},
		{"../o", "..", true},
		{"/o", "", false},
	}
	for _, tt := range tests {
		if got := Within(tt.dir, tt.out); got != tt.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tt.dir, tt.out, got, tt.want)
		}
	}
}
