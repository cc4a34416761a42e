package emu

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Vectors from ../testdata/pdu-vectors.tsv (V1, a SUBMIT; V13 and V16,
// DELIVERs).
const (
	submitV1  = "0001000B917228001011F100000CC8329BFD065DDF72363904" // AT+CMGS=24
	deliverV1 = "06917228195339040B917228214365F70000313062315352800A800D8A5E98D337A910"
	deliverV2 = "07919730071111F10414D04937BD2C7797E9D3E614000811309291024061080442043504410442"
)

// safety is how long a read may block before the test fails instead of
// hanging; no assertion depends on it.
const safety = 20 * time.Second

// syncBuffer is a log that the modems write while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) records(t *testing.T) []Record {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var recs []Record
	for _, line := range strings.SplitAfter(b.buf.String(), "\n") {
		if line == "" {
			continue
		}
		if !strings.HasSuffix(line, "\n") {
			t.Fatalf("log line %q is not terminated", line)
		}
		var r Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		recs = append(recs, r)
	}
	return recs
}

// start runs an emulator for the test and returns it with its log.
func start(t *testing.T, o Options) (*Emulator, *syncBuffer) {
	t.Helper()
	log := &syncBuffer{}
	o.Log = log
	e, err := Start(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return e, log
}

// client is a test's end of an emulated modem: plain os.OpenFile on the
// pseudo-terminal, byte-exact expectations.
type client struct {
	t *testing.T
	f *os.File
}

func dial(t *testing.T, device string) *client {
	t.Helper()
	f, err := os.OpenFile(device, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return &client{t: t, f: f}
}

func (c *client) send(s string) {
	c.t.Helper()
	if _, err := c.f.WriteString(s); err != nil {
		c.t.Fatalf("write %q: %v", s, err)
	}
}

// expect reads exactly len(want) bytes and compares them with want.
func (c *client) expect(want string) {
	c.t.Helper()
	c.f.SetReadDeadline(time.Now().Add(safety))
	got := make([]byte, len(want))
	n, err := io.ReadFull(c.f, got)
	if err != nil || string(got) != want {
		c.t.Fatalf("read %q (%v), want %q", got[:n], err, want)
	}
}

// do sends cmd + CR and expects the echo-less response.
func (c *client) do(cmd, want string) {
	c.t.Helper()
	c.send(cmd + "\r")
	c.expect(want)
}

func TestSession(t *testing.T) {
	e, _ := start(t, Options{})
	c := dial(t, e.Devices()[0])
	// Echo is on until ATE0, as on real modems; ESC outside a prompt is
	// ignored.
	c.send("\x1bAT\r")
	c.expect("AT\r\r\nOK\r\n")
	c.send("ATE0\r")
	c.expect("ATE0\r\r\nOK\r\n")
	for _, tc := range []struct{ cmd, want string }{
		{"AT", "\r\nOK\r\n"},
		{"at+cmee=1", "\r\nOK\r\n"},
		{"AT+CPIN?", "\r\n+CPIN: READY\r\n\r\nOK\r\n"},
		{"AT+CMGF=0", "\r\nOK\r\n"},
		{"AT+CMGF=1", "\r\n+CMS ERROR: 303\r\n"},
		{"AT+CMGF=?", "\r\n+CMGF: (0)\r\n\r\nOK\r\n"},
		{"AT+CSCA?", "\r\n+CSCA: \"+491710760000\",145\r\n\r\nOK\r\n"},
		{`AT+CSCA="+4917",145`, "\r\nOK\r\n"},
		{"AT+CSCA?", "\r\n+CSCA: \"+4917\",145\r\n\r\nOK\r\n"},
		{"AT+CPMS=?", "\r\n+CPMS: (\"SM\"),(\"SM\"),(\"SM\")\r\n\r\nOK\r\n"},
		{`AT+CPMS="SM","SM","SM"`, "\r\n+CPMS: 0,50,0,50,0,50\r\n\r\nOK\r\n"},
		{`AT+CPMS="ME"`, "\r\n+CMS ERROR: 302\r\n"},
		{"AT+CPMS?", "\r\n+CPMS: \"SM\",0,50,\"SM\",0,50,\"SM\",0,50\r\n\r\nOK\r\n"},
		{"AT+CNMI=2,1,0,2,0", "\r\nOK\r\n"},
		{"AT+CNMI?", "\r\n+CNMI: 2,1,0,2,0\r\n\r\nOK\r\n"},
		{"AT+CREG?", "\r\n+CREG: 0,1\r\n\r\nOK\r\n"},
		{"AT+CEREG=2", "\r\nOK\r\n"},
		{"AT+CEREG?", "\r\n+CEREG: 2,1\r\n\r\nOK\r\n"},
		{"AT+CSQ", "\r\n+CSQ: 20,99\r\n\r\nOK\r\n"},
		{"AT+CGMI", "\r\ncalq\r\n\r\nOK\r\n"},
		{"AT+CGMM", "\r\ncalq-emu\r\n\r\nOK\r\n"},
		{"AT+CGSN", "\r\n356999000000003\r\n\r\nOK\r\n"},
		{"AT+CIMI", "\r\n262010000000000\r\n\r\nOK\r\n"},
		{"AT+CSCS=\"UCS2\"", "\r\nOK\r\n"},
		{"AT+CSCS?", "\r\n+CSCS: \"UCS2\"\r\n\r\nOK\r\n"},
		{"AT+CSQ;+CGMI", "\r\n+CSQ: 20,99\r\ncalq\r\n\r\nOK\r\n"},
		{"ATE0V1Q0", "\r\nOK\r\n"},
		{"AT+BOGUS", "\r\n+CME ERROR: 100\r\n"},
		{"AT+CMEE=2", "\r\nOK\r\n"},
		{"AT+BOGUS", "\r\n+CME ERROR: unknown\r\n"},
		{"AT+CMEE=0", "\r\nOK\r\n"},
		{"AT+BOGUS", "\r\nERROR\r\n"},
		{"AT+CMGR=1", "\r\n+CMS ERROR: 321\r\n"},
		{"ATZ", "\r\nOK\r\n"},
		{"AT", "AT\r\r\nOK\r\n"}, // ATZ turned echo back on
	} {
		c.do(tc.cmd, tc.want)
	}
}

func TestIMEI(t *testing.T) {
	for i := range 20 {
		s := imei(i)
		sum := 0
		for k, r := range s {
			d := int(r - '0')
			if k%2 == 1 {
				if d *= 2; d > 9 {
					d -= 9
				}
			}
			sum += d
		}
		if len(s) != 15 || sum%10 != 0 {
			t.Errorf("imei(%d) = %s: not 15 digits with a Luhn check digit", i, s)
		}
	}
}

func TestPIN(t *testing.T) {
	e, _ := start(t, Options{PIN: "1234"})
	c := dial(t, e.Devices()[0])
	c.do("ATE0", "ATE0\r\r\nOK\r\n")
	c.do("AT+CMEE=1", "\r\nOK\r\n")
	c.do("AT+CPIN?", "\r\n+CPIN: SIM PIN\r\n\r\nOK\r\n")
	c.do("AT+CMGS=24", "\r\n+CMS ERROR: 311\r\n")
	c.do("AT+CMGL=4", "\r\n+CMS ERROR: 311\r\n")
	c.do("AT+CIMI", "\r\n+CME ERROR: 11\r\n")
	c.do(`AT+CPIN="0000"`, "\r\n+CME ERROR: 16\r\n")
	c.do(`AT+CPIN="1234"`, "\r\nOK\r\n")
	c.do("AT+CPIN?", "\r\n+CPIN: READY\r\n\r\nOK\r\n")
	c.do("AT+CMGL=4", "\r\nOK\r\n")
}

func TestSubmit(t *testing.T) {
	e, log := start(t, Options{Modems: 2})
	dev := e.Devices()
	c := dial(t, dev[1])
	// With echo on, the PDU is echoed too; the prompt has no line ending.
	c.send("AT+CMGS=24\r")
	c.expect("AT+CMGS=24\r\r\n> ")
	c.send(strings.ToLower(submitV1) + "\x1a")
	c.expect(strings.ToLower(submitV1) + "\r\n+CMGS: 0\r\n\r\nOK\r\n")
	c.do("ATE0", "ATE0\r\r\nOK\r\n")
	e.modems[1].mr = 255 // the reference wraps around
	for _, mr := range []int{255, 0} {
		c.do("AT+CMGS=24", "\r\n> ")
		c.send(submitV1 + "\x1a")
		c.expect(fmt.Sprintf("\r\n+CMGS: %d\r\n\r\nOK\r\n", mr))
	}
	want := []Record{{dev[1], 0, submitV1}, {dev[1], 255, submitV1}, {dev[1], 0, submitV1}}
	if got := log.records(t); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("log = %v, want %v", got, want)
	}
}

func TestSubmitRejected(t *testing.T) {
	e, log := start(t, Options{})
	c := dial(t, e.Devices()[0])
	c.do("ATE0", "ATE0\r\r\nOK\r\n")
	for _, tc := range []struct {
		name, cmd, pdu, want string
	}{
		{"length too long", "AT+CMGS=25", submitV1 + "\x1a", "\r\n+CMS ERROR: 304\r\n"},
		{"length too short", "AT+CMGS=23", submitV1 + "\x1a", "\r\n+CMS ERROR: 304\r\n"},
		{"not hex", "AT+CMGS=24", "00" + strings.Repeat("ZZ", 24) + "\x1a", "\r\n+CMS ERROR: 304\r\n"},
		{"a DELIVER", fmt.Sprintf("AT+CMGS=%d", len(deliverV1)/2-7), "00" + deliverV1[14:] + "\x1a", "\r\n+CMS ERROR: 304\r\n"},
		{"ESC cancels", "AT+CMGS=24", submitV1[:10] + "\x1b", "\r\nOK\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.t = t
			c.do(tc.cmd, "\r\n> ")
			c.send(tc.pdu)
			c.expect(tc.want)
		})
	}
	c.t = t
	c.do("AT+CMGS=0", "\r\n+CMS ERROR: 304\r\n")
	if got := log.records(t); len(got) != 0 {
		t.Errorf("log = %v, want nothing", got)
	}
}

func TestFailRate(t *testing.T) {
	for _, tc := range []struct {
		rate float64
		want string
	}{
		{1, "\r\n+CMS ERROR: 500\r\n"},
		{0, "\r\n+CMGS: 0\r\n\r\nOK\r\n"},
	} {
		e, log := start(t, Options{FailRate: tc.rate, Seed: 1})
		c := dial(t, e.Devices()[0])
		c.do("ATE0", "ATE0\r\r\nOK\r\n")
		c.do("AT+CMGS=24", "\r\n> ")
		c.send(submitV1 + "\x1a")
		c.expect(tc.want)
		if got, want := len(log.records(t)), int(1-tc.rate); got != want {
			t.Errorf("rate %v: %d log lines, want %d", tc.rate, got, want)
		}
	}
}
