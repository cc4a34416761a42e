package base

import (
	"fmt"
	"testing"
)

// TestSafeText: text from outside prints as it is unless it holds a
// control character, an invisible format character or a byte that is
// not UTF-8; those become escapes, and nothing else changes.
func TestSafeText(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"ascii", "nightly backup #3", "nightly backup #3"},
		{"accents", "café crème brûlée", "café crème brûlée"},
		{"combining", "cafe\u0301", "cafe\u0301"},
		{"cjk", "日本語のテキスト", "日本語のテキスト"},
		{"emoji", "done 🎉👍🏽", "done 🎉👍🏽"},
		{"emoji zwj sequence", "👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧"},
		{"persian zwnj", "می\u200cخواهم", "می\u200cخواهم"},
		{"right to left", "שלום עולם", "שלום עולם"},
		{"a replacement character", "a\uFFFDb", "a\uFFFDb"},
		{"quotes and backslashes", `say "hi" \o/`, `say "hi" \o/`},
		{"escape sequence", "a\x1b[2Jb", `a\x1b[2Jb`},
		{"carriage return", "ok\rcalq: done", `ok\rcalq: done`},
		{"newline", "a\nb", `a\nb`},
		{"tab", "a\tb", `a\tb`},
		{"nul", "a\x00b", `a\x00b`},
		{"del", "a\x7fb", `a\x7fb`},
		{"c1 csi", "a\u009b2Jb", `a\u009b2Jb`},
		{"bidi override", "invoice\u202efdp.exe", `invoice\u202efdp.exe`},
		{"zero-width space", "a\u200bb", `a\u200bb`},
		{"byte order mark", "\uFEFFecho", `\ufeffecho`},
		{"latin-1 bytes", "caf\xe9", `caf\xe9`},
		{"high bytes", "\x80\xff", `\x80\xff`},
		{"cut utf-8", "日本"[:4], `日\xe6`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := SafeText(tt.in); got != tt.want {
				t.Errorf("safeText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestCheckText: a name with a NUL (which no command line carries, but a
// config file or a library caller can) or bytes that are not UTF-8 is
// refused, naming the input and the offset; text of any script passes.
func TestCheckText(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"ascii", "nightly", ""},
		{"utf-8", "café 日本 🎉", ""},
		{"empty", "", ""},
		{"nul", "a\x00b", `--label "a\x00b": a NUL (U+0000) at offset 1, which a name stored as text cannot hold`},
		{"latin-1", "caf\xe9", `--label "caf\xe9": byte 0xe9 at offset 3 is not UTF-8, and a name is stored as text`},
		{"cut utf-8", "é"[:1] + "x", `--label "\xc3x": byte 0xc3 at offset 0 is not UTF-8, and a name is stored as text`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckText("--label", tt.in)
			if got := fmt.Sprint(err); tt.want == "" && err != nil || tt.want != "" && got != tt.want {
				t.Errorf("CheckText(%q) = %v, want %q", tt.in, err, tt.want)
			}
		})
	}
}
