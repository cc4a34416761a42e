package sms

import (
	"encoding/hex"
	"strings"
	"testing"

	"calq/sms/pdu"
)

// TestComposeCoding: SendOptions.Coding forces GSM 7-bit (refusing what
// it lacks, after transliteration when asked), UCS-2, or 8-bit data (the
// text's bytes, stored as hex as the inbox shows data); "" chooses.
func TestComposeCoding(t *testing.T) {
	tests := []struct {
		name, coding, text string
		translit           bool
		enc, stored, data  string // the PDU's encoding, the text stored, the data sent (hex)
		err                string
	}{
		{name: "chosen gsm7", text: "hi", enc: "gsm7", stored: "hi"},
		{name: "chosen ucs2", text: "café ç", enc: "ucs2", stored: "café ç"},
		{name: "gsm7", coding: "gsm7", text: "hi €", enc: "gsm7", stored: "hi €"},
		{name: "gsm7 transliterated", coding: "gsm7", text: "“quoted”", translit: true, enc: "gsm7", stored: `"quoted"`},
		{name: "gsm7 refused", coding: "gsm7", text: "ok 世界", translit: true, err: `GSM 7-bit lacks "世" (U+4E16) at character 4`},
		{name: "gsm7 refused without transliteration", coding: "gsm7", text: "“q”", err: `GSM 7-bit lacks "“" (U+201C) at character 1`},
		{name: "ucs2 forced", coding: "ucs2", text: "hi", enc: "ucs2", stored: "hi"},
		{name: "8bit", coding: "8bit", text: "\x00\x01\xff", enc: "8bit", stored: "0001ff", data: "0001ff"},
		{name: "unknown", coding: "utf8", text: "hi", err: `coding "utf8": want "", "gsm7", "ucs2" or "8bit"`},
		{name: "NUL in text", coding: "ucs2", text: "a\x00", err: "NUL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, _, err := Compose([]string{"+41791234567"}, tt.text, SendOptions{Coding: tt.coding, Transliterate: tt.translit})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Compose(%q, Coding %q) = %v, want an error with %q", tt.text, tt.coding, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Compose(%q, Coding %q) = %v", tt.text, tt.coding, err)
			}
			m, err := pdu.Decode(msgs[0].Parts[0].Hex, pdu.MO)
			if err != nil {
				t.Fatal(err)
			}
			if m.Encoding != tt.enc || msgs[0].Text != tt.stored {
				t.Errorf("Compose(%q, Coding %q): encoding %s, text stored %q, want %s, %q", tt.text, tt.coding, m.Encoding, msgs[0].Text, tt.enc, tt.stored)
			}
			if got := hex.EncodeToString(m.Data); tt.data != "" && got != tt.data {
				t.Errorf("Compose(%q, Coding %q) sends data %s, want %s", tt.text, tt.coding, got, tt.data)
			}
			if tt.coding != "" && !strings.Contains(msgs[0].Options, `"coding":"`+tt.coding+`"`) {
				t.Errorf("Compose(Coding %q) options %s, want the coding kept", tt.coding, msgs[0].Options)
			}
		})
	}
}
