package at

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// echo prefixes a reply with the echo of cmd, as a modem with echo on does.
func echo(cmd, reply string) string { return cmd + "\r" + reply }

// tailSteps are Init's steps after the SIM is ready, echoing when echoOn.
func tailSteps(echoOn bool) []step {
	pairs := [][2]string{
		{"AT+CMGF=0", ok()},
		{"AT+CSCA?", ok(`+CSCA: "+491710760000",145`)},
		{`AT+CPMS="SM","SM","SM"`, ok("+CPMS: 0,30,0,30,0,30")},
		{"AT+CNMI=2,1,0,2,0", ok()},
		{"AT+CREG?", ok("+CREG: 0,1")},
		{"AT+CEREG?", errLine("+CME ERROR: 4")},
		{"AT+CSQ", ok("+CSQ: 21,99")},
		{"AT+CGMI", ok("huawei")},
		{"AT+CGMM", ok("+CGMM: E3372")},
		{"AT+CGSN", ok("867123456789012")},
	}
	var out []step
	for _, p := range pairs {
		reply := p[1]
		if echoOn {
			reply = echo(p[0], reply)
		}
		out = append(out, step{expect: p[0] + "\r", reply: reply})
	}
	return out
}

var wantInfo = Info{
	Maker: "huawei", Model: "E3372", IMEI: "867123456789012", SMSC: "+491710760000",
	Registered: true, RegStatus: "home", CREG: 1, CEREG: -1, Signal: 21,
}

// TestInitEchoOn: echo is on until ATE0 takes effect (ATE0 itself is echoed).
func TestInitEchoOn(t *testing.T) {
	steps := []step{
		{expect: "\x1b"},
		{expect: "AT\r", reply: echo("AT", ok())},
		{expect: "ATE0\r", reply: echo("ATE0", ok())},
		{expect: "AT+CMEE=1\r", reply: ok()},
		{expect: "AT+CPIN?\r", reply: ok("+CPIN: READY")},
	}
	tr := newTranscript(t, append(steps, tailSteps(false)...)...)
	info, err := tr.Init(context.Background(), nil)
	if err != nil {
		t.Fatalf("Init: %v", err)
	}
	if info != wantInfo {
		t.Errorf("Init = %+v, want %+v", info, wantInfo)
	}
}

// TestInitEchoStaysOn: the modem ignores ATE0 and echoes everything, and
// unsolicited codes arrive in the middle of responses, including a +CREG
// URC while AT+CREG? is in flight.
func TestInitEchoStaysOn(t *testing.T) {
	steps := []step{
		{expect: "\x1b"},
		{expect: "AT\r", reply: echo("AT", ok())},
		{expect: "ATE0\r", reply: echo("ATE0", ok())},
		{expect: "AT+CMEE=1\r", reply: echo("AT+CMEE=1", "\r\n^RSSI:18\r\n"+ok())},
		{expect: "AT+CPIN?\r", reply: echo("AT+CPIN?", ok("+CPIN: READY"))},
	}
	tail := tailSteps(true)
	tail[4].reply = echo("AT+CREG?", "\r\n+CREG: 1\r\n"+ok("+CREG: 0,5")+"\r\n+CREG: 1,\"00C3\",\"0001\"\r\n")
	tr := newTranscript(t, append(steps, tail...)...)
	info, err := tr.Init(context.Background(), nil)
	if err != nil {
		t.Fatalf("Init: %v", err)
	}
	want := wantInfo
	want.CREG, want.RegStatus = 5, "roaming"
	if info != want {
		t.Errorf("Init = %+v, want %+v", info, want)
	}
	wantURC := []string{"^RSSI:18", "+CREG: 1", `+CREG: 1,"00C3","0001"`}
	if got := tr.urcs(); strings.Join(got, "|") != strings.Join(wantURC, "|") {
		t.Errorf("URCs = %q, want %q", got, wantURC)
	}
}

