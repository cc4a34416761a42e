package app

import (
	"calq/internal/cli/convertcmd"
	"slices"
	"strings"
	"testing"
)

// TestReorderArgs: each command's flags move before its positional
// arguments, by its own flag definitions.
func TestReorderArgs(t *testing.T) {
	tests := []struct {
		in, want string
		after    []string // what followed the user's "--"; nil: no "--"
	}{
		{"calq convert in -o out --json", "calq convert -o out --json -- in", nil},
		{"calq convert -o out in", "calq convert -o out -- in", nil},
		{"calq convert in1 --exclude drafts/* in2", "calq convert --exclude drafts/* -- in1 in2", nil},
		{"calq sms send NUM TEXT -d DEV", "calq sms send -d DEV -- NUM TEXT", nil},
		{"calq sms send -d DEV NUM TEXT", "calq sms send -d DEV -- NUM TEXT", nil},
		{"calq sched run -j4 -- echo hi", "calq sched run -j 4 -- echo hi", []string{"echo", "hi"}},
		{"calq sched run jobs.txt -j 4", "calq sched run -j 4 -- jobs.txt", nil},
		{"calq sched run -- sh -c x -j 4", "calq sched run -- sh -c x -j 4", []string{"sh", "-c", "x", "-j", "4"}},
		{"calq sched run a.txt -- cmd", "calq sched run -- a.txt cmd", []string{"cmd"}},
		{"calq sched run --", "calq sched run --", []string{}},
		{"calq convert -- -odd.docx -o out", "calq convert -- -odd.docx -o out", []string{"-odd.docx", "-o", "out"}},
		{"calq convert --json=true in --timeout=5m", "calq convert --json=true --timeout=5m -- in", nil},
		{"calq --version", "calq version", nil},
		{"calq -V", "calq version", nil},
		{"calq history --db x.db stats --json", "calq history --db x.db stats --json", nil},
		{"calq history stats --json --db x.db", "calq history stats --json --db x.db", nil},
		{"calq convert in --bogus -o out", "calq convert --bogus -o out -- in", nil},
		{"calq convert in -o", "calq convert -o", nil}, // urfave then says -o needs a value
		{"calq help sched run", "calq help -- sched run", nil},
		{"calq", "calq", nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			r := reorderArgs(New(nil, nil), strings.Fields(tt.in))
			if got := strings.Join(r.args, " "); got != tt.want {
				t.Errorf("reorderArgs(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if r.dash != (tt.after != nil) || !slices.Equal(r.afterDash, tt.after) {
				t.Errorf("afterDash = %q (dash %v), want %q", r.afterDash, r.dash, tt.after)
			}
		})
	}
}

// TestSuggestFlag: an unknown flag gets the nearest of the command's.
func TestSuggestFlag(t *testing.T) {
	flags := convertcmd.Command().Flags
	tests := []struct{ name, want string }{
		{"jsn", "--json"},
		{"outt", "--out"},
		{"watermak", "--watermark"},
		{"zzzzzz", ""},
	}
	for _, tt := range tests {
		if got := suggestFlag(flags, tt.name); got != tt.want {
			t.Errorf("suggestFlag(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
