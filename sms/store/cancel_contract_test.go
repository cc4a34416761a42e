package store

import (
	"context"
	"errors"
	"testing"
)

// TestOutboxCancel: a queued message none of whose parts went to a modem
// is cancelled, at once and for good: no part of it is sent afterwards.
// A message with a part being sent or accepted, or settled, is not.
func TestOutboxCancel(t *testing.T) { eachStore(t, testOutboxCancel) }

func testOutboxCancel(t *testing.T, s contract, _ *clock) {
	ctx := context.Background()
	two := func() int64 {
		return addOne(t, s, SMSMessage{To: "+4911", Text: "x", Parts: []SMSPart{part(1, 2), part(2, 2)}})
	}
	tests := []struct {
		name    string
		before  func(id int64)
		want    bool
		wantMsg string
	}{
		{"pending", func(int64) {}, true, SMSCancelled},
		{"part being sent", func(id int64) { must(t, s.SMSPartSending(ctx, id, 1, "m0")) }, false, SMSQueued},
		{"part accepted", func(id int64) { _, err := s.SMSPartAccepted(ctx, id, 1, "m0", 7); must(t, err) }, false, SMSQueued},
		{"part back to pending", func(id int64) {
			must(t, s.SMSPartSending(ctx, id, 1, "m0"))
			must(t, s.SMSPartPending(ctx, id, 1))
		}, true, SMSCancelled},
		{"failed", func(id int64) { must(t, s.SMSPartFailed(ctx, id, 1, SMSFailed, "m0", "+CMS ERROR: 38")) }, false, SMSFailed},
		{"cancelled already", func(id int64) {
			if ok, err := s.CancelSMS(ctx, id); !ok || err != nil {
				t.Fatalf("first CancelSMS = %v, %v", ok, err)
			}
		}, false, SMSCancelled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := two()
			tt.before(id)
			ok, err := s.CancelSMS(ctx, id)
			if err != nil || ok != tt.want {
				t.Errorf("CancelSMS = %v, %v, want %v", ok, err, tt.want)
			}
			if m := getSMS(t, s, id); m.State != tt.wantMsg {
				t.Errorf("state after CancelSMS = %s, want %s", m.State, tt.wantMsg)
			}
		})
	}
	id := two()
	if ok, err := s.CancelSMS(ctx, id); !ok || err != nil {
		t.Fatalf("CancelSMS = %v, %v", ok, err)
	}
	// A worker that read the message before it was cancelled must not
	// send it: marking a part as being sent is refused.
	if err := s.SMSPartSending(ctx, id, 1, "m0"); !errors.Is(err, ErrNotQueued) {
		t.Errorf("SMSPartSending of a cancelled message = %v, want ErrNotQueued", err)
	}
	if m := getSMS(t, s, id); m.Parts[0].State != SMSPending {
		t.Errorf("part of a cancelled message = %s, want pending", m.Parts[0].State)
	}
	if _, err := s.CancelSMS(ctx, id+100); !errors.Is(err, ErrNoSMS) {
		t.Errorf("CancelSMS(missing) = %v, want ErrNoSMS", err)
	}
}
