package at

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
)

// TestCommand: response lines without echo, URCs or OK; typed final errors.
func TestCommand(t *testing.T) {
	tr := newTranscript(t,
		step{expect: "AT+CSQ\r", reply: "AT+CSQ\r\r\n+CSQ: 17,99\r\n\r\nRING\r\n\r\nOK\r\n"},
		step{expect: "AT+CMGD=9\r", reply: errLine("+CMS ERROR: 321")},
		step{expect: "AT+CPMS?\r", reply: errLine("+CME ERROR: 14")},
		step{expect: "AT+FOO\r", reply: errLine("ERROR")},
	)
	ctx := context.Background()
	lines, err := tr.Command(ctx, "AT+CSQ")
	if err != nil || strings.Join(lines, "|") != "+CSQ: 17,99" {
		t.Errorf("Command(AT+CSQ) = %q, %v, want [+CSQ: 17,99], nil", lines, err)
	}
	var cms *CMSError
	if _, err := tr.Command(ctx, "AT+CMGD=9"); !errors.As(err, &cms) || cms.Code != 321 || IsTransient(err) {
		t.Errorf("Command(AT+CMGD=9) = %v, want permanent +CMS ERROR 321", err)
	}
	var cme *CMEError
	if _, err := tr.Command(ctx, "AT+CPMS?"); !errors.As(err, &cme) || cme.Code != 14 || !IsTransient(err) {
		t.Errorf("Command(AT+CPMS?) = %v, want transient +CME ERROR 14", err)
	}
	if _, err := tr.Command(ctx, "AT+FOO"); !errors.Is(err, ErrCommand) || IsTransient(err) {
		t.Errorf("Command(AT+FOO) = %v, want permanent ErrCommand", err)
	}
	if u := tr.urcs(); len(u) != 1 || u[0] != "RING" {
		t.Errorf("URCs = %q, want [RING]", u)
	}
}

// TestCommandTimeout: no answer within CommandTimeout; a late OK with no
// command in flight is dropped.
func TestCommandTimeout(t *testing.T) {
	tr := newTranscript(t,
		step{expect: "AT+CSQ\r", fire: tCommand},
		step{expect: "AT\r", reply: ok()},
	)
	_, err := tr.Command(context.Background(), "AT+CSQ")
	var te *TimeoutError
	if !errors.As(err, &te) || !IsTransient(err) {
		t.Fatalf("Command = %v, want a transient TimeoutError", err)
	}
	if _, err := tr.Command(context.Background(), "AT"); err != nil {
		t.Errorf("Command after timeout = %v", err)
	}
}

// TestCommandCancelled: ctx cancelled while waiting for the answer.
func TestCommandCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	tr := newTranscript(t, step{expect: "AT+CSQ\r", do: cancel})
	if _, err := tr.Command(ctx, "AT+CSQ"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Command = %v, want context.Canceled", err)
	}
}

// TestCommandVanishes: EOF in the middle of a response.
func TestCommandVanishes(t *testing.T) {
	tr := newTranscript(t, step{expect: "AT+CGSN\r", reply: "\r\n8671234", hangup: true})
	if _, err := tr.Command(context.Background(), "AT+CGSN"); !errors.Is(err, ErrClosed) || !IsTransient(err) {
		t.Fatalf("Command = %v, want transient ErrClosed", err)
	}
	if _, ok := <-tr.URC(); ok {
		t.Error("URC channel still open after EOF")
	}
}

// TestCommandRejectsControl: a CR inside a command would smuggle a second one.
func TestCommandRejectsControl(t *testing.T) {
	tr := newTranscript(t)
	if _, err := tr.Command(context.Background(), "AT\rAT+CMGD=1"); err == nil {
		t.Error("Command with CR succeeded")
	}
}

// TestCommandsSerialised: concurrent callers each get their own answer; a
// responder modem answers commands in the order it reads them.
func TestCommandsSerialised(t *testing.T) {
	calq, modem := net.Pipe()
	m := New(calq, Options{})
	defer m.Close()
	go func() {
		r := bufio.NewReader(modem)
		for {
			cmd, err := r.ReadString('\r')
			if err != nil {
				return
			}
			fmt.Fprint(modem, ok("+X: "+strings.TrimSuffix(cmd, "\r")))
		}
	}()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := fmt.Sprintf("AT+X=%d", i)
			lines, err := m.Command(context.Background(), cmd)
			if want := "+X: " + cmd; err != nil || len(lines) != 1 || lines[0] != want {
				t.Errorf("Command(%s) = %q, %v, want [%s]", cmd, lines, err, want)
			}
		}()
	}
	wg.Wait()
}

