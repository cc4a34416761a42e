package emu

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"calq/sms/pdu"
)

// reportT0 is the emulator's clock in the report tests.
var reportT0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// srrSubmit is a SUBMIT to +4915112345678 that asks for a status report.
func srrSubmit(t *testing.T) pdu.Part {
	t.Helper()
	parts, _, err := pdu.EncodeSubmit("+4915112345678", "report me", pdu.SubmitOptions{Report: true})
	if err != nil || len(parts) != 1 {
		t.Fatalf("EncodeSubmit: %v, %v", parts, err)
	}
	return parts[0]
}

// wantReport is the report the emulator owes for reference mr with
// status st, at reportT0.
func wantReport(t *testing.T, mr, st int) string {
	t.Helper()
	h, err := pdu.EncodeStatusReport(pdu.StatusReport{SMSC: "+491710760000", MR: mr,
		RA: pdu.Address{Number: "+4915112345678", TOA: pdu.TOAInternational}, SCTS: reportT0, DT: reportT0, ST: st})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// submitSRR sends p and expects +CMGS: mr and OK.
func (c *client) submitSRR(p pdu.Part, mr int) {
	c.t.Helper()
	c.do(fmt.Sprintf("AT+CMGS=%d", p.TPDULength), "\r\n> ")
	c.send(p.Hex + "\x1a")
	c.expect(fmt.Sprintf("\r\n+CMGS: %d\r\n\r\nOK\r\n", mr))
}

// TestReportRouting: a SUBMIT with TP-SRR gets its status report as
// AT+CNMI's <ds> says: +CDS with the PDU (not stored), stored and
// announced with +CDSI, or stored silently; a stored one is listed and
// read like a received message.
func TestReportRouting(t *testing.T) {
	p := srrSubmit(t)
	rep := wantReport(t, 0, 0)
	n := len(rep)/2 - 8 // the TPDU after the SMSC field (8 octets)
	listed := fmt.Sprintf("\r\n+CMGL: 1,0,,%d\r\n%s\r\n\r\nOK\r\n", n, rep)
	for _, tc := range []struct {
		name, cnmi, urc, list string
	}{
		{"ds=1: +CDS", "AT+CNMI=2,1,0,1,0", fmt.Sprintf("\r\n+CDS: %d\r\n%s\r\n", n, rep), "\r\nOK\r\n"},
		{"ds=2: stored, +CDSI", "AT+CNMI=2,1,0,2,0", "\r\n+CDSI: \"SM\",1\r\n", listed},
		{"ds=0: stored silently", "AT+CNMI=2,1,0,0,0", "", listed},
		{"mode 0: stored, no buffer for +CDS", "AT+CNMI=0,0,0,1,0", "", listed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := start(t, Options{Now: func() time.Time { return reportT0 }})
			c := dial(t, e.Devices()[0])
			c.do("ATE0", "ATE0\r\r\nOK\r\n")
			c.do(tc.cnmi, "\r\nOK\r\n")
			c.submitSRR(p, 0)
			c.expect(tc.urc)
			c.do("AT+CMGL=4", tc.list)
		})
	}
}

// TestReportCDSOnly: a modem that cannot store reports refuses <ds>=2
// and says so in AT+CNMI=?; <ds>=1 gives +CDS.
func TestReportCDSOnly(t *testing.T) {
	e, _ := start(t, Options{CDSOnly: true, Now: func() time.Time { return reportT0 }})
	c := dial(t, e.Devices()[0])
	c.do("ATE0", "ATE0\r\r\nOK\r\n")
	c.do("AT+CNMI=?", "\r\n+CNMI: (0-2),(0-3),(0-3),(0,1),(0,1)\r\n\r\nOK\r\n")
	c.do("AT+CNMI=2,1,0,2,0", "\r\n+CMS ERROR: 303\r\n")
	c.do("AT+CNMI=2,1,0,1,0", "\r\nOK\r\n")
	c.submitSRR(srrSubmit(t), 0)
	rep := wantReport(t, 0, 0)
	c.expect(fmt.Sprintf("\r\n+CDS: %d\r\n%s\r\n", len(rep)/2-8, rep))
}

// TestReportRead: a stored report is read with AT+CMGR (stat 0 first,
// then 1) and decodes as the SUBMIT's: its reference and recipient.
func TestReportRead(t *testing.T) {
	e, _ := start(t, Options{Now: func() time.Time { return reportT0 }})
	c := dial(t, e.Devices()[0])
	c.do("ATE0", "ATE0\r\r\nOK\r\n")
	c.do("AT+CNMI=2,1,0,2,0", "\r\nOK\r\n")
	e.modems[0].mu.Lock()
	e.modems[0].mr = 41
	e.modems[0].mu.Unlock()
	c.submitSRR(srrSubmit(t), 41)
	c.expect("\r\n+CDSI: \"SM\",1\r\n")
	rep := wantReport(t, 41, 0)
	c.do("AT+CMGR=1", fmt.Sprintf("\r\n+CMGR: 0,,%d\r\n%s\r\n\r\nOK\r\n", len(rep)/2-8, rep))
	c.do("AT+CMGR=1", fmt.Sprintf("\r\n+CMGR: 1,,%d\r\n%s\r\n\r\nOK\r\n", len(rep)/2-8, rep))
	m, err := pdu.Decode(rep, pdu.MT)
	if err != nil || m.Type != "STATUS-REPORT" || m.MR != 41 || m.RA != "+4915112345678" || m.ST != 0 {
		t.Errorf("decoded %+v, %v; want a STATUS-REPORT for MR 41 to +4915112345678, delivered", m, err)
	}
}

