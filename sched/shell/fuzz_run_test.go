package shell

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
			return // a line over proc.MaxShellLine
		}
		var want []string
		for _, l := range strings.Split(strings.TrimPrefix(in, "\uFEFF"), "\n") {
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
