package at

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// A 7-bit SUBMIT of "hello" to +4915112345678: 21 octets, the first ("00",
// no SMSC) not counted in AT+CMGS.
const (
	testPDU = "0011000D91945111325476F80000AA05E8329BFD06"
	testLen = 20
)

// TestSendPDU: '>' arrives without a line ending; unsolicited codes arrive
// before the prompt and between the PDU and +CMGS; echo on or off.
func TestSendPDU(t *testing.T) {
	for _, echoOn := range []bool{false, true} {
		name := map[bool]string{false: "echo off", true: "echo on"}[echoOn]
		t.Run(name, func(t *testing.T) {
			cmdEcho, pduEcho := "", ""
			if echoOn {
				cmdEcho, pduEcho = "AT+CMGS=20\r", testPDU+"\x1a"
			}
			tr := newTranscript(t,
				step{expect: "AT+CMGS=20\r", reply: cmdEcho + "\r\n+CMTI: \"SM\",3\r\n\r\n> "},
				step{expect: testPDU + "\x1a", reply: pduEcho + "\r\n+CDSI: \"SR\",7\r\n" + ok("+CMGS: 42")},
			)
			mr, err := tr.SendPDU(context.Background(), testPDU, testLen)
			if err != nil || mr != 42 {
				t.Fatalf("SendPDU = %d, %v, want 42, nil", mr, err)
			}
			want := `+CMTI: "SM",3|+CDSI: "SR",7`
			if got := strings.Join(tr.urcs(), "|"); got != want {
				t.Errorf("URCs = %q, want %q", got, want)
			}
		})
	}
}

// TestSendPDUPromptSplit: the prompt arrives in two pieces, '>' then ' '.
func TestSendPDUPromptSplit(t *testing.T) {
	tr := newTranscript(t,
		step{expect: "AT+CMGS=20\r", reply: "\r\n>"},
		step{reply: " "},
		step{expect: testPDU + "\x1a", reply: ok("+CMGS: 0")},
	)
	if mr, err := tr.SendPDU(context.Background(), testPDU, testLen); err != nil || mr != 0 {
		t.Fatalf("SendPDU = %d, %v, want 0, nil", mr, err)
	}
}

// TestSendPDURefused: +CMS ERROR after the PDU is a definite, classified failure.
func TestSendPDURefused(t *testing.T) {
	for _, tc := range []struct {
		reply     string
		code      int
		transient bool
	}{
		{"+CMS ERROR: 500", 500, true},
		{"+CMS ERROR: 38", 38, false},
		{"+CMS ERROR: 42", 42, true},
		{"+CMS ERROR: 330", 330, false},
		{"+CMS ERROR: 304", 304, true},
	} {
		t.Run(tc.reply, func(t *testing.T) {
			tr := newTranscript(t,
				step{expect: "AT+CMGS=20\r", reply: "\r\n> "},
				step{expect: testPDU + "\x1a", reply: errLine(tc.reply)},
			)
			_, err := tr.SendPDU(context.Background(), testPDU, testLen)
			var cms *CMSError
			if !errors.As(err, &cms) || cms.Code != tc.code {
				t.Fatalf("SendPDU error = %v, want +CMS ERROR %d", err, tc.code)
			}
			if got := IsTransient(err); got != tc.transient {
				t.Errorf("IsTransient(%v) = %v, want %v", err, got, tc.transient)
			}
			if errors.Is(err, ErrUnknownOutcome) {
				t.Errorf("error %v wraps ErrUnknownOutcome; the modem gave a definite answer", err)
			}
		})
	}
}

