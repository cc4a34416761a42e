package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestOutboxRecord: a recorded message is queued with pending parts,
// whatever the caller said, and the filters select by state, due time
// and the newest n.
func TestOutboxRecord(t *testing.T) { eachStore(t, testOutboxRecord) }

func testOutboxRecord(t *testing.T, s contract, _ *clock) {
	ctx := context.Background()
	later := t0.Add(time.Hour)
	ids, err := s.AddSMS(ctx, []SMSMessage{
		{To: "+4911", Text: "now", State: SMSSent, Parts: []SMSPart{part(1, 2), part(2, 2)}},
		{To: "+4922", Text: "later", Options: `{"flash":true}`, NotBefore: later, Parts: []SMSPart{part(1, 1)}},
	})
	if err != nil || len(ids) != 2 || ids[1] <= ids[0] {
		t.Fatalf("AddSMS = %v, %v; want two rising ids", ids, err)
	}
	m := getSMS(t, s, ids[0])
	if m.State != SMSQueued || m.Options != "{}" || !m.Created.Equal(t0) || !m.Updated.Equal(t0) || len(m.Parts) != 2 ||
		m.Parts[0].State != SMSPending || m.Parts[0].MR != -1 || m.Parts[1].Seq != 2 {
		t.Errorf("recorded message = %+v", m)
	}
	if m := getSMS(t, s, ids[1]); !m.NotBefore.Equal(later) || m.Options != `{"flash":true}` {
		t.Errorf("second message = %+v, want not before %v and its options", m, later)
	}
	due, err := s.ListSMS(ctx, SMSFilter{State: SMSQueued, DueUntil: t0})
	if err != nil || len(due) != 1 || due[0].ID != ids[0] {
		t.Errorf("due at t0: %+v, %v; want the first only", due, err)
	}
	newest, err := s.ListSMS(ctx, SMSFilter{Limit: 1})
	if err != nil || len(newest) != 1 || newest[0].ID != ids[1] {
		t.Errorf("newest 1: %+v, %v; want the second", newest, err)
	}
	if none, err := s.ListSMS(ctx, SMSFilter{State: SMSSent}); err != nil || len(none) != 0 {
		t.Errorf("sent: %+v, %v; want none", none, err)
	}
	if _, err := s.SMS(ctx, ids[1]+100); !errors.Is(err, ErrNoSMS) {
		t.Errorf("SMS(missing) error = %v, want ErrNoSMS", err)
	}
}

// TestOutboxSettle: a message settles once no part is pending or being
// sent: sent when every part was accepted, unknown when some went out
// without an answer. Only queued messages change.
func TestOutboxSettle(t *testing.T) { eachStore(t, testOutboxSettle) }

func testOutboxSettle(t *testing.T, s contract, clk *clock) {
	ctx := context.Background()
	id := addOne(t, s, SMSMessage{To: "+4911", Text: "two", Parts: []SMSPart{part(1, 2), part(2, 2)}})
	must(t, s.SMSPartSending(ctx, id, 1, "m0"))
	if done, err := s.SMSPartAccepted(ctx, id, 1, "m0", 5); err != nil || done {
		t.Fatalf("first part accepted: done %v, %v; want not yet", done, err)
	}
	must(t, s.SMSPartSending(ctx, id, 2, "m0"))
	if done, err := s.SettleSMS(ctx, id); err != nil || done {
		t.Fatalf("settle while part 2 is being sent: %v, %v; want not yet", done, err)
	}
	clk.Set(t0.Add(time.Minute))
	if done, err := s.SMSPartAccepted(ctx, id, 2, "m0", 6); err != nil || !done {
		t.Fatalf("last part accepted: done %v, %v; want done", done, err)
	}
	m := getSMS(t, s, id)
	if m.State != SMSSent || m.Modem != "m0" || m.Reason != "" || !m.Updated.Equal(t0.Add(time.Minute)) ||
		m.Parts[0].MR != 5 || m.Parts[1].MR != 6 || m.Parts[1].State != SMSAccepted {
		t.Errorf("sent message = %+v", m)
	}
	if changed, err := s.FinishSMS(ctx, id, SMSFailed, "late"); err != nil || changed {
		t.Errorf("FinishSMS of a sent message: changed %v, %v; want unchanged", changed, err)
	}

	id = addOne(t, s, SMSMessage{To: "+4911", Text: "dup", Parts: []SMSPart{part(1, 2), part(2, 2)}})
	if _, err := s.SMSPartAccepted(ctx, id, 1, "m1", 9); err != nil {
		t.Fatal(err)
	}
	must(t, s.SMSPartUnknownRetry(ctx, id, 2, "m1", "no answer"))
	if m := getSMS(t, s, id); m.State != SMSQueued || m.Parts[1].State != SMSUnknown || m.Parts[1].Reason != "no answer" {
		t.Errorf("after an unknown part to retry: %+v, want queued with the part unknown", m)
	}
	if done, err := s.SettleSMS(ctx, id); err != nil || !done {
		t.Fatalf("settle with an unknown part: %v, %v; want done", done, err)
	}
	if m := getSMS(t, s, id); m.State != SMSUnknown || m.Reason != "unknown: some parts went out without an answer" || m.Modem != "" {
		t.Errorf("settled with an unknown part: %+v", m)
	}
}

