package bytestr

import (
	"encoding/json"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		name, in, wire string
	}{
		{"ascii", "printf hi", `"printf hi"`},
		{"utf-8", "echo é 日本 🎉", `"echo é 日本 🎉"`},
		{"replacement char kept", "a\uFFFDb", `"a` + "\uFFFD" + `b"`},
		{"latin-1", "printf '\xe9t\xe9'", `{"base64":"cHJpbnRmICfpdOkn"}`},
		{"high bytes", "\x80\x81\xfe\xff", `{"base64":"gIH+/w=="}`},
		{"empty", "", `""`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(struct {
				C String `json:"c"`
			}{String(tt.in)})
			if err != nil {
				t.Fatal(err)
			}
			if want := `{"c":` + tt.wire + `}`; string(b) != want {
				t.Errorf("marshal %q: got %s, want %s", tt.in, b, want)
			}
			var back struct {
				C String `json:"c"`
			}
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if string(back.C) != tt.in {
				t.Errorf("round trip of %q: got %q", tt.in, back.C)
			}
		})
	}
}

// TestOlderReaders: a payload written before this package decodes; an
// older reader (a plain string field) refuses the base64 form instead of
// taking U+FFFD for the bytes.
func TestOlderReaders(t *testing.T) {
	var s String
	if err := json.Unmarshal([]byte(`"echo old"`), &s); err != nil || s != "echo old" {
		t.Errorf("an old payload: got %q, %v; want \"echo old\"", s, err)
	}
	b, _ := json.Marshal(String("\xff"))
	var old string
	if err := json.Unmarshal(b, &old); err == nil {
		t.Errorf("an older reader took %s as the string %q; want an error", b, old)
	}
	for _, bad := range []string{`{}`, `{"base64":"!!"}`, `12`} {
		if err := json.Unmarshal([]byte(bad), &s); err == nil {
			t.Errorf("%s: got %q, want an error", bad, s)
		}
	}
}

func TestText(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"ascii", "exit status 1", "exit status 1"},
		{"utf-8", "read café 日本.doc: 🎉", "read café 日本.doc: 🎉"},
		{"latin-1", "read caf\xe9.doc", `read caf\xe9.doc`},
		{"nul", "a\x00b", `a\x00b`},
		{"cut utf-8", "日本"[:4], `日\xe6`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Text(tt.in); got != tt.want {
				t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
