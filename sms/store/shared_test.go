package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestRebind(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"WHERE a = ? AND b = ?", "WHERE a = $1 AND b = $2"},
		{"VALUES (?1, ?2, ?1)", "VALUES ($1, $2, $1)"},
		{"WHERE a = '?' AND b = ?", "WHERE a = '?' AND b = $1"},
		{`SELECT "a?" FROM t WHERE x = ?`, `SELECT "a?" FROM t WHERE x = $1`},
		{"SELECT 1 -- why?\nWHERE a = ?", "SELECT 1 -- why?\nWHERE a = $1"},
		{"WHERE a = $1", "WHERE a = $1"},
		{"WHERE a = 'unterminated ?", "WHERE a = 'unterminated ?"},
		{"SELECT 5 - 3 WHERE a = ?", "SELECT 5 - 3 WHERE a = $1"},
	} {
		if got := rebind(tc.in); got != tc.want {
			t.Errorf("rebind(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestShared: on PostgreSQL, daemons claiming at once get different
// messages, a lapsed claim is taken over, a modem is held by one daemon
// per host and device, and releasing gives everything back.
func TestShared(t *testing.T) {
	ctx := context.Background()
	s := openPG(t, newClock())
	var msgs []SMSMessage
	for range 10 {
		msgs = append(msgs, SMSMessage{To: "+15550001", Text: "hi", Parts: []SMSPart{part(1, 1)}})
	}
	ids, err := s.AddSMS(ctx, msgs)
	must(t, err)

	a, err := s.ClaimDueSMS(ctx, "a", nil, 4, time.Hour)
	must(t, err)
	b, err := s.ClaimDueSMS(ctx, "b", nil, 100, time.Hour)
	must(t, err)
	if len(a) != 4 || len(b) != 6 || a[0].ID != ids[0] || b[0].ID != ids[4] || len(b[0].Parts) != 1 {
		t.Fatalf("a claimed %d from %d, b %d from %d; want 4 from the first, the other 6", len(a), a[0].ID, len(b), b[0].ID)
	}
	if c, err := s.ClaimDueSMS(ctx, "c", nil, 100, time.Hour); err != nil || len(c) != 0 {
		t.Fatalf("c claimed %d (%v), want none: all are claimed", len(c), err)
	}
	// a's claims lapse: c takes them; b's stay.
	if _, err := s.pg.db.ExecContext(ctx, `UPDATE sms_messages SET owner_until = now() - interval '1 second' WHERE owner = 'a'`); err != nil {
		t.Fatal(err)
	}
	if c, err := s.ClaimDueSMS(ctx, "c", nil, 100, time.Hour); err != nil || len(c) != 4 {
		t.Fatalf("c claimed %d (%v) after a's lapsed, want 4", len(c), err)
	}
	// A settled message is no longer claimed.
	must(t, s.SMSPartSending(ctx, b[0].ID, 1, "m"))
	if _, err := s.SMSPartAccepted(ctx, b[0].ID, 1, "m", 7); err != nil {
		t.Fatal(err)
	}
	must(t, s.ReleaseHolds(ctx, "b"))
	if d, err := s.ClaimDueSMS(ctx, "d", nil, 100, time.Hour); err != nil || len(d) != 5 {
		t.Fatalf("d claimed %d (%v) after b released, want b's 5 queued ones", len(d), err)
	}
	// A message whose first part went out through alpha's modem is left
	// to a daemon that has that modem.
	two, err := s.AddSMS(ctx, []SMSMessage{{To: "+15550002", Text: "long", Parts: []SMSPart{part(1, 2), part(2, 2)}}})
	must(t, err)
	if _, err := s.SMSPartAccepted(ctx, two[0], 1, "alpha/ttyUSB0", 9); err != nil {
		t.Fatal(err)
	}
	if e, err := s.ClaimDueSMS(ctx, "e", []string{"beta/ttyUSB0"}, 100, time.Hour); err != nil || len(e) != 0 {
		t.Errorf("beta's daemon claimed %d (%v), want none: the message's first part went through alpha", len(e), err)
	}
	if f, err := s.ClaimDueSMS(ctx, "f", []string{"alpha/ttyUSB0"}, 100, time.Hour); err != nil || len(f) != 1 || f[0].ID != two[0] {
		t.Errorf("alpha's daemon claimed %d (%v), want the long message", len(f), err)
	}

	h := func(host string) []ModemHold {
		return []ModemHold{{Host: host, Device: "/dev/ttyUSB0", Name: host + "/ttyUSB0"}}
	}
	must(t, s.HoldModems(ctx, "a", h("alpha"), time.Hour))
	must(t, s.HoldModems(ctx, "b", h("beta"), time.Hour))
	must(t, s.HoldModems(ctx, "a", h("alpha"), time.Hour)) // again: its own
	if err := s.HoldModems(ctx, "c", h("alpha"), time.Hour); !errors.Is(err, ErrHeld) {
		t.Errorf("c's hold of alpha's modem: %v, want ErrHeld", err)
	}
	held, err := s.ModemsHeld(ctx)
	if err != nil || len(held) != 2 || held[0].Owner != "a" || held[1].Host != "beta" {
		t.Fatalf("ModemsHeld = %+v, %v", held, err)
	}
	if n, err := s.RenewHolds(ctx, "a", nil, time.Hour); err != nil || n != 1 {
		t.Errorf("RenewHolds(a) = %d, %v; want 1", n, err)
	}
	must(t, s.ReleaseHolds(ctx, "a"))
	must(t, s.HoldModems(ctx, "c", h("alpha"), time.Hour))
	if n, err := s.RenewHolds(ctx, "a", nil, time.Hour); err != nil || n != 0 {
		t.Errorf("RenewHolds(a) after its release = %d, %v; want 0", n, err)
	}
}

// TestNotShared: the SQLite store says it is not shared.
func TestNotShared(t *testing.T) {
	s := openTemp(t, newClock())
	if s.Shared() {
		t.Fatal("a SQLite store says it is shared")
	}
	if _, err := s.ClaimDueSMS(context.Background(), "a", nil, 1, time.Second); !errors.Is(err, ErrNotShared) {
		t.Errorf("ClaimDueSMS on SQLite: %v, want ErrNotShared", err)
	}
}

// TestClaimLost: a daemon's store marks a part sending only while the
// daemon's claim on the message holds.
func TestClaimLost(t *testing.T) {
	ctx := context.Background()
	s := openPG(t, newClock())
	ids, err := s.AddSMS(ctx, []SMSMessage{{To: "+15550001", Text: "a", Parts: []SMSPart{part(1, 2), part(2, 2)}}})
	must(t, err)
	s.SetOwner("a")
	if err := s.SMSPartSending(ctx, ids[0], 1, "m"); !errors.Is(err, ErrClaimLost) {
		t.Fatalf("sending an unclaimed message: %v, want ErrClaimLost", err)
	}
	if ms, err := s.ClaimDueSMS(ctx, "a", nil, 1, time.Hour); err != nil || len(ms) != 1 {
		t.Fatalf("claim: %d, %v", len(ms), err)
	}
	must(t, s.SMSPartSending(ctx, ids[0], 1, "m"))
	// a's claim lapses and b takes the message: a may not send part 2.
	if _, err := s.pg.db.ExecContext(ctx, `UPDATE sms_messages SET owner_until = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	if ms, err := s.ClaimDueSMS(ctx, "b", nil, 1, time.Hour); err != nil || len(ms) != 1 {
		t.Fatalf("b's claim: %d, %v", len(ms), err)
	}
	if err := s.SMSPartSending(ctx, ids[0], 2, "m"); !errors.Is(err, ErrClaimLost) {
		t.Errorf("sending after the claim went to b: %v, want ErrClaimLost", err)
	}
	if m, err := s.SMS(ctx, ids[0]); err != nil || m.Parts[1].State != SMSPending {
		t.Errorf("part 2 is %s (%v), want pending", m.Parts[1].State, err)
	}
}

// TestRenewHolds: a daemon renews its claims only on the messages it
// names (those it is sending); its other claims lapse for other daemons.
func TestRenewHolds(t *testing.T) {
	ctx := context.Background()
	s := openPG(t, newClock())
	ids, err := s.AddSMS(ctx, []SMSMessage{{To: "+15550001", Text: "a", Parts: []SMSPart{part(1, 1)}},
		{To: "+15550002", Text: "b", Parts: []SMSPart{part(1, 1)}}})
	must(t, err)
	if ms, err := s.ClaimDueSMS(ctx, "a", nil, 2, time.Minute); err != nil || len(ms) != 2 {
		t.Fatalf("claim: %d, %v", len(ms), err)
	}
	if _, err := s.RenewHolds(ctx, "a", ids[:1], time.Hour); err != nil {
		t.Fatal(err)
	}
	rows, err := s.pg.db.QueryContext(ctx, `SELECT id FROM sms_messages WHERE owner_until > now() + interval '30 minutes' ORDER BY id`)
	must(t, err)
	var renewed []int64
	for rows.Next() {
		var id int64
		must(t, rows.Scan(&id))
		renewed = append(renewed, id)
	}
	rows.Close()
	if len(renewed) != 1 || renewed[0] != ids[0] {
		t.Errorf("renewed %v, want only %d", renewed, ids[0])
	}
}