// TestSendPDURefusedBeforePrompt: a final result instead of the prompt
// (the modem refuses AT+CMGS itself, or an earlier command's late answer
// comes) submitted nothing: calq writes ESC, and the error is transient.
func TestSendPDURefusedBeforePrompt(t *testing.T) {
	for _, code := range []string{"331", "21"} { // transient, and permanent had it answered the PDU
		tr := newTranscript(t,
			step{expect: "AT+CMGS=20\r", reply: errLine("+CMS ERROR: " + code)},
			step{expect: "\x1b"}, // leaves a prompt that may still come
		)
		_, err := tr.SendPDU(context.Background(), testPDU, testLen)
		var cms *CMSError
		var np *NoPromptError
		if !errors.As(err, &cms) || strconv.Itoa(cms.Code) != code || !errors.As(err, &np) || !IsTransient(err) {
			t.Fatalf("SendPDU error = %v, want a transient NoPromptError wrapping +CMS ERROR %s", err, code)
		}
	}
}

// TestSendPDUPromptTimeout: no '>' comes; calq writes ESC and never the PDU
// (the script fails on any byte after ESC), so a retry is safe.
func TestSendPDUPromptTimeout(t *testing.T) {
	tr := newTranscript(t,
		step{expect: "AT+CMGS=20\r", fire: tPrompt},
		step{expect: "\x1b"},
	)
	_, err := tr.SendPDU(context.Background(), testPDU, testLen)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Waiting != "prompt" {
		t.Fatalf("SendPDU error = %v, want a prompt timeout", err)
	}
	if errors.Is(err, ErrUnknownOutcome) || !IsTransient(err) {
		t.Errorf("error %v: want transient and not ErrUnknownOutcome", err)
	}
}

// TestSendPDUCancelledBeforePrompt: a cancelled ctx also cancels the prompt with ESC.
func TestSendPDUCancelledBeforePrompt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	tr := newTranscript(t,
		step{expect: "AT+CMGS=20\r", do: cancel},
		step{expect: "\x1b"},
	)
	_, err := tr.SendPDU(ctx, testPDU, testLen)
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrUnknownOutcome) {
		t.Fatalf("SendPDU error = %v, want context.Canceled without ErrUnknownOutcome", err)
	}
}

// TestSendPDUResultTimeout: the PDU went out but no +CMGS comes: unknown.
func TestSendPDUResultTimeout(t *testing.T) {
	tr := newTranscript(t,
		step{expect: "AT+CMGS=20\r", reply: "\r\n> "},
		step{expect: testPDU + "\x1a", fire: tResult},
	)
	_, err := tr.SendPDU(context.Background(), testPDU, testLen)
	if !errors.Is(err, ErrUnknownOutcome) || IsTransient(err) {
		t.Fatalf("SendPDU error = %v, want ErrUnknownOutcome, not transient", err)
	}
}

// TestSendPDUVanishes: the device disappears before the prompt (nothing
// sent, transient) or after the PDU (unknown).
func TestSendPDUVanishes(t *testing.T) {
	t.Run("before prompt", func(t *testing.T) {
		tr := newTranscript(t, step{expect: "AT+CMGS=20\r", hangup: true})
		_, err := tr.SendPDU(context.Background(), testPDU, testLen)
		if !errors.Is(err, ErrClosed) || errors.Is(err, ErrUnknownOutcome) || !IsTransient(err) {
			t.Fatalf("SendPDU error = %v, want transient ErrClosed", err)
		}
	})
	t.Run("after PDU", func(t *testing.T) {
		tr := newTranscript(t,
			step{expect: "AT+CMGS=20\r", reply: "\r\n> "},
			step{expect: testPDU + "\x1a", hangup: true},
		)
		_, err := tr.SendPDU(context.Background(), testPDU, testLen)
		if !errors.Is(err, ErrUnknownOutcome) || !errors.Is(err, ErrClosed) {
			t.Fatalf("SendPDU error = %v, want ErrUnknownOutcome wrapping ErrClosed", err)
		}
		if _, err := tr.Command(context.Background(), "AT"); !errors.Is(err, ErrClosed) {
			t.Errorf("Command after EOF = %v, want ErrClosed", err)
		}
	})
}

