package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestSpoolForward: messages spooled on this machine reach the shared
// outbox once each, with their options, parts, --at and spool time, even
// when a forward died between the insert there and the delete here;
// messages spooled for another database stay.
func TestSpoolForward(t *testing.T) {
	ctx := context.Background()
	local := openTemp(t, newClock())
	sp, err := OpenSpool(ctx, local.jn)
	must(t, err)
	shared := openPG(t, newClock())
	const addr, other = "postgres://calq@db1/calq", "postgres://calq@db2/calq"

	at := t0.Add(time.Hour)
	msgs := []SMSMessage{
		{To: "+15550001", Text: "disk full", Options: `{"flash":true,"priority":"P0"}`, Parts: []SMSPart{part(1, 1)}},
		{To: "+15550002", Text: "long", Options: `{"priority":"P2"}`, NotBefore: at, Parts: []SMSPart{part(1, 2), part(2, 2)}},
	}
	spooled, err := sp.Add(ctx, addr, msgs, t0)
	must(t, err)
	_, err = sp.Add(ctx, other, msgs[:1], t0)
	must(t, err)
	if len(spooled) != 2 || spooled[0].Key == spooled[1].Key || spooled[0].ID == 0 {
		t.Fatalf("spooled %+v, want 2 with their own keys and ids", spooled)
	}

	// A forward that inserted the first message and died before it
	// dropped it from the spool.
	id, err := shared.AddSpooled(ctx, spooled[0].Key, spooled[0].Message)
	must(t, err)
	if id == 0 {
		t.Fatal("AddSpooled of a new key recorded nothing")
	}
	ids, err := sp.Forward(ctx, addr, shared)
	must(t, err)
	if len(ids) != 1 {
		t.Fatalf("forward recorded %v, want one message (the other was there already)", ids)
	}
	ms, err := shared.ListSMS(ctx, SMSFilter{Limit: 10})
	must(t, err)
	if len(ms) != 2 {
		t.Fatalf("the shared outbox holds %d messages, want 2", len(ms))
	}
	byTo := map[string]SMSMessage{}
	for _, m := range ms {
		byTo[m.To] = m
	}
	for _, want := range msgs {
		got := byTo[want.To]
		if got.State != SMSQueued || got.Text != want.Text || got.Options != want.Options || !got.NotBefore.Equal(want.NotBefore) ||
			len(got.Parts) != len(want.Parts) || !got.Created.Equal(t0) {
			t.Errorf("shared %s: got %+v, want %+v queued, created %v", want.To, got, want, t0)
		}
	}
	if left, err := sp.List(ctx, addr); err != nil || len(left) != 0 {
		t.Errorf("the spool still holds %d for %s (%v), want none", len(left), addr, err)
	}
	if left, err := sp.List(ctx, other); err != nil || len(left) != 1 {
		t.Errorf("the spool holds %d for %s (%v), want its 1 still", len(left), other, err)
	}

	// Forwarding again, or the same key again, records nothing.
	if ids, err := sp.Forward(ctx, addr, shared); err != nil || len(ids) != 0 {
		t.Errorf("a second forward recorded %v (%v), want nothing", ids, err)
	}
	if id, err := shared.AddSpooled(ctx, spooled[1].Key, spooled[1].Message); err != nil || id != 0 {
		t.Errorf("AddSpooled of a forwarded key: %d, %v; want 0, nil", id, err)
	}
	if ms, _ := shared.ListSMS(ctx, SMSFilter{Limit: 10}); len(ms) != 2 {
		t.Errorf("the shared outbox holds %d messages, want still 2", len(ms))
	}
	if _, err := local.AddSpooled(ctx, "k", msgs[0]); !errors.Is(err, ErrNotShared) {
		t.Errorf("AddSpooled on SQLite: %v, want ErrNotShared", err)
	}
}

// TestSpoolOldParts: a message an older calq spooled, its parts' length
// written "tpdu_len", is listed and forwarded with that length, the
// <length> of AT+CMGS that sending it needs.
func TestSpoolOldParts(t *testing.T) {
	ctx := context.Background()
	local := openTemp(t, newClock())
	sp, err := OpenSpool(ctx, local.jn)
	must(t, err)
	const addr = "postgres://calq@db1/calq"
	old := `{"id":0,"created":"2026-01-02T03:04:05Z","to":"+15550001","text":"disk full","options":"{}",` +
		`"state":"queued","updated":"0001-01-01T00:00:00Z","parts":[{"seq":1,"total":1,"ref":0,"hex":"0011","tpdu_len":23,` +
		`"state":"","mr":0,"updated":"0001-01-01T00:00:00Z"}]}`
	must(t, local.jn.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO sms_spool (key, address, created, message) VALUES ('k1', ?, ?, ?)`,
			addr, "2026-01-02T03:04:05Z", old)
		return err
	}))
	sps, err := sp.List(ctx, addr)
	must(t, err)
	if len(sps) != 1 || len(sps[0].Message.Parts) != 1 || sps[0].Message.Parts[0].TPDULength != 23 {
		t.Fatalf("spooled = %+v, want one message whose part is 23 octets", sps)
	}
	shared := openPG(t, newClock())
	ids, err := sp.Forward(ctx, addr, shared)
	must(t, err)
	if len(ids) != 1 {
		t.Fatalf("forwarded %v, want one message", ids)
	}
	m, err := shared.SMS(ctx, ids[0])
	must(t, err)
	if len(m.Parts) != 1 || m.Parts[0].TPDULength != 23 || m.Parts[0].Hex != "0011" {
		t.Errorf("shared outbox holds %+v, want its part of 23 octets", m.Parts)
	}
}

// TestSMSPartJSON: a part is written with calq's one spelling,
// tpdu_length, and read from that or from the tpdu_len an older calq
// wrote (tpdu_length first when both are there).
func TestSMSPartJSON(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     int
	}{
		{"current", `{"seq":1,"tpdu_length":23}`, 23},
		{"older calq", `{"seq":1,"tpdu_len":17}`, 17},
		{"both", `{"seq":1,"tpdu_length":23,"tpdu_len":17}`, 23},
		{"neither", `{"seq":1}`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p SMSPart
			if err := json.Unmarshal([]byte(tc.in), &p); err != nil || p.TPDULength != tc.want || p.Seq != 1 {
				t.Errorf("Unmarshal(%s) = %+v, %v; want TPDULength %d, Seq 1", tc.in, p, err, tc.want)
			}
		})
	}
	b, err := json.Marshal(SMSPart{Seq: 1, TPDULength: 23})
	must(t, err)
	if s := string(b); !strings.Contains(s, `"tpdu_length":23`) || strings.Contains(s, "tpdu_len\"") {
		t.Errorf("Marshal = %s, want tpdu_length alone", s)
	}
	if err := json.Unmarshal([]byte(`{"tpdu_len":"x"}`), new(SMSPart)); err == nil {
		t.Error("Unmarshal of a tpdu_len that is no number: no error")
	}
}