// TestRouting: which lines are URCs, given the command in flight.
func TestRouting(t *testing.T) {
	for _, tc := range []struct {
		cmd, line string
		urc       bool
	}{
		{"AT+CREG?", "+CREG: 0,1", false},
		{"AT+CREG?", "+CREG: 2,1,\"00C3\",\"0001\",7", false},
		{"AT+CREG?", "+CREG: 1", true},
		{"AT+CREG?", "+CREG: 1,\"00C3\",\"0001\"", true},
		{"AT+CEREG?", "+CREG: 0,1", true},
		{"AT+CMGL=4", "+CMTI: \"SM\",2", true},
		{"AT+CMGL=4", "+CMGL: 1,0,,22", false},
		{"AT+CMGL=4", "0791", false},
		{"AT+CMGS=20", "+CMGS: 5", false},
		{"AT+CMGS=20", "+CDS: 25", true},
		{"AT+CGMI", "^BOOT:1234,0,0,0,72", true},
		{"AT+CGMI", "RING", true},
		{"AT+CGMI", "+CGMI: huawei", false},
		{"AT+CUSD=1", "+CUSD: 0,\"x\",15", false},
		{"AT+CGMI", "+VENDOR: x", false},
		{"", "+VENDOR: x", true},
		{"", "OK", false},
	} {
		m := &Modem{}
		var r *request
		if tc.cmd != "" {
			r = &request{prefix: commandPrefix(tc.cmd), got: map[string]bool{}}
		}
		if got := m.unsolicited(tc.line, r); got != tc.urc {
			t.Errorf("during %q, %q unsolicited = %v, want %v", tc.cmd, tc.line, got, tc.urc)
		}
	}
}

// TestTransientTable pins the classification documented in doc.go.
func TestTransientTable(t *testing.T) {
	cms := map[int]bool{
		27: true, 41: true, 42: true, 47: true, 192: true, 194: true, 212: true, 304: true, 305: true,
		314: true, 331: true, 332: true, 500: true, 512: true, 513: true, 514: true, 515: true,
		1: false, 8: false, 21: false, 38: false, 50: false, 96: false, 300: false, 301: false,
		302: false, 303: false, 310: false, 311: false, 312: false, 313: false, 316: false, 321: false,
		322: false, 330: false,
	}
	for code, want := range cms {
		if got := (&CMSError{Code: code}).Transient(); got != want {
			t.Errorf("CMS %d transient = %v, want %v", code, got, want)
		}
	}
	cme := map[int]bool{14: true, 30: true, 31: true, 100: true, 3: false, 4: false, 10: false, 11: false, 12: false, 13: false, 16: false}
	for code, want := range cme {
		if got := (&CMEError{Code: code}).Transient(); got != want {
			t.Errorf("CME %d transient = %v, want %v", code, got, want)
		}
	}
	for _, tc := range []struct {
		line string
		want string
	}{
		{"+CMS ERROR: 500", "+CMS ERROR: 500 (unknown error)"},
		{"+CMS ERROR: 9999", "+CMS ERROR: 9999"},
		{"+CMS ERROR: SMSC address unknown", "+CMS ERROR: 330 (SMSC address unknown)"}, // AT+CMEE=2's text, read back as its number
		{"+CMS ERROR: no such thing", "+CMS ERROR: no such thing"},
		{"+CME ERROR: 14", "+CME ERROR: 14 (SIM busy)"},
		{"ERROR", "ERROR"},
	} {
		final, err := finalResult(tc.line)
		if !final || err == nil || err.Error() != tc.want {
			t.Errorf("finalResult(%q) = %v, %v, want true, %s", tc.line, final, err, tc.want)
		}
	}
	for line, want := range map[string]bool{"+CMS ERROR: SIM busy": true, "+CME ERROR: sim busy": true, "+CMS ERROR: unassigned number": false} {
		if _, err := finalResult(line); IsTransient(err) != want {
			t.Errorf("IsTransient(finalResult(%q)) = %v, want %v, as its number", line, !want, want)
		}
	}
	wrapped := fmt.Errorf("%w: %w", ErrUnknownOutcome, &TimeoutError{Waiting: "result"})
	if IsTransient(wrapped) || IsTransient(nil) || IsTransient(errors.New("x")) {
		t.Error("IsTransient true for unknown outcome, nil or an unknown error")
	}
}

// TestSplitter: line framing, prompt without line ending, echo control characters.
func TestSplitter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		chunks []string
		want   string // tokens joined by |, prompt as >
	}{
		{"crlf", []string{"\r\nOK\r\n"}, "OK"},
		{"echo cr", []string{"AT\r\r\nOK\r\n"}, "AT|OK"},
		{"prompt", []string{"\r\n> "}, ">"},
		{"prompt split", []string{"\r\n>", " "}, ">"},
		{"line split", []string{"+CS", "Q: 1,", "2\r", "\n"}, "+CSQ: 1,2"},
		{"ctrl-z echo", []string{"0011\x1a\r\n+CMGS: 3\r\n"}, "0011|+CMGS: 3"},
		{"esc echo", []string{"\x1bAT\r"}, "AT"},
		{"lf only", []string{"OK\nRING\n"}, "OK|RING"},
		{"gt inside", []string{"a>b\r\n"}, "a>b"},
		{"prompt then urc", []string{"\r\n> \r\n^RSSI:18\r\n"}, ">|^RSSI:18"},
	} {
		var s splitter
		var got []string
		for _, c := range tc.chunks {
			for _, tk := range s.feed([]byte(c)) {
				if tk.prompt {
					got = append(got, ">")
				} else {
					got = append(got, tk.line)
				}
			}
		}
		if g := strings.Join(got, "|"); g != tc.want {
			t.Errorf("%s: tokens %q, want %q", tc.name, g, tc.want)
		}
	}
	var s splitter
	long := strings.Repeat("A", maxLine+10)
	if tk := s.feed([]byte(long)); len(tk) != 1 || len(tk[0].line) != maxLine {
		t.Errorf("long line: %d tokens, want one of %d bytes", len(tk), maxLine)
	}
}
