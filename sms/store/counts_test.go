package store

import (
	"context"
	"maps"
	"testing"
)

// TestCounts: the outbox by state and by modem and state, the inbox by
// kind; an empty store counts nothing.
func TestCounts(t *testing.T) { eachStore(t, testCounts) }

func testCounts(t *testing.T, s contract, _ *clock) {
	ctx := context.Background()
	if c, err := s.Counts(ctx); err != nil || len(c.Outbox) != 0 || len(c.ByModem) != 0 || c.Inbox != 0 || c.Reports != 0 {
		t.Fatalf("Counts of an empty store = %+v, %v; want nothing", c, err)
	}
	one := []SMSPart{part(1, 1)}
	ids, err := s.AddSMS(ctx, []SMSMessage{{To: "+4911", Text: "a", Parts: one}, {To: "+4922", Text: "b", Parts: one},
		{To: "+4933", Text: "c", Parts: one}, {To: "+4944", Text: "d", Parts: one}})
	must(t, err)
	must(t, s.SMSPartFailed(ctx, ids[3], 1, SMSFailed, "m1", "CMS ERROR 38"))
	if _, err := s.FinishSMS(ctx, ids[0], SMSFailed, "no credit"); err != nil {
		t.Fatal(err)
	}
	must(t, s.SMSPartSending(ctx, ids[1], 1, "m0"))
	if done, err := s.SMSPartAccepted(ctx, ids[1], 1, "m0", 3); err != nil || !done {
		t.Fatalf("SMSPartAccepted = %v, %v; want the message done", done, err)
	}
	ps, err := s.RecordInboxPDUs(ctx, "m0", []InboxSlot{{1, "0011"}, {2, "0022"}, {3, "0033"}}, t0)
	must(t, err)
	for n, e := range []InboxEntry{
		{Kind: KindMessage, Modem: "m0", Sender: "+4911", Text: "hi", Received: t0, Parts: 1, Total: 1},
		{Kind: KindMessage, Modem: "m0", Sender: "+4922", Text: "ho", Received: t0, Parts: 1, Total: 1},
		{Kind: KindReport, Modem: "m0", Sender: "+4922", Received: t0, Parts: 1, Total: 1, MR: 3},
	} {
		if _, err := s.AddInboxEntry(ctx, e, []int64{ps[n].ID}); err != nil {
			t.Fatalf("AddInboxEntry %d: %v", n, err)
		}
	}
	c, err := s.Counts(ctx)
	must(t, err)
	want := map[string]int{SMSQueued: 1, SMSSent: 1, SMSFailed: 2}
	if !maps.Equal(c.Outbox, want) || c.Inbox != 2 || c.Reports != 1 {
		t.Errorf("Counts = %+v, want outbox %v, 2 messages and 1 report in", c, want)
	}
	wantModems := map[string]map[string]int{"m0": {SMSSent: 1}, "m1": {SMSFailed: 1}}
	if !maps.EqualFunc(c.ByModem, wantModems, maps.Equal) {
		t.Errorf("Counts.ByModem = %v, want %v (the message failed before any modem had it is nobody's)", c.ByModem, wantModems)
	}
}
