package emu

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSIMBlocksAfterThreeWrongPINs: the emulated SIM counts wrong PIN
// entries, says how many tries are left (AT+CPINR), blocks after the third
// (SIM PUK; a PIN entry gets +CME ERROR: 12) and takes the PUK with a new
// PIN. The ICCID answers before the PIN is given. The SIM log has one
// line per command, without the PIN.
func TestSIMBlocksAfterThreeWrongPINs(t *testing.T) {
	simLog := &syncBuffer{}
	e, _ := start(t, Options{PIN: "1234", PUK: "87654321", SIMLog: simLog})
	dev := e.Devices()[0]
	c := dial(t, dev)
	c.do("ATE0", "ATE0\r\r\nOK\r\n")
	c.do("AT+CMEE=1", "\r\nOK\r\n")
	steps := []struct{ cmd, want string }{
		{"AT+CCID", "\r\n+CCID: 8949020000000000000\r\n\r\nOK\r\n"},
		{"AT+CPIN?", "\r\n+CPIN: SIM PIN\r\n\r\nOK\r\n"},
		{`AT+CPINR="SIM PIN"`, "\r\n+CPINR: SIM PIN,3,3\r\n\r\nOK\r\n"},
		{`AT+CPIN="0000"`, "\r\n+CME ERROR: 16\r\n"},
		{`AT+CPINR="SIM PIN"`, "\r\n+CPINR: SIM PIN,2,3\r\n\r\nOK\r\n"},
		{`AT+CPIN="0001"`, "\r\n+CME ERROR: 16\r\n"},
		{`AT+CPIN="0002"`, "\r\n+CME ERROR: 16\r\n"},
		{"AT+CPIN?", "\r\n+CPIN: SIM PUK\r\n\r\nOK\r\n"},
		{`AT+CPIN="1234"`, "\r\n+CME ERROR: 12\r\n"},
		{"AT+CIMI", "\r\n+CME ERROR: 12\r\n"},
		{"AT+CPMS?", "\r\n+CMS ERROR: 316\r\n"},
		{"AT+CPINR", "\r\n+CPINR: SIM PIN,0,3\r\n+CPINR: SIM PUK,10,10\r\n\r\nOK\r\n"},
		{`AT+CPIN="11111111","4321"`, "\r\n+CME ERROR: 16\r\n"},
		{`AT+CPIN="87654321","4321"`, "\r\nOK\r\n"},
		{"AT+CPIN?", "\r\n+CPIN: READY\r\n\r\nOK\r\n"},
	}
	for _, s := range steps {
		c.do(s.cmd, s.want)
	}
	st, err := e.SIM(dev)
	want := SIMStatus{State: SIMReady, PINLeft: 3, PUKLeft: 10, WrongPINs: 3, Queries: 3}
	if err != nil || st != want {
		t.Errorf("SIM = %+v, %v; want %+v", st, err, want)
	}
	var refused int
	for _, line := range strings.Split(strings.TrimSpace(simLog.buf.String()), "\n") {
		var r SIMRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("SIM log line %q: %v", line, err)
		}
		if r.Refused {
			refused++
		}
	}
	if log := simLog.buf.String(); refused != 5 || strings.Contains(log, "0000") || strings.Contains(log, "87654321") {
		t.Errorf("SIM log has %d refused entries, want 5, and no PIN:\n%s", refused, log)
	}
}
