package at

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// FuzzLineReader feeds arbitrary modem output, in arbitrary chunks, to the
// splitter and to a whole Modem: nothing panics, no token is empty or holds
// a line ending, and a command over a stream that ends always returns.
func FuzzLineReader(f *testing.F) {
	for _, s := range []string{
		"\r\nOK\r\n", "AT\r\r\nOK\r\n", "\r\n> ", "\r\n>", "+CMTI: \"SM\",1\r\n",
		"\r\n+CMT: ,22\r\n0791\r\n", "+CMS ERROR: 500\r\n", "+CME ERROR: x\r\n",
		"\x1a\x1b>\r>\n", strings.Repeat("A", maxLine+1),
	} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		var s splitter
		size := int(chunk)%64 + 1
		for i := 0; i < len(data); i += size {
			for _, tk := range s.feed(data[i:min(i+size, len(data))]) {
				checkToken(t, tk)
			}
		}
		for _, tk := range s.flush() {
			checkToken(t, tk)
		}

		m := New(struct {
			io.Reader
			io.Writer
		}{bytes.NewReader(data), io.Discard}, Options{})
		m.Command(context.Background(), "AT+CMGL=4")
		for range m.URC() { // closed when the reader reaches EOF
		}
	})
}

func checkToken(t *testing.T, tk token) {
	if tk.prompt {
		return
	}
	if tk.line == "" || strings.ContainsAny(tk.line, "\r\n") || len(tk.line) > maxLine {
		t.Fatalf("bad token %q", tk.line)
	}
}