// TestInitPIN: the SIM asks for a PIN, Init gives it, the SIM is ready; the
// PIN never appears in the log.
func TestInitPIN(t *testing.T) {
	steps := []step{
		{expect: "\x1b"},
		{expect: "AT\r", reply: ok()},
		{expect: "ATE0\r", reply: ok()},
		{expect: "AT+CMEE=1\r", reply: ok()},
		{expect: "AT+CPIN?\r", reply: ok("+CPIN: SIM PIN")},
		{expect: "AT+CPINR=\"SIM PIN\"\r", reply: ok("+CPINR: SIM PIN,3,3")},
		{expect: "AT+CPIN=\"4711\"\r", reply: ok()},
		{expect: "AT+CPIN?\r", reply: ok("+CPIN: READY")},
	}
	tr := newTranscript(t, append(steps, tailSteps(false)...)...)
	if _, err := tr.Init(context.Background(), WithPIN("4711")); err != nil {
		t.Fatalf("Init: %v", err)
	}
	tr.finish(t)
	if log := tr.log.String(); strings.Contains(log, "4711") || !strings.Contains(log, `AT+CPIN="****"`) {
		t.Errorf("log shows the PIN or no masked CPIN:\n%s", log)
	}
}

// TestInitSIMStates: no PIN given, or a state calq must not handle, stops Init.
func TestInitSIMStates(t *testing.T) {
	for _, tc := range []struct {
		name, state, pin string
		want             error
	}{
		{"pin missing", "SIM PIN", "", ErrPINRequired},
		{"puk", "SIM PUK", "1234", ErrSIMLocked},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTranscript(t,
				step{expect: "\x1b"},
				step{expect: "AT\r", reply: ok()},
				step{expect: "ATE0\r", reply: ok()},
				step{expect: "AT+CMEE=1\r", reply: ok()},
				step{expect: "AT+CPIN?\r", reply: ok("+CPIN: " + tc.state)},
			)
			if _, err := tr.Init(context.Background(), WithPIN(tc.pin)); !errors.Is(err, tc.want) {
				t.Errorf("Init = %v, want %v", err, tc.want)
			}
		})
	}
}

// TestInitProbeRetry: the first AT goes unanswered (a modem waking up); Init
// sends AT again after ProbeTimeout.
func TestInitProbeRetry(t *testing.T) {
	steps := []step{
		{expect: "\x1b"},
		{expect: "AT\r", fire: tProbe},
		{expect: "AT\r", reply: ok()},
		{expect: "ATE0\r", reply: ok()},
		{expect: "AT+CMEE=1\r", reply: ok()},
		{expect: "AT+CPIN?\r", reply: ok("+CPIN: READY")},
	}
	tr := newTranscript(t, append(steps, tailSteps(false)...)...)
	if _, err := tr.Init(context.Background(), nil); err != nil {
		t.Fatalf("Init: %v", err)
	}
}

// TestInitReportRouting: a modem that cannot store status reports (AT+CNMI
// with <ds>=2 refused) is asked to hand them out with +CDS (<ds>=1)
// rather than keep the default, which may drop them; one that refuses
// both is left as it is.
func TestInitReportRouting(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cnmi  []step
		after int // tailSteps from which the rest runs
	}{
		{"ds=2 refused, ds=1 taken", []step{
			{expect: "AT+CNMI=2,1,0,2,0\r", reply: errLine("+CMS ERROR: 303")},
			{expect: "AT+CNMI=2,1,0,1,0\r", reply: ok()},
		}, 4},
		{"both refused", []step{
			{expect: "AT+CNMI=2,1,0,2,0\r", reply: errLine("+CMS ERROR: 303")},
			{expect: "AT+CNMI=2,1,0,1,0\r", reply: errLine("ERROR")},
		}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tail := tailSteps(false)
			steps := append(append(append(readySteps(), tail[:3]...), tc.cnmi...), tail[tc.after:]...)
			tr := newTranscript(t, steps...)
			info, err := tr.Init(context.Background(), nil)
			if err != nil || info != wantInfo {
				t.Fatalf("Init = %+v, %v; want %+v", info, err, wantInfo)
			}
			tr.finish(t)
		})
	}
}

// readySteps are Init's first steps with echo off and a SIM that is ready.
func readySteps() []step {
	return []step{
		{expect: "\x1b"},
		{expect: "AT\r", reply: ok()},
		{expect: "ATE0\r", reply: ok()},
		{expect: "AT+CMEE=1\r", reply: ok()},
		{expect: "AT+CPIN?\r", reply: ok("+CPIN: READY")},
	}
}