// TestSendPDUBadInput: nothing is written for a malformed PDU or length.
func TestSendPDUBadInput(t *testing.T) {
	tr := newTranscript(t)
	for _, tc := range []struct {
		pdu string
		n   int
	}{{"0011ZZ", 2}, {"001", 1}, {testPDU, 0}, {testPDU, 22}} {
		if _, err := tr.SendPDU(context.Background(), tc.pdu, tc.n); err == nil {
			t.Errorf("SendPDU(%q, %d) = nil error, want one", tc.pdu, tc.n)
		}
	}
}

// TestList: AT+CMGL=4 with a URC between entries and a two-line +CMT URC.
func TestList(t *testing.T) {
	const pdu1 = "07919471060040F0040C919471062143650000521020719444800AE8329BFD4697D9EC37"
	const pdu2 = "07919471060040F006270C919471062143655210207194448052102071944480"
	tr := newTranscript(t,
		step{expect: "AT+CMGL=4\r", reply: "\r\n+CMGL: 1,0,,36\r\n" + pdu1 +
			"\r\n+CMTI: \"SM\",4\r\n\r\n+CMT: ,36\r\n" + pdu1 +
			"\r\n+CMGL: 4,1,\"a,b\",25\r\n" + pdu2 + "\r\n\r\nOK\r\n"},
		step{expect: "AT+CMGD=1\r", reply: ok()},
	)
	got, err := tr.List(context.Background())
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	want := []Stored{{1, 0, 36, pdu1}, {4, 1, 25, pdu2}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("List = %+v, want %+v", got, want)
	}
	if err := tr.Delete(context.Background(), 1); err != nil {
		t.Errorf("Delete: %v", err)
	}
	wantURC := `+CMTI: "SM",4|+CMT: ,36` + "\n" + pdu1
	if u := strings.Join(tr.urcs(), "|"); u != wantURC {
		t.Errorf("URCs = %q, want %q", u, wantURC)
	}
}

// TestSendPDUOKWithoutPrompt: a bare OK where the prompt should be (the
// late answer to an earlier command) submitted nothing: transient, not
// unknown.
func TestSendPDUOKWithoutPrompt(t *testing.T) {
	tr := newTranscript(t,
		step{expect: "AT+CMGS=20\r", reply: ok("+CMGS: 17")},
		step{expect: "\x1b"},
	)
	_, err := tr.SendPDU(context.Background(), testPDU, testLen)
	var np *NoPromptError
	if !errors.As(err, &np) || !IsTransient(err) || errors.Is(err, ErrUnknownOutcome) {
		t.Fatalf("SendPDU error = %v, want a transient NoPromptError", err)
	}
}

// failingWriter is a device that was unplugged: every write fails.
type failingWriter struct{ io.Reader }

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.EIO }

// TestSendPDUWriteFails: a write that fails (the device is gone) is
// ErrClosed, transient: nothing was submitted, another modem may send it.
func TestSendPDUWriteFails(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	m := New(failingWriter{pr}, Options{})
	defer m.Close()
	_, err := m.SendPDU(context.Background(), testPDU, testLen)
	if !errors.Is(err, ErrClosed) || !IsTransient(err) || errors.Is(err, ErrUnknownOutcome) {
		t.Fatalf("SendPDU error = %v, want a transient ErrClosed", err)
	}
}

// TestRedact: a PIN is masked wherever it appears in a logged line.
func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		`> AT+CPIN="4711"`:                                 `> AT+CPIN="****"`,
		`< at+cpin="4711" (echo)`:                          `< at+cpin="****"`,
		`dropped "AT+CPIN=\"4711\"": no command in flight`: `dropped "AT+CPIN="****"`,
		`< +CPIN: READY`:                                   `< +CPIN: READY`,
		// Bytes that are not UTF-8 before the command (line noise) must
		// not shift where the PIN is cut: ToUpper would widen them.
		"< \xff\xfeAT+CPIN=\"4711\"":           "< \xff\xfeAT+CPIN=\"****\"",
		"\xff\xff\xff\xff\xffAT+CPIN=\"4711\"": "\xff\xff\xff\xff\xffAT+CPIN=\"****\"",
	} {
		if got := redact(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
}
