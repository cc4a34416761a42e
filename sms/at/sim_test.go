package at

import (
	"context"
	"errors"
	"testing"
)

// TestEnterPIN: EnterPIN asks how many tries are left (27.007's CPINR,
// else Huawei's ^CPIN, else Quectel's QPINC) and writes the PIN only when
// more than one is; a refusal wraps ErrPINRejected. The script is the
// exact bytes calq must write: no AT+CPIN= where the PIN must not go.
func TestEnterPIN(t *testing.T) {
	entry := step{expect: "AT+CPIN=\"4711\"\r", reply: ok()}
	for _, tc := range []struct {
		name  string
		steps []step
		want  error // nil: success
	}{
		{"cpinr 3 left", []step{{expect: "AT+CPINR=\"SIM PIN\"\r", reply: ok("+CPINR: SIM PIN,3,3")}, entry}, nil},
		{"huawei 2 left", []step{
			{expect: "AT+CPINR=\"SIM PIN\"\r", reply: errLine("+CME ERROR: 4")},
			{expect: "AT^CPIN?\r", reply: ok("^CPIN: SIM PIN,2,10,2,10,10")}, entry}, nil},
		{"quectel 2 left", []step{
			{expect: "AT+CPINR=\"SIM PIN\"\r", reply: errLine("ERROR")},
			{expect: "AT^CPIN?\r", reply: errLine("ERROR")},
			{expect: "AT+QPINC=\"SC\"\r", reply: ok(`+QPINC: "SC",2,10`)}, entry}, nil},
		{"count unknown", []step{
			{expect: "AT+CPINR=\"SIM PIN\"\r", reply: errLine("ERROR")},
			{expect: "AT^CPIN?\r", reply: errLine("ERROR")},
			{expect: "AT+QPINC=\"SC\"\r", reply: errLine("ERROR")}, entry}, nil},
		{"last try kept", []step{{expect: "AT+CPINR=\"SIM PIN\"\r", reply: ok("+CPINR: SIM PIN,1,3")}}, ErrLastTry},
		{"huawei last try kept", []step{
			{expect: "AT+CPINR=\"SIM PIN\"\r", reply: errLine("ERROR")},
			{expect: "AT^CPIN?\r", reply: ok("^CPIN: SIM PIN,1,10,1,10,10")}}, ErrLastTry},
		{"none left", []step{{expect: "AT+CPINR=\"SIM PIN\"\r", reply: ok("+CPINR: SIM PIN,0,3")}}, ErrSIMLocked},
		{"rejected", []step{{expect: "AT+CPINR=\"SIM PIN\"\r", reply: ok("+CPINR: SIM PIN,3,3")},
			{expect: "AT+CPIN=\"4711\"\r", reply: errLine("+CME ERROR: 16")}}, ErrPINRejected},
		{"rejected verbose", []step{{expect: "AT+CPINR=\"SIM PIN\"\r", reply: ok("+CPINR: SIM PIN,3,3")},
			{expect: "AT+CPIN=\"4711\"\r", reply: errLine("+CME ERROR: incorrect password")}}, ErrPINRejected},
		{"rejected plain error", []step{{expect: "AT+CPINR=\"SIM PIN\"\r", reply: ok("+CPINR: SIM PIN,2,3")},
			{expect: "AT+CPIN=\"4711\"\r", reply: errLine("ERROR")}}, ErrPINRejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTranscript(t, tc.steps...)
			err := tr.EnterPIN(context.Background(), "4711")
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("EnterPIN = %v, want %v", err, tc.want)
			}
			tr.finish(t)
		})
	}
}

// TestInitPINUnlocker: Init hands a SIM that asks for its PIN to the
// Unlocker, which may read the ICCID first; a SIM that is READY needs none.
func TestInitPINUnlocker(t *testing.T) {
	steps := []step{
		{expect: "\x1b"},
		{expect: "AT\r", reply: ok()},
		{expect: "ATE0\r", reply: ok()},
		{expect: "AT+CMEE=1\r", reply: ok()},
		{expect: "AT+CPIN?\r", reply: ok("+CPIN: SIM PIN")},
		{expect: "AT+CCID\r", reply: errLine("+CME ERROR: 4")},
		{expect: "AT+ICCID\r", reply: ok("+ICCID: 89490200001234567890")},
	}
	tr := newTranscript(t, steps...)
	var iccid string
	stop := errors.New("stop here")
	_, err := tr.Init(context.Background(), func(ctx context.Context, m *Modem) error {
		iccid = m.ICCID(ctx)
		return stop
	})
	if !errors.Is(err, stop) || iccid != "89490200001234567890" {
		t.Errorf("Init = %v with ICCID %q, want the Unlocker's error and 89490200001234567890", err, iccid)
	}
}

func TestICCIDIn(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		want  string
	}{
		{[]string{"+CCID: 89490200001234567890"}, "89490200001234567890"},
		{[]string{`+CCID: "8949020000123456789F"`}, "8949020000123456789F"},
		{[]string{"89014103211118510720"}, "89014103211118510720"},
		{[]string{"^ICCID: 98940200001234567890"}, "98940200001234567890"},
		{[]string{"+CCID: 1234"}, ""},
		{nil, ""},
	} {
		if got := iccidIn(tc.lines); got != tc.want {
			t.Errorf("iccidIn(%q) = %q, want %q", tc.lines, got, tc.want)
		}
	}
}
