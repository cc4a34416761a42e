package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestRecordInboxPDUs: a PDU listed again in the same slot while on the
// modem is the same row; one no longer listed is marked deleted; after
// that, the same PDU in the same slot is a new row.
func TestRecordInboxPDUs(t *testing.T) { eachStore(t, testRecordInboxPDUs) }

func testRecordInboxPDUs(t *testing.T, j contract, _ *clock) {
	ctx := context.Background()
	first, err := j.RecordInboxPDUs(ctx, "m0", []InboxSlot{{1, "00aa"}, {2, "00BB"}}, t0)
	if err != nil {
		t.Fatal(err)
	}
	again, err := j.RecordInboxPDUs(ctx, "m0", []InboxSlot{{1, "00AA"}, {2, "00BB"}}, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	for i := range first {
		if again[i].ID != first[i].ID || !again[i].Received.Equal(t0) {
			t.Errorf("listed again: row %d = %+v, want the first listing's %+v", i, again[i], first[i])
		}
	}
	if _, err := j.RecordInboxPDUs(ctx, "m1", []InboxSlot{{1, "00AA"}}, t0); err != nil {
		t.Fatal(err)
	}
	// Slot 1 left m0 unseen; slot 2 is still there.
	if _, err := j.RecordInboxPDUs(ctx, "m0", []InboxSlot{{2, "00BB"}}, t0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	reused, err := j.RecordInboxPDUs(ctx, "m0", []InboxSlot{{1, "00AA"}, {2, "00BB"}}, t0.Add(3*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if reused[0].ID == first[0].ID || reused[1].ID != first[1].ID {
		t.Errorf("after slot 1 was gone: ids %d %d, want a new one and %d", reused[0].ID, reused[1].ID, first[1].ID)
	}
	ps, err := j.UnfiledInboxPDUs(ctx)
	if err != nil || len(ps) != 4 {
		t.Errorf("UnfiledInboxPDUs = %d rows (%v), want 4 (m0 twice in slot 1, once in 2; m1)", len(ps), err)
	}
}

// TestMatchReport: reports are found by modem, reference and recipient
// digits, received at or after the time given; the first such wins.
func TestMatchReport(t *testing.T) { eachStore(t, testMatchReport) }

func testMatchReport(t *testing.T, j contract, _ *clock) {
	ctx := context.Background()
	add := func(modem, ra string, mr, st int, received time.Time) int64 {
		id, err := j.AddInboxEntry(ctx, InboxEntry{Kind: KindReport, Modem: modem, Sender: ra, MR: mr, ST: st,
			Received: received, DT: time.Date(2025, 3, 1, 13, 0, 0, 0, time.FixedZone("", 3600))}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	add("m0", "+491701111", 7, 0, t0.Add(-time.Hour)) // an earlier message with the same MR
	want := add("m0", "+491701111", 7, 70, t0.Add(time.Minute))
	add("m0", "+491701111", 7, 0, t0.Add(2*time.Minute))
	add("m1", "+491701111", 7, 0, t0.Add(time.Minute))
	add("m0", "+491702222", 8, 0, t0.Add(time.Minute))
	tests := []struct {
		name   string
		modem  string
		mr     int
		ra     string
		wantID int64 // 0: none
	}{
		{"same number", "m0", 7, "0049 170 1111", want},
		{"any recipient", "m0", 7, "", want},
		{"other recipient", "m0", 7, "+491702222", 0},
		{"other modem", "m2", 7, "", 0},
		{"other reference", "m0", 9, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok, err := j.MatchReport(ctx, tt.modem, tt.mr, tt.ra, t0)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantID == 0 {
				if ok {
					t.Errorf("MatchReport = %+v, want none", e)
				}
				return
			}
			if !ok || e.ID != tt.wantID || e.ST != 70 || e.DT.Format(time.RFC3339) != "2025-03-01T13:00:00+01:00" {
				t.Errorf("MatchReport = %+v, %v; want id %d, st 70, dt 13:00+01:00", e, ok, tt.wantID)
			}
		})
	}
}

func TestSameNumber(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"+491701234567", "00491701234567", true},
		{"+491701234567", "01701234567", true},
		{"+49 170 1234567", "+491701234567", true},
		{"50131", "50131", true},
		{"50131", "+4950131", false}, // too short to match by suffix
		{"+491701234567", "+491701234568", false},
		{"", "+491701234567", false},
	}
	for _, tt := range tests {
		if got := SameNumber(tt.a, tt.b); got != tt.want {
			t.Errorf("SameNumber(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestInboxEntries: entries keep their fields, NewInboxEntries drops the
// delivered ones, and the schema survives reopening.
func TestInboxEntries(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "calq.db")
	j := openAt(t, path, newClock())
	ps, err := j.RecordInboxPDUs(ctx, "m0", []InboxSlot{{1, "0011"}, {3, "0033"}}, t0)
	if err != nil {
		t.Fatal(err)
	}
	scts := time.Date(2025, 2, 28, 9, 30, 0, 0, time.FixedZone("", -5*3600))
	in := InboxEntry{Kind: KindMessage, Modem: "m0", Sender: "+4911", Text: "a…c", SCTS: scts, Received: t0,
		Parts: 2, Total: 3, Missing: []int{2}}
	id, err := j.AddInboxEntry(ctx, in, []int64{ps[0].ID, ps[1].ID})
	if err != nil {
		t.Fatal(err)
	}
	j.jn.Close()
	j = openAt(t, path, newClock())
	es, err := j.NewInboxEntries(ctx)
	if err != nil || len(es) != 1 {
		t.Fatalf("NewInboxEntries = %+v, %v; want one", es, err)
	}
	got := es[0]
	if got.ID != id || got.Text != in.Text || !got.SCTS.Equal(scts) || got.SCTS.Format(time.RFC3339) != scts.Format(time.RFC3339) ||
		!got.Received.Equal(t0) || got.Parts != 2 || got.Total != 3 || len(got.Missing) != 1 || got.Missing[0] != 2 {
		t.Errorf("entry = %+v, want %+v", got, in)
	}
	if un, _ := j.UnfiledInboxPDUs(ctx); len(un) != 0 {
		t.Errorf("its PDUs are still unfiled: %+v", un)
	}
	if err := j.MarkInboxDelivered(ctx, id, t0); err != nil {
		t.Fatal(err)
	}
	if es, _ := j.NewInboxEntries(ctx); len(es) != 0 {
		t.Errorf("NewInboxEntries after delivery = %+v, want none", es)
	}
}

// TestAddInboxEntryOnce: two processes filing the same PDUs (a daemon and
// calq sms recv) make one entry; the second gets id 0.
func TestAddInboxEntryOnce(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "calq.db")
	a, b := openAt(t, path, newClock()), openAt(t, path, newClock())
	ps, err := a.RecordInboxPDUs(ctx, "m0", []InboxSlot{{1, "0011"}}, t0)
	if err != nil {
		t.Fatal(err)
	}
	e := InboxEntry{Kind: KindMessage, Modem: "m0", Sender: "+4911", Text: "once", Received: t0, Parts: 1, Total: 1}
	first, err := a.AddInboxEntry(ctx, e, []int64{ps[0].ID})
	if err != nil || first == 0 {
		t.Fatalf("first filing: %d, %v", first, err)
	}
	second, err := b.AddInboxEntry(ctx, e, []int64{ps[0].ID})
	if err != nil || second != 0 {
		t.Fatalf("second filing: %d, %v; want 0, nil", second, err)
	}
	if es, err := b.NewInboxEntries(ctx); err != nil || len(es) != 1 {
		t.Fatalf("entries %+v, %v; want one", es, err)
	}
}

// TestMatchReportWrapped: message references wrap; a report that came
// after the modem accepted a later part with the same reference belongs
// to that part, not to the earlier one.
func TestMatchReportWrapped(t *testing.T) { eachStore(t, testMatchReportWrapped) }

func testMatchReportWrapped(t *testing.T, j contract, clk *clock) {
	ctx := context.Background()
	ids, err := j.AddSMS(ctx, []SMSMessage{
		{To: "+491701111", Text: "a", Parts: []SMSPart{{Seq: 1, Total: 1, Hex: "00", TPDULength: 1}}},
		{To: "+491701111", Text: "b", Parts: []SMSPart{{Seq: 1, Total: 1, Hex: "00", TPDULength: 1}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.SMSPartAccepted(ctx, ids[0], 1, "m0", 7); err != nil { // at t0
		t.Fatal(err)
	}
	clk.Set(t0.Add(time.Hour)) // 256 messages later, the reference comes round
	if _, err := j.SMSPartAccepted(ctx, ids[1], 1, "m0", 7); err != nil {
		t.Fatal(err)
	}
	rep, err := j.AddInboxEntry(ctx, InboxEntry{Kind: KindReport, Modem: "m0", Sender: "+491701111", MR: 7,
		Received: t0.Add(time.Hour + time.Minute)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e, ok, err := j.MatchReport(ctx, "m0", 7, "+491701111", t0); err != nil || ok {
		t.Errorf("the earlier part: got %+v, %v, %v; want no report", e, ok, err)
	}
	if e, ok, err := j.MatchReport(ctx, "m0", 7, "+491701111", t0.Add(time.Hour)); err != nil || !ok || e.ID != rep {
		t.Errorf("the later part: got %+v, %v, %v; want report %d", e, ok, err, rep)
	}
}