// TestReportOnlyWhenAsked: a SUBMIT without TP-SRR, or one refused, gets
// no report.
func TestReportOnlyWhenAsked(t *testing.T) {
	e, _ := start(t, Options{})
	c := dial(t, e.Devices()[0])
	c.do("ATE0", "ATE0\r\r\nOK\r\n")
	c.do("AT+CNMI=2,1,0,2,0", "\r\nOK\r\n")
	c.do("AT+CMGS=24", "\r\n> ")
	c.send(submitV1 + "\x1a")
	c.expect("\r\n+CMGS: 0\r\n\r\nOK\r\n")
	e.Inject(e.Devices()[0], Fault{CMSError: 38})
	p := srrSubmit(t)
	c.do(fmt.Sprintf("AT+CMGS=%d", p.TPDULength), "\r\n> ")
	c.send(p.Hex + "\x1a")
	c.expect("\r\n+CMS ERROR: 38\r\n")
	c.do("AT+CMGL=4", "\r\nOK\r\n") // nothing was stored or announced before it
}

// TestReportFailRate: the status says delivered (0) or failed
// (ReportFailed) at the rate set; the same seed gives the same
// sequence.
func TestReportFailRate(t *testing.T) {
	statuses := func(rate float64, seed uint64) string {
		log := &syncBuffer{}
		e, _ := start(t, Options{ReportFailRate: rate, Seed: seed, ReportLog: log})
		c := dial(t, e.Devices()[0])
		c.do("ATE0", "ATE0\r\r\nOK\r\n")
		c.do("AT+CNMI=2,1,0,0,0", "\r\nOK\r\n")
		for mr := range 8 {
			c.submitSRR(srrSubmit(t), mr)
		}
		var sts []string
		for _, h := range c.listed() {
			m, err := pdu.Decode(h, pdu.MT)
			if err != nil {
				t.Fatal(err)
			}
			sts = append(sts, fmt.Sprint(m.ST))
		}
		if got := strings.Count(log.String(), `"via":"stored"`); got != 8 {
			t.Errorf("rate %v: %d reports logged as stored, want 8:\n%s", rate, got, log.String())
		}
		return strings.Join(sts, ",")
	}
	if got, want := statuses(0, 1), "0,0,0,0,0,0,0,0"; got != want {
		t.Errorf("rate 0: statuses %s, want %s", got, want)
	}
	if got, want := statuses(1, 1), "64,64,64,64,64,64,64,64"; got != want {
		t.Errorf("rate 1: statuses %s, want %s", got, want)
	}
	half := statuses(0.5, 7)
	if half != statuses(0.5, 7) || !strings.Contains(half, "64") || !strings.Contains(half, "0,") {
		t.Errorf("rate 0.5, seed 7: %s, want the same mix of 0 and 64 twice", half)
	}
}

// TestReportDelay: a report waits for ReportDelay (the injected timer),
// and not for it with the device closed.
func TestReportDelay(t *testing.T) {
	fire := make(chan time.Time)
	asked := make(chan time.Duration, 1)
	e, _ := start(t, Options{ReportDelay: 2 * time.Second, After: func(d time.Duration) <-chan time.Time {
		asked <- d
		return fire
	}})
	c := dial(t, e.Devices()[0])
	c.do("ATE0", "ATE0\r\r\nOK\r\n")
	c.do("AT+CNMI=2,1,0,2,0", "\r\nOK\r\n")
	c.submitSRR(srrSubmit(t), 0)
	if d := <-asked; d != 2*time.Second {
		t.Errorf("the report waited for %v, want 2s", d)
	}
	c.do("AT+CMGL=4", "\r\nOK\r\n") // not yet: the timer has not fired
	fire <- reportT0
	c.expect("\r\n+CDSI: \"SM\",1\r\n")
}

// TestReportOptions: a fail rate outside 0..1 or a negative delay is
// refused by name.
func TestReportOptions(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{ReportFailRate: 1.5}, "emu: report fail rate 1.5 is not between 0 and 1"},
		{Options{ReportFailRate: -0.1}, "emu: report fail rate -0.1 is not between 0 and 1"},
		{Options{ReportDelay: -time.Second}, "emu: negative report delay -1s"},
	} {
		if _, err := Start(t.Context(), tc.o); err == nil || err.Error() != tc.want {
			t.Errorf("Start(%+v): got %v, want %q", tc.o, err, tc.want)
		}
	}
}

// listed lists the modem's memory with AT+CMGL=4 and returns the PDUs.
func (c *client) listed() []string {
	c.t.Helper()
	c.send("AT+CMGL=4\r")
	var got []byte
	b := make([]byte, 1)
	c.f.SetReadDeadline(time.Now().Add(safety))
	for !strings.HasSuffix(string(got), "\r\nOK\r\n") {
		if _, err := c.f.Read(b); err != nil {
			c.t.Fatalf("AT+CMGL=4: read %q: %v", got, err)
		}
		got = append(got, b[0])
	}
	var pdus []string
	lines := strings.Split(strings.TrimSpace(string(got)), "\r\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "+CMGL:") && i+1 < len(lines) {
			pdus = append(pdus, lines[i+1])
		}
	}
	return pdus
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
