package sched

import (
	"strings"
	"testing"
)

// FuzzReadCommands: whatever the input, the commands are its non-blank,
// non-comment lines, trimmed, in order.
func FuzzReadCommands(f *testing.F) {
	f.Add("echo a\n\n# c\n  echo b  \r\n")
	f.Add("#\n \t\n")
	f.Fuzz(func(t *testing.T, in string) {
		cmds, err := ReadCommands(strings.NewReader(in))
		if err != nil {
			return // a line over 1 MiB
		}
		var want []string
		for _, l := range strings.Split(in, "\n") {
			l = strings.TrimSpace(strings.TrimSuffix(l, "\r"))
			if l != "" && !strings.HasPrefix(l, "#") {
				want = append(want, l)
			}
		}
		if strings.Join(cmds, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("ReadCommands(%q) = %q, want %q", in, cmds, want)
		}
	})
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