// TestOutboxFail: a failed or unknown part ends its queued message with
// the reason; a part goes back to pending only from pending, sending or
// unknown; FinishSMS ends a queued message once.
func TestOutboxFail(t *testing.T) { eachStore(t, testOutboxFail) }

func testOutboxFail(t *testing.T, s contract, _ *clock) {
	ctx := context.Background()
	id := addOne(t, s, SMSMessage{To: "+4911", Text: "x", Parts: []SMSPart{part(1, 1)}})
	must(t, s.SMSPartSending(ctx, id, 1, "m0"))
	must(t, s.SMSPartPending(ctx, id, 1))
	if m := getSMS(t, s, id); m.Parts[0].State != SMSPending || m.Parts[0].Modem != "m0" {
		t.Errorf("part back to pending: %+v", m.Parts[0])
	}
	if err := s.SMSPartFailed(ctx, id, 1, SMSSent, "m0", "x"); err == nil {
		t.Error("SMSPartFailed with state sent succeeded")
	}
	must(t, s.SMSPartFailed(ctx, id, 1, SMSFailed, "m2", "+CMS ERROR: 500"))
	m := getSMS(t, s, id)
	if m.State != SMSFailed || m.Reason != "+CMS ERROR: 500" || m.Modem != "m2" || m.Parts[0].State != SMSFailed {
		t.Errorf("failed message = %+v", m)
	}
	must(t, s.SMSPartPending(ctx, id, 1)) // a failed part stays failed
	if m := getSMS(t, s, id); m.Parts[0].State != SMSFailed {
		t.Errorf("a failed part went back to %s", m.Parts[0].State)
	}

	id = addOne(t, s, SMSMessage{To: "+4911", Text: "y", Parts: []SMSPart{part(1, 1)}})
	if changed, err := s.FinishSMS(ctx, id, SMSFailed, "its job failed"); err != nil || !changed {
		t.Errorf("FinishSMS of a queued message: %v, %v; want changed", changed, err)
	}
	if changed, err := s.FinishSMS(ctx, id, SMSUnknown, "again"); err != nil || changed {
		t.Errorf("second FinishSMS: %v, %v; want unchanged", changed, err)
	}
	if m := getSMS(t, s, id); m.State != SMSFailed || m.Reason != "its job failed" {
		t.Errorf("finished message = %+v", m)
	}

	// A modem at the wrong speed answers bytes that are not UTF-8: the
	// reason keeps them as escapes, where PostgreSQL refused the update.
	id = addOne(t, s, SMSMessage{To: "+4911", Text: "z", Parts: []SMSPart{part(1, 1)}})
	must(t, s.SMSPartFailed(ctx, id, 1, SMSFailed, "m3", "modem said \xfe\xff\x00"))
	if m := getSMS(t, s, id); m.Reason != `modem said \xfe\xff\x00` || m.Parts[0].Reason != m.Reason {
		t.Errorf("reason with bytes: message %q, part %q; want them escaped", m.Reason, m.Parts[0].Reason)
	}
}
