package store

import (
	"context"
	"testing"
	"time"
)

// TestInboxParts: a PDU held as a part waits in order with the others
// of its message, and leaves the unfiled ones; an entry made of parts
// files them, once.
func TestInboxParts(t *testing.T) { eachStore(t, testInboxParts) }

func testInboxParts(t *testing.T, s contract, _ *clock) {
	ctx := context.Background()
	ps, err := s.RecordInboxPDUs(ctx, "m0", []InboxSlot{{1, "0011"}, {2, "0022"}, {3, "0033"}}, t0)
	if err != nil || len(ps) != 3 {
		t.Fatalf("RecordInboxPDUs = %+v, %v", ps, err)
	}
	scts := time.Date(2025, 2, 28, 9, 30, 0, 0, time.FixedZone("", 3600))
	must(t, s.HoldInboxPart(ctx, InboxPart{PDUID: ps[1].ID, Sender: "+4911", Ref: 7, Total: 2, Seq: 2, Text: "b", SCTS: scts}))
	must(t, s.HoldInboxPart(ctx, InboxPart{PDUID: ps[0].ID, Sender: "+4911", Ref: 7, Total: 2, Seq: 1, Text: "a", SCTS: scts}))
	must(t, s.SetInboxPDUState(ctx, ps[2].ID, "bad", "not a PDU"))
	if err := s.SetInboxPDUState(ctx, ps[2].ID, "done", ""); err == nil {
		t.Error(`SetInboxPDUState("done") succeeded`)
	}
	parts, err := s.InboxParts(ctx)
	if err != nil || len(parts) != 2 || parts[0].Seq != 1 || parts[1].Text != "b" || parts[0].Modem != "m0" ||
		!parts[0].Received.Equal(t0) || !parts[0].SCTS.Equal(scts) {
		t.Errorf("InboxParts = %+v, %v; want parts 1 and 2 of ref 7", parts, err)
	}
	if un, err := s.UnfiledInboxPDUs(ctx); err != nil || len(un) != 0 {
		t.Errorf("unfiled = %+v, %v; want none", un, err)
	}
	e := InboxEntry{Kind: KindMessage, Modem: "m0", Sender: "+4911", Text: "ab", Received: t0, Parts: 2, Total: 2}
	id, err := s.AddInboxEntry(ctx, e, []int64{ps[0].ID, ps[1].ID})
	if err != nil || id == 0 {
		t.Fatalf("AddInboxEntry = %d, %v", id, err)
	}
	if again, err := s.AddInboxEntry(ctx, e, []int64{ps[0].ID, ps[1].ID}); err != nil || again != 0 {
		t.Errorf("filing the same parts again = %d, %v; want 0", again, err)
	}
	if parts, _ := s.InboxParts(ctx); len(parts) != 0 {
		t.Errorf("parts after filing: %+v", parts)
	}
	if _, err := s.AddInboxEntry(ctx, InboxEntry{Kind: "note"}, nil); err == nil {
		t.Error(`AddInboxEntry of kind "note" succeeded`)
	}
	es, err := s.NewInboxEntries(ctx)
	if err != nil || len(es) != 1 || es[0].ID != id || es[0].MR != 0 || es[0].Missing != nil {
		t.Fatalf("NewInboxEntries = %+v, %v", es, err)
	}
	must(t, s.MarkInboxDelivered(ctx, id, t0))
	if es, _ := s.NewInboxEntries(ctx); len(es) != 0 {
		t.Errorf("new entries after delivery: %+v", es)
	}
}
