package shell

import (
	"os/exec"
	"strings"
	"testing"
)

// TestQuote: sh reads back every word Join quoted as it was.
func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain-word_1.txt", "plain-word_1.txt"},
		{"", "''"},
		{"two words", "'two words'"},
		{"it's", `'it'\''s'`},
		{`\n`, `'\n'`},
		{"$HOME", "'$HOME'"},
	}
	var words []string
	for _, tt := range tests {
		if got := Quote(tt.in); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.in, got, tt.want)
		}
		words = append(words, tt.in)
	}
	script := "printf '[%s]\\n' " + Join(words)
	got, err := exec.Command("/bin/sh", "-c", script).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "[" + strings.Join(words, "]\n[") + "]\n"
	if string(got) != want {
		t.Errorf("sh -c %q printed %q, want %q", script, got, want)
	}
}
