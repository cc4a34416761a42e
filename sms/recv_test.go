package sms

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"calq/internal/exitcode"
	"calq/sms/at"
	"calq/sms/emu"
	"calq/sms/pdu"
	"calq/sms/store"
)

// recvT0 is the receive tests' epoch.
var recvT0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// recvClock is an injected clock the tests move by hand.
type recvClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *recvClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *recvClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// recvReport is V20 of testdata/pdu-vectors.tsv: a STATUS-REPORT for MR
// 24 to 50131, delivered (ST 0).
const recvReport = "0791538375000075061805810531F1019082416500400190824165004000"

// recvLong is a text of three GSM 7-bit parts.
var recvLong = strings.Repeat("abcdefghij", 40)

// recvDeliver encodes text from sender as DELIVER PDUs with reference ref.
func recvDeliver(t *testing.T, from, text string, ref int) []string {
	t.Helper()
	ps, err := pdu.EncodeDeliver(from, text, time.Date(2025, 2, 28, 9, 30, 0, 0, time.FixedZone("", 3600)),
		pdu.DeliverOptions{Ref: ref})
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// recvSetup starts an emulated modem holding inbox and dials it; the
// inbox is the in-memory store.
func recvSetup(t *testing.T, inbox []string) (*emu.Emulator, *Conn, *store.Mem) {
	t.Helper()
	ctx := context.Background()
	e, err := emu.Start(ctx, emu.Options{Inbox: inbox})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	c, err := Dial(ctx, ModemSpec{Name: "m0", Device: e.Devices()[0]}, at.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return e, c, store.NewMem(nil)
}

// recvSummary renders entries compactly for comparison.
func recvSummary(ins []Inbound) []string {
	var s []string
	for _, in := range ins {
		switch in.Kind {
		case "report":
			s = append(s, fmt.Sprintf("report %s mr=%d %s", in.From, in.MR, in.Outcome))
		default:
			missing := strings.ReplaceAll(strings.Trim(fmt.Sprint(in.Missing), "[]"), " ", ",")
			s = append(s, fmt.Sprintf("message %s %d/%d missing=%s %s", in.From, in.Parts, in.Total, missing, in.Text))
		}
	}
	return s
}

func recvCheck(t *testing.T, what string, got []Inbound, want []string) {
	t.Helper()
	if g := recvSummary(got); !slices.Equal(g, want) {
		t.Errorf("%s:\ngot  %q\nwant %q", what, g, want)
	}
}

// TestReceive: a single message, a 3-part message and a status report on
// one modem come out as two messages and a report, in the order they were
// filed (the long message once complete); the
// modem is empty afterwards and a second run hands out nothing.
func TestReceive(t *testing.T) {
	ctx := context.Background()
	inbox := append(recvDeliver(t, "+491701234567", "hello", 0), recvDeliver(t, "+491709876543", recvLong, 42)...)
	inbox = append(inbox, recvReport)
	_, c, j := recvSetup(t, inbox)
	clk := &recvClock{now: recvT0}
	got, err := Receive(ctx, []*Conn{c}, j, RecvOptions{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	recvCheck(t, "first Receive", got, []string{
		"message +491701234567 1/1 missing= hello",
		"report 50131 mr=24 delivered",
		"message +491709876543 3/3 missing= " + recvLong, // filed when complete
	})
	if got[0].Sent.Format(time.RFC3339) != "2025-02-28T09:30:00+01:00" || got[0].Modem != "m0" {
		t.Errorf("first message sent %v on %q, want 2025-02-28T09:30:00+01:00 on m0", got[0].Sent, got[0].Modem)
	}
	if left, err := c.Modem.List(ctx); err != nil || len(left) != 0 {
		t.Errorf("modem after Receive holds %v, %v; want nothing", left, err)
	}
	again, err := Receive(ctx, []*Conn{c}, j, RecvOptions{Now: clk.Now})
	if err != nil || len(again) != 0 {
		t.Errorf("second Receive = %v, %v; want nothing", recvSummary(again), err)
	}
}

// TestReceiveKeep: --keep leaves the messages on the modem and
// undelivered; a later run without it hands each out once.
func TestReceiveKeep(t *testing.T) {
	ctx := context.Background()
	_, c, j := recvSetup(t, recvDeliver(t, "+491701234567", "hello", 0))
	want := []string{"message +491701234567 1/1 missing= hello"}
	for i := range 2 {
		got, err := Receive(ctx, []*Conn{c}, j, RecvOptions{Keep: true})
		if err != nil {
			t.Fatal(err)
		}
		recvCheck(t, fmt.Sprintf("Receive --keep #%d", i+1), got, want)
	}
	if left, _ := c.Modem.List(ctx); len(left) != 1 {
		t.Errorf("modem after --keep holds %d messages, want 1", len(left))
	}
	got, err := Receive(ctx, []*Conn{c}, j, RecvOptions{})
	if err != nil {
		t.Fatal(err)
	}
	recvCheck(t, "Receive after --keep", got, want)
	if got, _ := Receive(ctx, []*Conn{c}, j, RecvOptions{}); len(got) != 0 {
		t.Errorf("last Receive = %q, want nothing", recvSummary(got))
	}
}

// TestReceiveReassemblyTimeout: parts 1 and 3 of 3 wait for part 2 until
// the timeout, then come out as they are, naming part 2 missing; part 3
// arriving twice counts once.
func TestReceiveReassemblyTimeout(t *testing.T) {
	ctx := context.Background()
	parts := recvDeliver(t, "+491709876543", recvLong, 7)
	e, c, j := recvSetup(t, []string{parts[0], parts[2]})
	clk := &recvClock{now: recvT0}
	o := RecvOptions{Now: clk.Now, ReassemblyTimeout: time.Hour}
	if got, err := Receive(ctx, []*Conn{c}, j, o); err != nil || len(got) != 0 {
		t.Fatalf("Receive with part 2 missing = %q, %v; want nothing yet", recvSummary(got), err)
	}
	clk.Add(59 * time.Minute)
	if _, err := e.Plant(e.Devices()[0], parts[2]); err != nil { // a resend of part 3
		t.Fatal(err)
	}
	if got, err := Receive(ctx, []*Conn{c}, j, o); err != nil || len(got) != 0 {
		t.Fatalf("Receive before the timeout = %q, %v; want nothing yet", recvSummary(got), err)
	}
	clk.Add(time.Minute)
	got, err := Receive(ctx, []*Conn{c}, j, o)
	if err != nil {
		t.Fatal(err)
	}
	recvCheck(t, "Receive at the timeout", got, []string{
		"message +491709876543 2/3 missing=2 " + recvLong[:153] + recvLong[306:],
	})
}

// TestReceiveReassemblyAcrossRuns: the parts of a message arriving in
// separate runs are joined when the last arrives, in order.
func TestReceiveReassemblyAcrossRuns(t *testing.T) {
	ctx := context.Background()
	parts := recvDeliver(t, "+491709876543", recvLong, 9)
	e, c, j := recvSetup(t, []string{parts[2]})
	for _, p := range []string{parts[1], parts[0]} {
		if got, err := Receive(ctx, []*Conn{c}, j, RecvOptions{}); err != nil || len(got) != 0 {
			t.Fatalf("Receive with parts missing = %q, %v; want nothing yet", recvSummary(got), err)
		}
		if _, err := e.Plant(e.Devices()[0], p); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Receive(ctx, []*Conn{c}, j, RecvOptions{})
	if err != nil {
		t.Fatal(err)
	}
	recvCheck(t, "Receive of the last part", got, []string{"message +491709876543 3/3 missing= " + recvLong})
}

// TestReceiveHandlerFails: an entry whose handler fails is not marked
// delivered and comes again next time; the error wraps ErrPartial when
// others went through.
func TestReceiveHandlerFails(t *testing.T) {
	ctx := context.Background()
	inbox := append(recvDeliver(t, "+4911", "one", 0), recvDeliver(t, "+4922", "two", 0)...)
	_, c, j := recvSetup(t, inbox)
	boom := errors.New("boom")
	var seen []string
	o := RecvOptions{Handle: func(_ context.Context, in Inbound) error {
		seen = append(seen, in.Text)
		if in.Text == "two" {
			return boom
		}
		return nil
	}}
	got, err := Receive(ctx, []*Conn{c}, j, o)
	if !errors.Is(err, boom) || !errors.Is(err, exitcode.ErrPartial) {
		t.Errorf("Receive error = %v, want boom and ErrPartial", err)
	}
	recvCheck(t, "handed out", got, []string{"message +4911 1/1 missing= one"})
	o.Handle = func(_ context.Context, in Inbound) error { seen = append(seen, in.Text); return nil }
	got, err = Receive(ctx, []*Conn{c}, j, o)
	if err != nil {
		t.Fatal(err)
	}
	recvCheck(t, "retried", got, []string{"message +4922 1/1 missing= two"})
	if want := []string{"one", "two", "two"}; !slices.Equal(seen, want) {
		t.Errorf("handler saw %q, want %q", seen, want)
	}
}

// TestReceiveBadPDU: an undecodable PDU is kept in the journal as bad,
// deleted from the modem and reported to Warn; the others go through.
func TestReceiveBadPDU(t *testing.T) {
	ctx := context.Background()
	bad := "0004" // an SMSC field and a DELIVER first octet, then nothing
	_, c, j := recvSetup(t, append([]string{bad}, recvDeliver(t, "+4911", "ok", 0)...))
	var warnings []error
	got, err := Receive(ctx, []*Conn{c}, j, RecvOptions{Warn: func(err error) { warnings = append(warnings, err) }})
	if err != nil {
		t.Fatal(err)
	}
	recvCheck(t, "Receive", got, []string{"message +4911 1/1 missing= ok"})
	var de *pdu.DecodeError
	if len(warnings) != 1 || !errors.As(warnings[0], &de) {
		t.Errorf("warnings = %v, want one *pdu.DecodeError", warnings)
	}
	if ps, _ := j.UnfiledInboxPDUs(ctx); len(ps) != 0 {
		t.Errorf("unfiled PDUs after Receive: %v, want none", ps)
	}
}

// TestInboundJSON: a report carries mr and status even when they are 0; a
// message carries neither.
func TestInboundJSON(t *testing.T) {
	for _, tc := range []struct {
		in          Inbound
		want, avoid string
	}{
		{Inbound{Kind: store.KindReport, ID: 2, MR: 0, Status: 0, Outcome: "delivered"}, `"mr":0,"status":0}`, ""},
		{Inbound{Kind: store.KindReport, ID: 3, MR: 24, Status: 70, Outcome: "failed"}, `"mr":24,"status":70}`, ""},
		{Inbound{Kind: store.KindMessage, ID: 1, Text: "hi"}, `"text":"hi"`, `"mr"`},
	} {
		b, err := json.Marshal(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), tc.want) || (tc.avoid != "" && strings.Contains(string(b), tc.avoid)) {
			t.Errorf("%s: got %s, want %s and no %s", tc.in.Kind, b, tc.want, tc.avoid)
		}
	}
}

// TestReports: a status report received after a part was accepted is
// matched to it by modem, reference and recipient; one for another
// reference is not.
func TestReports(t *testing.T) {
	ctx := context.Background()
	jn := store.NewMem(nil)
	ids, err := jn.AddSMS(ctx, []store.SMSMessage{{To: "50131", Text: "x",
		Parts: []store.SMSPart{{Seq: 1, Total: 2, Hex: "00", TPDULength: 1}, {Seq: 2, Total: 2, Hex: "00", TPDULength: 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	for seq, mr := range map[int]int{1: 24, 2: 25} {
		if _, err := jn.SMSPartAccepted(ctx, ids[0], seq, "m0", mr); err != nil {
			t.Fatal(err)
		}
	}
	later := time.Now().Add(time.Minute)
	for _, e := range []store.InboxEntry{
		{Kind: store.KindReport, Modem: "m0", Sender: "50131", MR: 24, ST: 0, Received: later},
		{Kind: store.KindReport, Modem: "m0", Sender: "50131", MR: 99, ST: 70, Received: later},
	} {
		if _, err := jn.AddInboxEntry(ctx, e, nil); err != nil {
			t.Fatal(err)
		}
	}
	m, err := jn.SMS(ctx, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	got, err := Reports(ctx, jn, m)
	if err != nil || len(got) != 1 || got[0].Seq != 1 || got[0].Outcome != "delivered" {
		t.Fatalf("Reports = %+v, %v; want part 1 delivered only", got, err)
	}
}
